// Executes one run of a scripted graph (the ReAct shape of react-agent.ts), writing each step's
// checkpoint as LangGraph's Pregel loop writes it for that graph:
//
// - With `input`, an `input` checkpoint first (step −1 on a thread without checkpoints, else one
//   more than the last): the state before the input, `next: ["__start__"]`. Then one `loop`
//   checkpoint per step: `__start__` applies the input, `agent` replies, `tools` answers its calls,
//   until no node is left to run. `input: null` (or none) continues from the thread's checkpoint.
// - Every checkpoint's `tasks` are the nodes of `next`; once a task has run, its checkpoint's task
//   records what it wrote (`result`), as LangGraph's pending writes show it in the history.
// - A reply that interrupts leaves no checkpoint: its task in the latest one records the
//   interrupt, and `command.resume` runs the node again with the resume value. A reply that
//   raises records its error on the task. `interrupt_before`/`interrupt_after` stop the run before
//   or after the named nodes, with the thread waiting there.
// - A step is committed, checkpoint and reply cursor together, before the next one begins; a
//   cancelled run stops at its next pause (a streamed chunk's delay) and writes nothing more.
import type { Interrupt, RunCommand, RunError, ThreadTask } from '@agentplane/agent-server';
import { canonicalUuid, newCheckpointId, newId, newRunId } from '../../shared/ids.js';
import { AGENT, GRAPH_NODES, nextAfter, pendingToolCalls, START, TOOLS } from '../react-agent.js';
import type { ReplyEntry, ScriptedGraph } from '../scripted-graph.js';
import { messageText, renderReplyText } from '../scripted-graph.js';
import type { PlannedCheckpoint } from '../supersteps.js';
import { applyValues, pendingTask } from '../supersteps.js';
import type { CheckpointRow, ThreadStore } from '../thread-store.js';
import { platformMetadata } from './platform-metadata.js';
import type { RunEventLog } from './run-events.js';
import type { RunRow, RunStore } from './run-store.js';
import type { NodeCall } from './stream-modes.js';
import { StreamModes } from './stream-modes.js';

type Values = Record<string, unknown>;

/** How a run's graph ended: its final values (and the interrupts it waits at), or its error. */
export type RunOutcome = { status: 'success'; values: Values; interrupts?: Interrupt[] } | { status: 'error'; error: RunError };

export interface GraphRun {
  run: RunRow;
  graph: ScriptedGraph;
  threads: ThreadStore;
  runs: RunStore;
  log: RunEventLog;
  /** Aborted when the run is cancelled: it writes nothing more. */
  signal: AbortSignal;
  now: () => number;
}

/** A node raised (a scripted `error`, no reply matching, too many steps): the run fails with it. */
class NodeError extends Error {
  constructor(
    readonly kind: string,
    message: string,
    /** The node that raised it, whose task records the error; none for an error of the loop itself. */
    readonly node?: string,
  ) {
    super(message);
  }
}

/** The run stops here: the thread waits at an interrupt or a breakpoint. */
class Paused {
  constructor(readonly interrupts: Interrupt[]) {}
}

const DEFAULT_RECURSION_LIMIT = 25;

export async function runScriptedGraph(context: GraphRun): Promise<RunOutcome> {
  const execution = new Execution(context);
  try {
    return await outcomeOf(execution);
  } finally {
    execution.flushIndex();
  }
}

async function outcomeOf(execution: Execution): Promise<RunOutcome> {
  try {
    await execution.execute();
    execution.modes.runEnded(execution.values);
    return { status: 'success', values: execution.values };
  } catch (error) {
    if (error instanceof Paused) {
      execution.modes.interrupted(error.interrupts);
      execution.modes.runEnded(execution.values);
      return { status: 'success', values: execution.values, interrupts: error.interrupts };
    }
    if (error instanceof NodeError) {
      if (error.node) {
        execution.recordTaskError(error.node, error.message);
        // Streamed as LangGraph does: the task ends with no writes, then the run's error event.
        execution.modes.taskFinished(execution.callOf(error.node), {}, [], execution.nowIso());
      }
      return { status: 'error', error: { error: error.kind, message: error.message } };
    }
    throw error;
  }
}

