// What a run's stream modes make of what its graph does. The graph runner reports each happening
// once (a node starting, a chunk of a model reply, a custom event, a node's writes, a superstep's
// checkpoint, an interrupt); this turns it into the events of the modes the run was created with
// (`stream_mode`), named and shaped as LangGraph's JS server sends them, and appends them to the
// run's log. Modes nobody asked for cost nothing: a run that is only waited for publishes its
// values and no more.
//
// - `values`: the state after each superstep that wrote a state key (after the input is applied;
//   a run that continues without input starts with the state it continues from), and
//   `{"__interrupt__": [...]}` when the run stops at an interrupt or a breakpoint.
// - `updates`: `{<node>: <what it wrote>}` per task of a graph node (not `__start__`), as each
//   task ends, and `{"__interrupt__": [...]}` likewise.
// - `messages-tuple` (events named `messages`): `[chunk, metadata]` for each chunk of a model
//   reply, and `[message, metadata]` for each message a node returns whole (a tool's answer, a
//   plain node's message).
// - `messages`: `messages/complete` with the messages first seen in a root state's values,
//   `messages/metadata` once per model reply, then `messages/partial` with the reply so far.
// - `tasks`: each node's task when it starts (its input) and when it ends (its writes, or its
//   interrupts); `checkpoints`: each checkpoint's values, metadata and next nodes; `debug`: both,
//   with the checkpoint's config and tasks, as LangGraph's debug stream has them.
// - `tools`: `on_tool_start` and `on_tool_end` of each tool call a tool node runs.
// - `events`: LangChain's `streamEvents` (v2): the graph's chain, each node's chain (and a
//   subgraph's own), the chat model's start, stream and end, the router after a node whose edges
//   are conditional, each tool.
// - `custom`: what a node writes to the stream itself (`config.writer`).
//
// Subgraphs: what happens inside a subgraph node carries its namespace (`<node>:<task id>`, one
// segment per level, joined by `|`). With `stream_subgraphs` its events are named
// `<mode>|<namespace>`; without, they are not sent, but for the messages modes, whose model
// chunks come from any depth (LangGraph's messages handler sees every model call). Within one mode
// the order is LangGraph's; where the real server interleaves several modes differently in one
// stream, each mode's own sequence is what the spec promises.
import type { Interrupt, RunError } from '@agentplane/agent-server';
import { newId } from '../../shared/ids.js';
import { END } from '../graphs/graph-shape.js';
import type { RunIdentity } from './platform-metadata.js';
import { platformMetadata } from './platform-metadata.js';
import type { RunEventLog } from './run-events.js';
import type { NodeCall, RunObserver, WrittenCheckpoint } from './run-observer.js';

export type { NodeCall, WrittenCheckpoint } from './run-observer.js';

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
  /** The run's config tags (an assistant's `tags`), which LangGraph adds to every node's. */
  tags: string[];
}

/** The namespace of what runs inside a node: its graph's, and `<node>:<task id>`. */
export const namespaceOf = (call: NodeCall): string[] => [...call.ns, `${call.node}:${call.taskId}`];

