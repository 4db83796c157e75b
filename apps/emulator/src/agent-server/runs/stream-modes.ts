// What a run's stream modes make of what its graph does. The graph runner reports each happening
// once (a step's writes and values, a chunk of a model reply, an interrupt); this turns it into
// the events of the modes the run was created with (`stream_mode`), named and shaped as
// LangGraph's JS server sends them for the same graph, and appends them to the run's log. Modes
// nobody asked for cost nothing: a run that is only waited for publishes its values and no more.
//
// - `values`: the state after each step (after the input is applied; a run that continues
//   without input starts with the state it continues from), and `{"__interrupt__": [...]}` when
//   the run stops at an interrupt or a breakpoint.
// - `updates`: `{<node>: <what it wrote>}` per step of a graph node (not `__start__`), and
//   `{"__interrupt__": [...]}` likewise.
// - `messages-tuple` (events named `messages`): `[chunk, metadata]` for each chunk of a model
//   reply, and `[message, metadata]` for each message a node returns whole (the tool answers).
// - `messages`: `messages/complete` with the messages first seen in a step's values,
//   `messages/metadata` once per model reply, then `messages/partial` with the reply so far.
// - `tasks`: each node's task when it starts (its input) and when it ends (its writes, or its
//   interrupts); `checkpoints`: each checkpoint's values, metadata and next nodes; `debug`: both,
//   with the checkpoint's config and tasks, as LangGraph's debug stream has them.
// - `tools`: `on_tool_start` and `on_tool_end` of each tool call.
// - `events`: LangChain's `streamEvents` (v2) of this graph's shape: the graph's chain, each
//   node's chain, the chat model's start, stream and end, the router after `agent`, each tool.
// - `custom`: what a node writes to the stream itself; scripted graphs write nothing there.
// Within one mode the order is LangGraph's; where the real server interleaves several modes
// differently in one stream, each mode's own sequence is what the spec promises.
import type { Interrupt } from '@agentplane/agent-server';
import { newId } from '../../shared/ids.js';
import { AGENT, END, START } from '../react-agent.js';
import type { RunIdentity } from './platform-metadata.js';
import { platformMetadata } from './platform-metadata.js';
import type { RunEventLog } from './run-events.js';

type Values = Record<string, unknown>;

/** The run-wide part of a model call's metadata, as LangGraph passes it to the chat model's callbacks. */
export interface StreamRunContext extends RunIdentity {
  /** The run's `config.configurable` (its request headers, IDs, and the assistant's and its own keys). */
  configurable: Values;
  recursionLimit: number;
  /** A stateless run that deletes its thread: LangGraph runs it without a checkpointer, so it streams no checkpoint. */
  temporary: boolean;
  /** The run's `stream_subgraphs`. */
  subgraphs: boolean;
}

/** A checkpoint as the runner committed it. */
export interface WrittenCheckpoint {
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  created_at: string;
  values: Values;
  metadata: Values;
  next: string[];
  tasks: { id: string; name: string; path?: unknown[]; interrupts?: unknown[] }[];
}

/** Where a node runs: its step and its task's ID (the checkpoint namespace names both). */
export interface NodeCall {
  node: string;
  step: number;
  taskId: string;
}

export class StreamModes {
  private readonly values: boolean;
  private readonly updates: boolean;
  private readonly tuples: boolean;
  private readonly legacyMessages: boolean;
  private readonly tasks: boolean;
  private readonly checkpoints: boolean;
  private readonly debug: boolean;
  private readonly tools: boolean;
  private readonly events: boolean;
  /** `stream_subgraphs`: the events of what runs inside a node carry the node's namespace. */
  private readonly subgraphs: boolean;
  /** `events` mode: the run ID of each node's chain while it runs, by node. */
  private readonly chainRunIds = new Map<string, string>();
  /** `messages` mode: the messages already sent complete, and the reply being streamed. */
  private readonly completed = new Set<string>();
  private partial: Values | undefined;

  constructor(
    private readonly log: RunEventLog,
    modes: readonly string[],
    private readonly context: StreamRunContext,
  ) {
    this.values = modes.includes('values');
    this.updates = modes.includes('updates');
    this.tuples = modes.includes('messages-tuple');
    this.legacyMessages = modes.includes('messages');
    this.tasks = modes.includes('tasks');
    this.checkpoints = modes.includes('checkpoints');
    this.debug = modes.includes('debug');
    this.tools = modes.includes('tools');
    this.events = modes.includes('events');
    this.subgraphs = context.subgraphs;
  }