class Execution {
  private readonly run: RunRow;
  private readonly graph: ScriptedGraph;
  private readonly threadId: string;
  /** The checkpoint the next step continues from; undefined on a thread without any. */
  private head: CheckpointRow | undefined;
  values: Values;
  /** Metadata every checkpoint of this run carries, besides its source, step and parents. */
  private readonly metadata: Values;
  private readonly interruptBefore: readonly string[] | '*';
  private readonly interruptAfter: readonly string[] | '*';
  private readonly recursionLimit: number;
  /** Steps this run has taken, `__start__` included. */
  private stepsTaken = 0;
  /** The values the thread's filter keys index (its latest checkpoint's when the run started). */
  private indexedValues: Values;
  /** The time of the latest checkpoint written since the thread was last indexed, if any. */
  private unindexed: string | undefined;
  /** The run's stream modes: each happening of the graph becomes the events they ask for. */
  readonly modes: StreamModes;

  constructor(private readonly context: GraphRun) {
    const { run, graph, threads } = context;
    this.run = run;
    this.graph = graph;
    this.threadId = run.thread_id;
    const config = run.kwargs.config as Values;
    const configurable = (config.configurable ?? {}) as Values;
    const forkFrom = typeof configurable.checkpoint_id === 'string' ? canonicalUuid(configurable.checkpoint_id) : undefined;
    // A run that starts again after a restart continues from where its first attempt got.
    const head =
      forkFrom && !this.wroteCheckpoints() ? threads.checkpoint(this.threadId, forkFrom) : threads.latestCheckpoint(this.threadId);
    this.head = head;
    this.values = head ? { ...graph.defaults, ...head.values } : { ...graph.defaults };
    this.indexedValues = threads.latestCheckpoint(this.threadId)?.values ?? {};
    this.metadata = runCheckpointMetadata(run, configurable);
    this.interruptBefore = (run.kwargs.interrupt_before as string[] | '*' | undefined) ?? [];
    this.interruptAfter = (run.kwargs.interrupt_after as string[] | '*' | undefined) ?? [];
    this.recursionLimit = typeof config.recursion_limit === 'number' ? config.recursion_limit : DEFAULT_RECURSION_LIMIT;
    this.modes = new StreamModes(context.log, (run.kwargs.stream_mode as string[] | undefined) ?? ['values'], {
      runId: run.run_id,
      threadId: run.thread_id,
      attempt: run.attempt,
      // The graph's callbacks know the run's graph and assistant, on a stateless run too.
      metadata: {
        ...((config.metadata as Values | undefined) ?? {}),
        graph_id: configurable.graph_id,
        assistant_id: configurable.assistant_id,
      },
      temporary: run.kwargs.temporary === true,
      subgraphs: run.kwargs.subgraphs === true,
      configurable: Object.fromEntries(Object.entries(configurable).filter(([key]) => !key.startsWith('__'))),
      recursionLimit: this.recursionLimit,
    });
  }

  private wroteCheckpoints(): boolean {
    return this.context.run.attempt > 1 && this.context.threads.hasCheckpointOfRun(this.context.run.thread_id, this.context.run.run_id);
  }

  async execute(): Promise<void> {
    const { kwargs } = this.run;
    const retried = this.wroteCheckpoints();
    const command = (kwargs.command ?? undefined) as RunCommand | undefined;
    const input = kwargs.input as Values | null | undefined;
    const resumed = command !== undefined && Object.hasOwn(command, 'resume');
    const resume = resumed ? command.resume : undefined;
    // Whether the run goes on from where the thread stopped (no input of its own): then the node
    // it stopped before is not a breakpoint again.
    let continuing = true;
    this.modes.runStarted(input ?? null, command as Values | undefined);
    if (command) {
      if ((command.update != null || command.goto !== undefined) && !retried) {
        this.writeCommand(command);
        continuing = resumed;
      }
    } else if (input != null && !retried) {
      this.writeInput(input);
      continuing = false;
    }
    // A run that applied no input of its own streams the state it goes on from first.
    if (continuing && this.head) this.modes.startedFrom(this.values, this.head);
    let first = true;
    while (this.head && this.head.next.length > 0) {
      const node = this.head.next[0]!;
      if (!(first && continuing) && matches(this.interruptBefore, node)) throw new Paused([]);
      // LangGraph's loop takes at most recursion_limit + 1 steps per run (`__start__` counts).
      if (this.stepsTaken > this.recursionLimit)
        throw new NodeError(
          'GraphRecursionError',
          `Recursion limit of ${this.recursionLimit} reached without hitting a stop condition. You can increase the limit by setting the "recursionLimit" config key.\n\nTroubleshooting URL: https://docs.langchain.com/oss/javascript/langgraph/GRAPH_RECURSION_LIMIT/\n`,
        );
      const call = this.callOf(node);
      this.modes.nodeStarted(call, this.values, this.nowIso());
      const written = await this.runNode(node, first ? resume : undefined, first && resumed);
      first = false;
      this.stepsTaken++;
      this.writeStep(call, written.values, written.cursor);
      // As in LangGraph, a node in interrupt_after stops the run after it, even as the last one.
      if (matches(this.interruptAfter, node)) throw new Paused([]);
    }
  }