/** What LangGraph's metadata says of the task a callback or a subgraph checkpoint belongs to, in `namespace`. */
export function taskMetadata(call: NodeCall, namespace: string): Values {
  return {
    langgraph_step: call.step,
    langgraph_node: call.node,
    langgraph_triggers: [`branch:to:${call.node}`],
    langgraph_path: ['__pregel_pull', call.node],
    langgraph_checkpoint_ns: namespace,
    checkpoint_ns: namespace,
  };
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
  private readonly custom: boolean;
  private readonly lifecycle: boolean;
  /** `stream_subgraphs`: the events of what runs inside a subgraph node carry its namespace. */
  private readonly subgraphs: boolean;
  /** Each subgraph running in the run, by namespace: the node's call that runs it, and the checkpoints it runs under. */
  private readonly subgraphFrames = new Map<string, { call: NodeCall; checkpointMap: Values }>();
  /** `messages` mode: the messages already sent complete, and the reply being streamed. */
  private readonly completed = new Set<string>();
  private partial: Values | undefined;

  constructor(
    private readonly log: RunEventLog,
    modes: readonly string[],
    private readonly context: StreamRunContext,
    /** Told every happening whatever the modes (the protocol's events of the run). */
    private readonly observer?: RunObserver,
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
    this.custom = modes.includes('custom');
    this.lifecycle = modes.includes('lifecycle');
    this.subgraphs = context.subgraphs;
  }

  /** The name of a mode's event from a graph at `ns`; undefined when it is not sent (inside a subgraph, without stream_subgraphs). */
  private nameIn(mode: string, ns: readonly string[]): string | undefined {
    if (ns.length === 0) return mode;
    return this.subgraphs ? `${mode}|${ns.join('|')}` : undefined;
  }

  private publishIn(mode: string, ns: readonly string[], data: unknown): void {
    const name = this.nameIn(mode, ns);
    if (name) this.log.publish(name, data);
  }

  /** The run begins with its input, or with the command it was given (as LangGraph serialises a Command). */
  runStarted(input: unknown, command: Values | undefined): void {
    if (!this.events) return;
    const given = command ? { lg_name: 'Command', ...command, goto: command.goto === undefined ? [] : [command.goto].flat() } : input;
    this.publishEvent('on_chain_start', 'LangGraph', [...this.context.tags], this.context.runId, this.graphMetadata(), { input: given });
  }

  /** The run ends without error (also at an interrupt): the graph's chain ends with the state. */
  runEnded(values: Values): void {
    if (this.events)
      this.publishEvent('on_chain_end', 'LangGraph', [...this.context.tags], this.context.runId, this.graphMetadata(), { output: values });
  }

  /** A node's chain starts (`events`), and its task (`tasks`, `debug`). */
  nodeStarted(call: NodeCall, input: Values, now: string): void {
    this.observer?.nodeStarted(call, input);
    if (this.events)
      this.publishEvent('on_chain_start', call.node, this.nodeTags(call), call.runId, this.nodeMetadata(call, 'langgraph'), { input });
    this.taskStarted(call, input, now);
  }

  /** A subgraph node's graph starts inside its chain (`events`: a `LangGraph` chain named after no node). */
  subgraphStarted(call: NodeCall, subgraphRunId: string, input: Values, checkpointMap: Values): void {
    this.observer?.subgraphStarted(call);
    this.subgraphFrames.set(namespaceOf(call).join('|'), { call, checkpointMap });
    if (this.events) this.publishEvent('on_chain_start', 'LangGraph', [], subgraphRunId, this.nodeMetadata(call, 'langgraph'), { input });
  }

  /** The subgraph's graph ends with its state. */
  subgraphEnded(call: NodeCall, subgraphRunId: string, output: Values, input: Values): void {
    this.observer?.subgraphEnded(call);
    if (this.events)
      this.publishEvent('on_chain_end', 'LangGraph', [], subgraphRunId, this.nodeMetadata(call, 'langgraph'), { output, input }, true);
  }

  /**
   * `lifecycle` mode: a subgraph at `ns` started, or ended as `event` says (with the error its node
   * raised when it failed). Named after the subgraph's namespace whether or not subgraphs stream.
   */
  subgraphLifecycle(ns: readonly string[], event: 'started' | 'completed' | 'failed' | 'interrupted', error?: RunError): void {
    if (this.lifecycle) this.log.publish(`lifecycle|${ns.join('|')}`, { event, namespace: [...ns], ...(error ? { error } : {}) });
  }

  /** A chat model is called in a node with the state's messages; `modelRunId` names its reply. */
  modelStarted(call: NodeCall, modelRunId: string, values: Values): void {
    if (!this.events) return;
    this.publishEvent('on_chat_model_start', 'ScriptedChatModel', [], modelRunId, this.modelMetadata(call), {
      input: { messages: [values.messages ?? []] },
    });
  }

  /** The chat model returned its whole reply. */
  modelEnded(call: NodeCall, modelRunId: string, message: Values, values: Values): void {
    this.observer?.modelEnded(call, message);
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

  /** A node wrote a value to the stream itself (`config.writer`). */
  customWritten(call: NodeCall, value: unknown): void {
    this.observer?.customWritten(call, value);
    if (this.custom) this.publishIn('custom', call.ns, value);
  }

  /** A checkpoint was committed in the graph at `ns`. */
  checkpointWritten(ns: readonly string[], checkpoint: WrittenCheckpoint, whole = false): void {
    if ((!this.checkpoints && !this.debug) || this.context.temporary) return;
    const { source, step, parents } = checkpoint.metadata;
    // A checkpoint written now shows what the loop knows of it; one loaded to continue from, all it stored.
    const metadata = whole ? checkpoint.metadata : { source, step, parents };
    if (this.checkpoints) this.publishIn('checkpoints', ns, { values: checkpoint.values, metadata, next: checkpoint.next });
    if (!this.debug) return;
    const parent = checkpoint.parent_checkpoint_id;
    this.publishIn('debug', ns, {
      step,
      type: 'checkpoint',
      timestamp: checkpoint.created_at,
      payload: {
        config: this.debugConfig(ns, checkpoint.checkpoint_id),
        // A loaded checkpoint's parent is known by its reference only, with no checkpoint map.
        ...(parent
          ? { parent_config: whole ? { configurable: this.checkpointReferenceConfig(ns, parent) } : this.debugConfig(ns, parent) }
          : {}),
        values: checkpoint.values,
        metadata,
        next: checkpoint.next,
        tasks: checkpoint.tasks.map((task) => ({
          id: task.id,
          name: task.name,
          path: task.path ?? ['__pregel_pull', task.name],
          interrupts: task.interrupts ?? [],
          // What a task already wrote (a loaded checkpoint's tasks that ran before an interrupt).
          ...(task.result != null ? { result: task.result } : {}),
          ...(task.checkpoint ? { checkpoint: { ...(task.checkpoint as Values), checkpoint_id: null, checkpoint_map: null } } : {}),
        })),
        checkpoint: this.checkpointReference(ns, checkpoint.checkpoint_id),
        parent_checkpoint: parent ? this.checkpointReference(ns, parent, !whole) : null,
      },
    });
  }

  /** A node's task starts, with the state it reads. */
  private taskStarted(call: NodeCall, input: Values, now: string): void {
    if (!this.tasks && !this.debug) return;
    const task = {
      id: call.taskId,
      name: call.node,
      input,
      triggers: [`branch:to:${call.node}`],
      interrupts: [],
      // The run's config tags ride along in a task's metadata, as LangGraph's server passes them.
      metadata: {
        ...platformMetadata(this.context, 'langgraph', { withThread: false }),
        ...(this.context.tags.length > 0 ? { tags: this.context.tags } : {}),
      },
    };
    if (this.tasks) this.publishIn('tasks', call.ns, task);
    if (this.debug) this.publishIn('debug', call.ns, { step: call.step, type: 'task', timestamp: now, payload: task });
  }

  /** A node's task stopped without writes: at the interrupts it raised, or (none) because it raised an error. */
  taskStopped(call: NodeCall, interrupts: Interrupt[], now: string): void {
    this.observer?.taskStopped(call, interrupts);
    this.taskFinished(call, {}, interrupts, now);
  }

  /** A node's task ended: what it wrote, or the interrupts it stopped at (and wrote nothing). */
  private taskFinished(call: NodeCall, written: Values, interrupts: Interrupt[], now: string): void {
    if (!this.tasks && !this.debug) return;
    const result = { id: call.taskId, name: call.node, result: written, interrupts };
    if (this.tasks) this.publishIn('tasks', call.ns, result);
    if (this.debug) this.publishIn('debug', call.ns, { step: call.step, type: 'task_result', timestamp: now, payload: result });
  }

  /** A tool node runs a tool call, which answers (`tools` mode and `events`). */
  toolCalled(node: NodeCall, call: { id?: string | null; name: string; args: unknown }, answer: Values): void {
    this.observer?.toolCalled(node, call, answer);
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

  /** A debug checkpoint's config: a subgraph's names the checkpoints it runs under and the node that runs it. */
  private debugConfig(ns: readonly string[], checkpointId: string, own = true): Values {
    const frame = this.subgraphFrames.get(ns.join('|'));
    return {
      configurable: {
        checkpoint_ns: ns.join('|'),
        ...this.context.configurable,
        checkpoint_id: checkpointId,
        ...(frame && own ? { checkpoint_map: frame.checkpointMap } : {}),
      },
      metadata: frame ? this.nodeMetadata(frame.call, 'langgraph') : platformMetadata(this.context),
      recursion_limit: this.context.recursionLimit,
      tags: this.context.tags,
    };
  }

  /** A loaded checkpoint's parent, as its reference only. */
  private checkpointReferenceConfig(ns: readonly string[], checkpointId: string): Values {
    return { checkpoint_ns: ns.join('|'), thread_id: this.context.threadId, checkpoint_id: checkpointId };
  }

  private checkpointReference(ns: readonly string[], checkpointId: string, own = true): Values {
    const frame = own ? this.subgraphFrames.get(ns.join('|')) : undefined;
    return {
      thread_id: this.context.threadId,
      checkpoint_id: checkpointId,
      checkpoint_ns: ns.join('|'),
      checkpoint_map: frame?.checkpointMap ?? null,
    };
  }

  /** Whether anyone reads the chunks of a model reply (else the runner need not cut it). */
  get wantsChunks(): boolean {
    return this.tuples || this.legacyMessages || this.events || this.observer !== undefined;
  }

  /**
   * Whether a messages mode streams the messages a node returns: LangGraph's stream handler then
   * names each one it sends without an ID (`run-<node run id>`, a tool's `...-tool-<call id>`),
   * and the state keeps that name.
   */
  get namesNodeMessages(): boolean {
    return this.tuples || this.legacyMessages || this.observer !== undefined;
  }

  /** The state a run (or, in its namespace, a subgraph) starts from when it goes on without input. */
  startedFrom(values: Values, head: WrittenCheckpoint, ns: readonly string[] = []): void {
    this.observer?.startedFrom(values, head, ns);
    this.checkpointWritten(ns, head, true);
    if (this.values) this.publishIn('values', ns, values);
    this.completeMessages(ns, values);
  }

  /** A command's update (or goto) was applied before the graph goes on: the state it made, then its checkpoint. */
  commandApplied(values: Values, checkpoint: WrittenCheckpoint): void {
    if (this.values) this.publishIn('values', [], values);
    this.completeMessages([], values);
    this.checkpointWritten([], checkpoint);
  }

  /**
   * A node's task ended with its writes (`written`, after the state `before`): its chain ends (with
   * the router after it, when a router picks where the graph goes: `route`), its update, and its
   * task's result, in LangGraph's order. `output` is what the node returned (a Command, or its writes).
   */
  nodeEnded(
    call: NodeCall,
    written: Values,
    before: Values,
    output: unknown,
    route: { to: string[]; state: Values } | undefined,
    now: string,
  ): void {
    this.observer?.nodeEnded(call, written);
    if (this.events) {
      const metadata = this.nodeMetadata(call, 'langgraph');
      if (route) {
        // A conditional edge's function is a RunnableLambda reading the state the node left.
        const routerRunId = newId();
        const chosen = route.to.length === 0 ? END : route.to.length === 1 ? route.to[0] : route.to;
        this.publishEvent('on_chain_start', 'RunnableLambda', [], routerRunId, metadata, { input: route.state });
        this.publishEvent('on_chain_end', 'RunnableLambda', [], routerRunId, metadata, { output: chosen, input: route.state }, true);
      }
      this.publishEvent('on_chain_end', call.node, this.nodeTags(call), call.runId, metadata, { output, input: before }, true);
    }
    if (this.updates) this.publishIn('updates', call.ns, { [call.node]: written });
    this.taskFinished(call, written, [], now);
  }

  /**
   * A superstep of the graph at `ns` was committed, leaving `values` in `checkpoint`: the values
   * (when a task wrote a state key), the messages first seen, the checkpoint.
   */
  stateWritten(ns: readonly string[], values: Values, wroteState: boolean, checkpoint: WrittenCheckpoint): void {
    this.observer?.stateWritten(ns, values, wroteState, checkpoint);
    // With subgraphs, LangGraph announces each state's checkpoint by reference before the state,
    // unless the full checkpoints are streamed anyway.
    if (wroteState && this.subgraphs && this.values && !this.checkpoints && !this.context.temporary)
      this.publishIn('checkpoints', ns, {
        id: checkpoint.checkpoint_id,
        parent_id: checkpoint.parent_checkpoint_id,
        step: checkpoint.metadata.step,
        source: checkpoint.metadata.source,
      });
    if (wroteState && this.values) this.publishIn('values', ns, values);
    if (wroteState) this.completeMessages(ns, values);
    this.checkpointWritten(ns, checkpoint);
  }

  /** The graph at `ns` stops at an interrupt (its interrupts) or a breakpoint (none). */
  interrupted(ns: readonly string[], interrupts: Interrupt[]): void {
    this.observer?.interrupted(ns, interrupts);
    if (this.updates) this.publishIn('updates', ns, { __interrupt__: interrupts });
    if (this.values) this.publishIn('values', ns, { __interrupt__: interrupts });
  }

  /** A chunk of a model's reply in a node. */
  modelChunk(call: NodeCall, chunk: Values): void {
    this.observer?.modelChunk(call, chunk);
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
    // With subgraphs, events from inside a node are named with its namespace (the model runs in the node's).
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

  /** Messages a node returns whole (not streamed by a model): a tool node's answers, a plain node's messages. */
  nodeMessages(call: NodeCall, messages: Values[]): void {
    this.observer?.nodeMessages(call, messages);
    if (!this.tuples) return;
    for (const message of messages)
      this.log.publish(this.messagesEventOf(call), [
        message,
        { tags: this.nodeTags(call), name: call.node, ...this.nodeMetadata(call, 'langgraph') },
      ]);
  }

  /** The name of a `messages-tuple` event from inside a node: with subgraphs, the node's namespace follows. */
  private messagesEventOf(call: NodeCall): string {
    return this.subgraphs ? `messages|${namespaceOf(call).join('|')}` : 'messages';
  }

  /**
   * `messages` mode: the messages of a root state's `values` not sent complete before, as one event.
   * With stream_subgraphs LangGraph's server sends none.
   */
  private completeMessages(ns: readonly string[], values: Values): void {
    if (!this.legacyMessages || ns.length > 0 || this.subgraphs || !Array.isArray(values.messages)) return;
    const fresh = (values.messages as Values[]).filter((message) => {
      const id = message.id;
      if (typeof id !== 'string' || this.completed.has(id)) return false;
      this.completed.add(id);
      return true;
    });
    if (fresh.length > 0) this.log.publish('messages/complete', fresh);
  }

  /** A node's tags: its step, then the run's config tags. */
  private nodeTags(call: NodeCall): string[] {
    return [`graph:step:${call.step}`, ...this.context.tags];
  }

  private modelMetadata(call: NodeCall): Values {
    return { ...this.nodeMetadata(call, 'langchain_chat_model'), ls_model_type: 'chat', ls_provider: 'ScriptedChatModel' };
  }

  /**
   * What LangGraph's callbacks know of a node's call: the run's metadata, then where in the graph it
   * runs (a subgraph's checkpoints have their node's).
   */
  private nodeMetadata(call: NodeCall, integration: string): Values {
    return { ...platformMetadata(this.context, integration), ...taskMetadata(call, namespaceOf(call).join('|')) };
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