  /** The run begins with its input, or with the command it was given (as LangGraph serialises a Command). */
  runStarted(input: unknown, command: Values | undefined): void {
    if (!this.events) return;
    const given = command ? { lg_name: 'Command', ...command, goto: command.goto ?? [] } : input;
    this.publishEvent('on_chain_start', 'LangGraph', [], this.context.runId, this.graphMetadata(), { input: given });
  }

  /** The run ends without error (also at an interrupt): the graph's chain ends with the state. */
  runEnded(values: Values): void {
    if (this.events) this.publishEvent('on_chain_end', 'LangGraph', [], this.context.runId, this.graphMetadata(), { output: values });
  }

  /** A node's chain starts (`events`), and its task (`tasks`, `debug`). */
  nodeStarted(call: NodeCall, input: Values, now: string): void {
    if (this.events) {
      const runId = newId();
      this.chainRunIds.set(call.node, runId);
      this.publishEvent('on_chain_start', call.node, [`graph:step:${call.step}`], runId, this.nodeMetadata(call, 'langgraph'), { input });
    }
    this.taskStarted(call, input, now);
  }

  /** The chat model of node `agent` is called with the state's messages; `modelRunId` names its reply. */
  modelStarted(call: NodeCall, modelRunId: string, values: Values): void {
    if (!this.events) return;
    this.publishEvent('on_chat_model_start', 'ScriptedChatModel', [], modelRunId, this.modelMetadata(call), {
      input: { messages: [values.messages ?? []] },
    });
  }

  /** The chat model returned its whole reply. */
  modelEnded(call: NodeCall, modelRunId: string, message: Values, values: Values): void {
    if (!this.events) return;
    this.publishEvent(
      'on_chat_model_end',
      'ScriptedChatModel',
      [],
      modelRunId,
      this.modelMetadata(call),
      { output: message, input: { messages: [values.messages ?? []] } },
      true,
    );
  }

  /** A checkpoint was committed. */
  checkpointWritten(checkpoint: WrittenCheckpoint, whole = false): void {
    if ((!this.checkpoints && !this.debug) || this.context.temporary) return;
    const { source, step, parents } = checkpoint.metadata;
    // A checkpoint written now shows what the loop knows of it; one loaded to continue from, all it stored.
    const metadata = whole ? checkpoint.metadata : { source, step, parents };
    if (this.checkpoints) this.log.publish('checkpoints', { values: checkpoint.values, metadata, next: checkpoint.next });
    if (!this.debug) return;
    const parent = checkpoint.parent_checkpoint_id;
    this.log.publish('debug', {
      step,
      type: 'checkpoint',
      timestamp: checkpoint.created_at,
      payload: {
        config: this.debugConfig(checkpoint.checkpoint_id),
        // A loaded checkpoint's parent is known by its reference only.
        ...(parent ? { parent_config: whole ? { configurable: this.checkpointReferenceConfig(parent) } : this.debugConfig(parent) } : {}),
        values: checkpoint.values,
        metadata,
        next: checkpoint.next,
        tasks: checkpoint.tasks.map((task) => ({
          id: task.id,
          name: task.name,
          path: task.path ?? ['__pregel_pull', task.name],
          interrupts: task.interrupts ?? [],
        })),
        checkpoint: this.checkpointReference(checkpoint.checkpoint_id),
        parent_checkpoint: parent ? this.checkpointReference(parent) : null,
      },
    });
  }

  /** A node's task starts, with the state it reads. */
  taskStarted(call: NodeCall, input: Values, now: string): void {
    if (!this.tasks && !this.debug) return;
    const task = {
      id: call.taskId,
      name: call.node,
      input,
      triggers: [`branch:to:${call.node}`],
      interrupts: [],
      metadata: platformMetadata(this.context, 'langgraph', { withThread: false }),
    };
    if (this.tasks) this.log.publish('tasks', task);
    if (this.debug) this.log.publish('debug', { step: call.step, type: 'task', timestamp: now, payload: task });
  }