  /** The input checkpoint (the state before the input) and the `__start__` step that applies it. */
  private writeInput(input: Values): void {
    const step = this.head ? stepOf(this.head) + 1 : -1;
    const start = pendingTask(START);
    this.commit({
      values: this.values,
      next: [START],
      tasks: [start],
      metadata: { ...this.metadata, source: 'input', step, parents: {} },
    });
    this.stepsTaken = 1;
    this.writeStep(this.callOf(START), input, undefined);
  }

  /** What a write of the input or of a command's update changes: the graph's state keys only, as LangGraph maps them to its channels. */
  private ofState(written: Values): Values {
    return Object.fromEntries(Object.entries(written).filter(([key]) => Object.hasOwn(this.graph.defaults, key)));
  }

  /** Runs one node: what it writes, and where the reply cursor goes when it completes. */
  private async runNode(node: string, resume: unknown, resumed: boolean): Promise<{ values: Values; cursor?: number }> {
    if (node === TOOLS) {
      const calls = pendingToolCalls(this.values);
      // ToolMessages as LangChain writes them. Their IDs are the messages reducer's, except while
      // a messages mode streams them: LangGraph's stream handler names each first, by the tools
      // node's run ID and the call's, and the state keeps that name.
      const nodeRunId = newRunId();
      const messages = calls.map((call) => ({
        type: 'tool',
        content: this.graph.toolAnswer(call.name),
        tool_call_id: call.id,
        name: call.name,
        status: 'success',
        additional_kwargs: {},
        response_metadata: {},
        id: this.modes.namesToolMessages ? `run-${nodeRunId}-tool-${call.id}` : newId(),
      }));
      for (const [i, call] of calls.entries()) this.modes.toolCalled(this.callOf(TOOLS), call, withoutId(messages[i]!));
      this.modes.nodeMessages(this.callOf(TOOLS), messages);
      return { values: { messages } };
    }
    if (node !== AGENT) return { values: {} };
    const input = lastHumanText(this.values);
    const call = this.callOf(AGENT);
    // The model call's run ID, which names its reply (`run-<id>`), as LangChain's callbacks do.
    const modelRunId = newRunId();
    this.modes.modelStarted(call, modelRunId, this.values);
    const cursor = this.context.runs.replyCursor(this.threadId);
    const choice = this.graph.chooseReply(cursor, { input, state: this.values, resume: resumed ? resume : undefined });
    if (!choice)
      throw new NodeError(
        'Error',
        `No scripted reply of graph "${this.graph.id}" matches the last human message ${JSON.stringify(input)}`,
        AGENT,
      );
    const { entry, nextCursor } = choice;
    if (entry.error !== undefined) {
      this.moveCursor(nextCursor);
      throw new NodeError('Error', entry.error, AGENT);
    }
    if (entry.interrupt !== undefined && !resumed) {
      const interrupts = [this.recordInterrupt(entry.interrupt)];
      this.modes.taskFinished(this.callOf(AGENT), {}, interrupts, this.nowIso());
      throw new Paused(interrupts);
    }
    const message = this.reply(entry, input, resume, modelRunId);
    await this.stream(message);
    this.modes.modelEnded(call, modelRunId, message, this.values);
    return { values: { messages: [message], ...(entry.update ?? {}) }, cursor: nextCursor };
  }

  /** Where `node` runs now: the step after the head, and the head's task for it. */
  callOf(node: string): NodeCall {
    const head = this.head;
    return { node, step: head ? stepOf(head) + 1 : 0, taskId: head?.tasks.find((task) => task.name === node)?.id ?? '' };
  }

  /**
   * The reply's text cut in chunks, each streamed to whoever reads them, with the graph's pause
   * before each (a cancelled run stops there). The last chunk carries the tool calls, as a chat
   * model's stream ends with them.
   */
  private async stream(message: Values): Promise<void> {
    const { delayMs, chunk } = this.graph.streaming;
    if (delayMs === 0 && !this.modes.wantsChunks) return;
    if (delayMs > 0) this.flushIndex();
    const texts = chunksOf(message.content as string, chunk);
    if (texts.length === 0) texts.push('');
    const call = this.callOf(AGENT);
    for (const [i, text] of texts.entries()) {
      if (delayMs > 0) await pause(delayMs, this.context.signal);
      const last = i === texts.length - 1;
      this.modes.modelChunk(call, {
        content: text,
        tool_calls: last ? message.tool_calls : [],
        invalid_tool_calls: [],
        tool_call_chunks: last ? message.tool_call_chunks : [],
        additional_kwargs: {},
        response_metadata: {},
        id: message.id,
        type: 'ai',
      });
    }
  }

  /**
   * The AI message node `agent` writes for a reply (with the reply's `update`). LangGraph's
   * server calls models with streaming callbacks, so the message it stores is the concatenated
   * stream (`AIMessageChunk`): its ID is `run-` and the model call's run ID, and it keeps the
   * tool calls' `tool_call_chunks`, whether the run was streamed or not.
   */
  private reply(entry: ReplyEntry, input: string, resume: unknown, modelRunId: string): Values {
    const calls = (entry.tool_calls ?? []).map((call) => ({
      name: call.name,
      args: call.args ?? {},
      id: call.id ?? newId(),
      type: 'tool_call',
    }));
    const message: Values = {
      type: 'ai',
      id: `run-${modelRunId}`,
      content: renderReplyText(entry.text ?? '', { input, resume }),
      tool_call_chunks: calls.map((call, index) => ({
        name: call.name,
        args: JSON.stringify(call.args),
        id: call.id,
        index,
        type: 'tool_call_chunk',
      })),
      tool_calls: calls,
      invalid_tool_calls: [],
      additional_kwargs: {},
      response_metadata: {},
    };
    return message;
  }

  /**
   * A command's `update` and `goto`, as LangGraph takes a Command for input: one `input` checkpoint
   * with the update applied, whose `next` is the nodes `goto` names (else what the thread had
   * next); the graph goes on from there.
   */
  private writeCommand(command: RunCommand): void {
    const update =
      command.update == null
        ? {}
        : Array.isArray(command.update)
          ? Object.fromEntries(command.update as [string, unknown][])
          : (command.update as Values);
    this.values = applyValues(this.values, this.ofState(update));
    const next =
      command.goto === undefined
        ? (this.head?.next ?? [])
        : [command.goto]
            .flat()
            .map((target) => (typeof target === 'string' ? target : target.node))
            .filter((node) => GRAPH_NODES.includes(node));
    this.commit({
      values: this.values,
      next,
      tasks: next.map(pendingTask),
      metadata: { ...this.metadata, source: 'input', step: this.head ? stepOf(this.head) + 1 : -1, parents: {} },
    });
  }

  /** Commits the checkpoint after `node` wrote `written`: the head's task records the write, the cursor moves. */
  private writeStep(call: NodeCall, written: Values, cursor: number | undefined, source: 'loop' | 'update' = 'loop'): void {
    const { node } = call;
    const before = this.values;
    this.values = applyValues(this.values, this.ofState(written));
    const next = nextAfter(node, this.values);
    const head = this.head;
    this.commit(
      {
        values: this.values,
        next,
        tasks: next.map(pendingTask),
        metadata: { ...this.metadata, source, step: head ? stepOf(head) + 1 : -1, parents: {} },
      },
      () => {
        if (head)
          this.context.threads.setCheckpointTasks(this.threadId, head.checkpoint_id, withResult(head.tasks, node, recorded(node, written)));
        if (cursor !== undefined) this.context.runs.setReplyCursor(this.threadId, cursor);
      },
      false,
    );
    this.modes.stepWritten(call, written, before, this.values, next, this.head!);
  }

  /** Writes a checkpoint after the head (and whatever else belongs to its step), all or nothing. */
  private commit(planned: PlannedCheckpoint, alsoWrite?: () => void, streamed = true): void {
    this.assertLive();
    const { threads } = this.context;
    const id = newCheckpointId();
    const created = new Date(this.context.now()).toISOString();
    threads.transaction(() => {
      alsoWrite?.();
      threads.addCheckpoint(
        this.threadId,
        this.head?.checkpoint_id ?? null,
        { id, created_at: created, planned },
        created,
        this.head?.values,
        { index: false },
      );
    });
    this.unindexed = created;
    this.head = {
      thread_id: this.threadId,
      checkpoint_id: id,
      parent_checkpoint_id: this.head?.checkpoint_id ?? null,
      created_at: created,
      metadata: planned.metadata,
      values: planned.values,
      next: planned.next,
      tasks: planned.tasks,
    };
    // A step's checkpoint is streamed with the rest of the step's events (writeStep).
    if (streamed) this.modes.checkpointWritten(this.head);
  }

  nowIso(): string {
    return new Date(this.context.now()).toISOString();
  }