  /** A node's task ended: what it wrote, or the interrupts it stopped at (and wrote nothing). */
  taskFinished(call: NodeCall, written: Values, interrupts: Interrupt[], now: string): void {
    if (!this.tasks && !this.debug) return;
    const result = { id: call.taskId, name: call.node, result: written, interrupts };
    if (this.tasks) this.log.publish('tasks', result);
    if (this.debug) this.log.publish('debug', { step: call.step, type: 'task_result', timestamp: now, payload: result });
  }

  /** A tool is called, then answers (`tools` mode). */
  toolCalled(node: NodeCall, call: { id?: string | null; name: string; args: unknown }, answer: Values): void {
    if (this.tools) {
      this.log.publish('tools', { event: 'on_tool_start', toolCallId: call.id, name: call.name, input: JSON.stringify(call.args) });
      this.log.publish('tools', { event: 'on_tool_end', toolCallId: call.id, name: call.name, output: answer });
    }
    if (this.events) {
      const runId = newId();
      const metadata = this.nodeMetadata(node, 'langgraph');
      this.log.publish('events', {
        event: 'on_tool_start',
        data: { input: call.args },
        name: call.name,
        run_id: runId,
        tags: [],
        metadata,
      });
      this.publishEvent('on_tool_end', call.name, [], runId, metadata, { output: answer, input: call.args }, true);
    }
  }

  /**
   * One `events` event. LangChain's start events list `name` before `run_id`, its stream and end
   * events `run_id` first; the keys keep that order.
   */
  private publishEvent(
    event: string,
    name: string,
    tags: string[],
    runId: string,
    metadata: Values,
    data: Values,
    runIdFirst = false,
  ): void {
    this.log.publish(
      'events',
      runIdFirst ? { event, data, run_id: runId, name, tags, metadata } : { event, data, name, tags, run_id: runId, metadata },
    );
  }

  private graphMetadata(): Values {
    return platformMetadata(this.context);
  }

  private debugConfig(checkpointId: string): Values {
    return {
      configurable: { checkpoint_ns: '', ...this.context.configurable, checkpoint_id: checkpointId },
      metadata: platformMetadata(this.context),
      recursion_limit: this.context.recursionLimit,
      tags: [],
    };
  }

  private checkpointReferenceConfig(checkpointId: string): Values {
    return { checkpoint_ns: '', thread_id: this.context.threadId, checkpoint_id: checkpointId };
  }

  private checkpointReference(checkpointId: string): Values {
    return { thread_id: this.context.threadId, checkpoint_id: checkpointId, checkpoint_ns: '', checkpoint_map: null };
  }

  /** Whether anyone reads the chunks of a model reply (else the runner need not cut it). */
  get wantsChunks(): boolean {
    return this.tuples || this.legacyMessages || this.events;
  }

  /** Whether a messages mode streams the tool answers, which then keep the name it gives them. */
  get namesToolMessages(): boolean {
    return this.tuples || this.legacyMessages;
  }

  /** The state a run starts from when it continues without input. */
  startedFrom(values: Values, head: WrittenCheckpoint): void {
    this.checkpointWritten(head, true);
    if (this.values) this.log.publish('values', values);
    this.completeMessages(values);
  }

  /**
   * A step was committed: `node` wrote `written`, leaving `values` in `checkpoint`. Its events go
   * in LangGraph's order: the update, the task's result, the values, the checkpoint.
   */
  stepWritten(call: NodeCall, written: Values, before: Values, values: Values, next: string[], checkpoint: WrittenCheckpoint): void {
    const ofNode = call.node !== START;
    if (this.events && ofNode) {
      const metadata = this.nodeMetadata(call, 'langgraph');
      if (call.node === AGENT) {
        // The conditional edge after `agent` is a RunnableLambda reading the state the node left.
        const routerRunId = newId();
        this.publishEvent('on_chain_start', 'RunnableLambda', [], routerRunId, metadata, { input: values });
        this.publishEvent('on_chain_end', 'RunnableLambda', [], routerRunId, metadata, { output: next[0] ?? END, input: values }, true);
      }
      const runId = this.chainRunIds.get(call.node) ?? newId();
      this.publishEvent('on_chain_end', call.node, [`graph:step:${call.step}`], runId, metadata, { output: written, input: before }, true);
    }
    if (this.updates && ofNode) this.log.publish('updates', { [call.node]: written });
    if (ofNode) this.taskFinished(call, written, [], checkpoint.created_at);
    // With subgraphs, LangGraph announces each state's checkpoint by reference before the state,
    // unless the full checkpoints are streamed anyway.
    if (this.subgraphs && this.values && !this.checkpoints && !this.context.temporary)
      this.log.publish('checkpoints', {
        id: checkpoint.checkpoint_id,
        parent_id: checkpoint.parent_checkpoint_id,
        step: checkpoint.metadata.step,
        source: checkpoint.metadata.source,
      });
    if (this.values) this.log.publish('values', values);
    this.completeMessages(values);
    this.checkpointWritten(checkpoint);
  }