  private moveCursor(cursor: number): void {
    this.assertLive();
    this.context.runs.transaction(() => this.context.runs.setReplyCursor(this.threadId, cursor));
  }

  /** Records an interrupt on the head's task of node `agent`: the thread waits there. */
  private recordInterrupt(value: unknown): Interrupt {
    const interrupt: Interrupt = { value, id: newId().replaceAll('-', '') };
    this.updateHeadTask(AGENT, (task) => ({ ...task, interrupts: [interrupt] }));
    return interrupt;
  }

  /** Records a node's error on the head's task (a run that failed leaves it in the state's tasks). */
  recordTaskError(node: string, message: string): void {
    if (this.context.signal.aborted) return;
    this.updateHeadTask(node, (task) => ({ ...task, error: message }));
  }

  private updateHeadTask(node: string, change: (task: ThreadTask) => ThreadTask): void {
    const head = this.head;
    if (!head) return;
    this.assertLive();
    const tasks = head.tasks.map((task) => (task.name === node ? change(task) : task));
    this.context.threads.transaction(() => this.context.threads.setCheckpointTasks(this.threadId, head.checkpoint_id, tasks));
    this.head = { ...head, tasks };
  }

  /**
   * Indexes the thread's values as of its latest checkpoint, once for all the steps written since
   * the last time: before the run pauses (other requests may then search the thread by its
   * values) and when it ends. Steps written in one turn are seen by no request in between.
   */
  flushIndex(): void {
    const stateUpdatedAt = this.unindexed;
    if (stateUpdatedAt === undefined || this.context.signal.aborted) return;
    const { threads } = this.context;
    threads.transaction(() => threads.indexValues(this.threadId, this.indexedValues, this.values, stateUpdatedAt, stateUpdatedAt));
    this.indexedValues = this.values;
    this.unindexed = undefined;
  }

  /** A cancelled run (or one whose thread was deleted) writes nothing more. */
  private assertLive(): void {
    if (this.context.signal.aborted) throw this.context.signal.reason ?? new Error('cancelled');
  }
}

/** The metadata LangGraph's server adds to every checkpoint of a run: its configurable keys, its metadata, the attempt. */
function runCheckpointMetadata(run: RunRow, configurable: Values): Values {
  const hidden = new Set(['checkpoint_id', 'checkpoint_ns', 'checkpoint_map', 'run_id', 'thread_id']);
  const visible = Object.fromEntries(Object.entries(configurable).filter(([key]) => !key.startsWith('__') && !hidden.has(key)));
  const metadata = ((run.kwargs.config as Values).metadata as Values | undefined) ?? {};
  return { ...visible, ...platformMetadata({ runId: run.run_id, threadId: run.thread_id, attempt: run.attempt, metadata }) };
}

function withoutId({ id: _id, ...message }: Values): Values {
  return message;
}

/**
 * What a node's task records that it wrote, as LangGraph's pending writes keep it: the tool
 * answers without the IDs the messages reducer gives them afterwards.
 */
function recorded(node: string, written: Values): Values {
  if (node !== TOOLS || !Array.isArray(written.messages)) return written;
  return { ...written, messages: (written.messages as Values[]).map(withoutId) };
}

const stepOf = (checkpoint: CheckpointRow): number => (typeof checkpoint.metadata.step === 'number' ? checkpoint.metadata.step : -1);

/** The tasks of a checkpoint once `node` ran: its task records what it wrote. */
function withResult(tasks: ThreadTask[], node: string, written: Values): ThreadTask[] {
  // A task that raised an interrupt keeps it, and no result, once resumed: LangGraph records the
  // resumed node's writes under the resume, not under the interrupted task.
  return tasks.map((task) => (task.name === node && !task.interrupts?.length ? { ...task, result: written } : task));
}

/** Whether a breakpoint list names a node; `*` is every node of the graph (`__start__` is not one). */
const matches = (nodes: readonly string[] | '*', node: string): boolean =>
  nodes === '*' ? GRAPH_NODES.includes(node) : nodes.includes(node);

function lastHumanText(values: Values): string {
  const messages = Array.isArray(values.messages) ? (values.messages as Values[]) : [];
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.type === 'human') return messageText(messages[i]!.content);
  return '';
}

/** How a reply's text is cut for streaming: words (each with the space before it), characters, or whole. */
export function chunksOf(text: string, chunk: 'word' | 'char' | 'whole'): string[] {
  if (text === '') return [];
  if (chunk === 'whole') return [text];
  if (chunk === 'char') return [...text];
  return text.match(/\s*\S+|\s+$/g) ?? [text];
}

/** Waits `ms`, or rejects with the abort reason as soon as the run is cancelled. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