  /** The run stops at an interrupt (its interrupts) or a breakpoint (none). */
  interrupted(interrupts: Interrupt[]): void {
    if (this.updates) this.log.publish('updates', { __interrupt__: interrupts });
    if (this.values) this.log.publish('values', { __interrupt__: interrupts });
  }

  /** A chunk of the model's reply in node `agent`; the last one carries the tool calls. */
  modelChunk(call: NodeCall, chunk: Values): void {
    if (this.events)
      this.publishEvent(
        'on_chat_model_stream',
        'ScriptedChatModel',
        [],
        (chunk.id as string).slice('run-'.length),
        this.modelMetadata(call),
        { chunk },
        true,
      );
    // With subgraphs, events from inside a node are named with its namespace (the model runs in the agent's).
    if (this.tuples) this.log.publish(this.messagesEventOf(call), [chunk, { tags: [], ...this.modelMetadata(call) }]);
    if (!this.legacyMessages) return;
    const id = chunk.id as string;
    if (this.partial?.id !== id) {
      this.partial = chunk;
      this.log.publish('messages/metadata', { [id]: { metadata: this.modelMetadata(call) } });
    } else {
      this.partial = concatChunks(this.partial, chunk);
    }
    this.log.publish('messages/partial', [this.partial]);
  }

  /** Messages a node returns whole (not streamed by a model): the tool answers of node `tools`. */
  nodeMessages(call: NodeCall, messages: Values[]): void {
    if (!this.tuples) return;
    for (const message of messages)
      this.log.publish(this.messagesEventOf(call), [
        message,
        { tags: [`graph:step:${call.step}`], name: call.node, ...this.nodeMetadata(call, 'langgraph') },
      ]);
  }

  /** The name of a `messages-tuple` event from inside a node: with subgraphs, the node's namespace follows. */
  private messagesEventOf(call: NodeCall): string {
    return this.subgraphs ? `messages|${call.node}:${call.taskId}` : 'messages';
  }

  /** `messages` mode: the messages of `values` not sent complete before, as one event. */
  private completeMessages(values: Values): void {
    if (!this.legacyMessages || !Array.isArray(values.messages)) return;
    const fresh = (values.messages as Values[]).filter((message) => {
      const id = message.id;
      if (typeof id !== 'string' || this.completed.has(id)) return false;
      this.completed.add(id);
      return true;
    });
    if (fresh.length > 0) this.log.publish('messages/complete', fresh);
  }

  private modelMetadata(call: NodeCall): Values {
    return { ...this.nodeMetadata(call, 'langchain_chat_model'), ls_model_type: 'chat', ls_provider: 'ScriptedChatModel' };
  }

  /** What LangGraph's callbacks know of a node's call: the run's metadata, then where in the graph it runs. */
  private nodeMetadata(call: NodeCall, integration: string): Values {
    const namespace = `${call.node}:${call.taskId}`;
    return {
      ...platformMetadata(this.context, integration),
      langgraph_step: call.step,
      langgraph_node: call.node,
      langgraph_triggers: [`branch:to:${call.node}`],
      langgraph_path: ['__pregel_pull', call.node],
      langgraph_checkpoint_ns: namespace,
      checkpoint_ns: namespace,
    };
  }
}

/** A reply so far plus its next chunk, as LangChain concatenates `AIMessageChunk`s. */
function concatChunks(sofar: Values, chunk: Values): Values {
  return {
    ...sofar,
    ...chunk,
    content: `${sofar.content as string}${chunk.content as string}`,
    tool_call_chunks: [...((sofar.tool_call_chunks as unknown[]) ?? []), ...((chunk.tool_call_chunks as unknown[]) ?? [])],
    tool_calls: [...((sofar.tool_calls as unknown[]) ?? []), ...((chunk.tool_calls as unknown[]) ?? [])],
  };
}
