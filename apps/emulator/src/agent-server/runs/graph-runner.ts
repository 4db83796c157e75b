// Executes one run of a scripted graph, writing each superstep's checkpoint as LangGraph's Pregel
// loop writes it:
//
// - With `input`, an `input` checkpoint first (step −1 on a thread without checkpoints, else one
//   more than the last): the state before the input, `next: ["__start__"]`. Then one `loop`
//   checkpoint per superstep: `__start__` applies the input, then the graph's nodes, until none is
//   left to run. `input: null` (or none) continues from the thread's checkpoint.
// - What runs next is the graph's script's: the ReAct shorthand's edges (agent, tools, agent...),
//   or the steps of the run's entry of `runs` (chosen once the input is applied, its position kept
//   on every checkpoint). Each task of a superstep runs its plan (task-runner.ts); the tasks of one
//   superstep run side by side, their writes applied together in plan order.
// - Every checkpoint's `tasks` are the nodes of `next`; once a task has run, its checkpoint's task
//   records what it wrote (`result`), as LangGraph's pending writes show it in the history.
// - A subgraph node runs its own steps in its own namespace, with its own checkpoints
//   (threads/subgraph-checkpoints.ts), and returns its final state to its graph.
// - A task that interrupts leaves no checkpoint: its task in the latest one records the
//   interrupt, and `command.resume` runs the node again with the resume value (resume-answers.ts:
//   one value for every waiting task, or answers by interrupt ID; with `strict_resume`, a resume
//   that does not match the interrupts waiting fails the run before it writes anything). A task
//   that raises records its error on its task. `interrupt_before`/`interrupt_after` stop the run before or after
//   the named nodes, with the thread waiting there.
// - A superstep is committed, checkpoint and reply cursor together, before the next one begins; a
//   cancelled run stops at its next pause and writes nothing more.
import type { Interrupt, RunCommand, RunError, ThreadTask } from '@agentplane/agent-server';
import { canonicalUuid, newCheckpointId, newId } from '../../shared/ids.js';
import type { Channels } from '../graphs/channels.js';
import { START } from '../graphs/graph-shape.js';
import type { StepPlan, TaskPlan } from '../graphs/graph-types.js';
import { reactNextAfter } from '../graphs/react-agent.js';
import { configFromDefaults, contextFromDefaults } from '../graphs/run-requests.js';
import type { ScriptPosition } from '../graphs/run-scripts.js';
import type { ScriptedGraph } from '../graphs/scripted-graph.js';
import { lastHumanText } from '../graphs/templates.js';
import type { SubgraphCheckpoints } from '../threads/subgraph-checkpoints.js';
import type { PlannedCheckpoint } from '../threads/supersteps.js';
import { pendingTask } from '../threads/supersteps.js';
import type { CheckpointRow, ThreadStore } from '../threads/thread-store.js';
import { EndOrder } from './end-order.js';
import { platformMetadata } from './platform-metadata.js';
import type { ResumeAnswers } from './resume-answers.js';
import { resumeAnswersOf, strictResumeRefusal, waitingInterruptIds } from './resume-answers.js';
import type { RunEventLog } from './run-events.js';
import type { RunObserver } from './run-observer.js';
import type { RunRow, RunStore } from './run-store.js';
import type { NodeCall } from './stream-modes.js';
import { namespaceOf, StreamModes, taskMetadata } from './stream-modes.js';
import type { TaskResult, TaskStore } from './task-runner.js';
import { NodeError, runTask, TaskInterrupt } from './task-runner.js';

type Values = Record<string, unknown>;

/**
 * How a run's graph ended: its final values (and the interrupts it waits at), or its error
 * (`refused`: strict resume refused its resume, and it ran nothing).
 */
export type RunOutcome =
  | { status: 'success'; values: Values; interrupts?: Interrupt[] }
  | { status: 'error'; error: RunError; refused?: true };

export interface GraphRun {
  run: RunRow;
  graph: ScriptedGraph;
  threads: ThreadStore;
  subgraphCheckpoints: SubgraphCheckpoints;
  runs: RunStore;
  log: RunEventLog;
  /** Aborted when the run is cancelled: it writes nothing more. */
  signal: AbortSignal;
  now: () => number;
  /** Every pause of the graph (a node's work, a chunk's delay) lasts this many times its scripted length. */
  timeScale: number;
  /** The store, for steps that read or write it. */
  store: TaskStore;
  /** Told everything the run does, whatever it streams (the protocol's events). */
  observer?: RunObserver | undefined;
}

/** The run stops here: the thread waits at an interrupt or a breakpoint. */
class Paused {
  constructor(readonly interrupts: Interrupt[]) {}
}

/** Strict resume refused the run's resume: the run fails with this error, having done nothing. */
class ResumeRefused {
  constructor(readonly error: RunError) {}
}

const DEFAULT_RECURSION_LIMIT = 25;

export async function runScriptedGraph(context: GraphRun): Promise<RunOutcome> {
  const execution = new Execution(context);
  try {
    return await outcomeOf(execution);
  } finally {
    execution.touchThread();
  }
}

async function outcomeOf(execution: Execution): Promise<RunOutcome> {
  try {
    await execution.execute();
    execution.modes.runEnded(execution.root.values);
    return { status: 'success', values: execution.root.values };
  } catch (error) {
    if (error instanceof Paused || error instanceof TaskInterruptFrom) {
      execution.modes.runEnded(execution.root.values);
      return { status: 'success', values: execution.root.values, interrupts: error.interrupts };
    }
    if (error instanceof NodeError) return { status: 'error', error: { error: error.kind, message: error.message } };
    if (error instanceof ResumeRefused) return { status: 'error', error: error.error, refused: true };
    throw error;
  }
}

/**
 * One graph's level of a run: the root graph, or a subgraph node's graph in its namespace. It has
 * its own checkpoints, values, steps and script position; the run's execution drives them all.
 */
interface Frame {
  /** The namespace of the graph ([] at the root). */
  ns: string[];
  /** The checkpoints a subgraph's run under, by namespace ('' the root's); none at the root. */
  parents: Record<string, string>;
  channels: Channels;
  /** The checkpoint the next superstep continues from; undefined before the first. */
  head: CheckpointRow | undefined;
  values: Values;
  /** Where the graph's script stands (graphs of any shape). */
  position: ScriptPosition | undefined;
  /** The tasks of the superstep at the head, by the script; a node it has no plan for is missing. */
  plansAt(nodes: readonly string[]): (TaskPlan | undefined)[];
  /** What runs after a superstep of `plans` left `values`, and the position then. */
  after(plans: readonly TaskPlan[], values: Values): { next: string[]; position: ScriptPosition | undefined };
  /** Whether a router runs after `node` (its edges are conditional). */
  routesAfter(node: string): boolean;
  /** Whether `node` is a subgraph node (its pending tasks point at the subgraph's checkpoints). */
  isSubgraph(node: string): boolean;
  /** Writes a checkpoint after the head, with what else belongs to its step, all or nothing. */
  commit(planned: PlannedCheckpoint, alsoWrite?: () => void): CheckpointRow;
  /**
   * Replaces the head's tasks (a result, an interrupt, an error recorded); `reorder` lists its
   * `next` in the tasks' order too (the order they ended, as LangGraph's state lists them then).
   */
  setHeadTasks(tasks: ThreadTask[], reorder?: boolean): void;
  /** Keeps the resume values a task waiting at a later interrupt was given. */
  setHeadScript(script: ScriptPosition): void;
  /** The metadata of a checkpoint this graph writes. */
  metadataOf(source: 'input' | 'loop', step: number): PlannedCheckpoint['metadata'];
}

export class Execution {
  private readonly run: RunRow;
  private readonly graph: ScriptedGraph;
  private readonly threadId: string;
  readonly root: Frame;
  /** Metadata every checkpoint of this run carries, besides its source, step and parents. */
  private readonly metadata: Values;
  private readonly interruptBefore: readonly string[] | '*';
  private readonly interruptAfter: readonly string[] | '*';
  private readonly recursionLimit: number;
  /** Steps this run has taken, `__start__` included. */
  private stepsTaken = 0;
  /** The time of the latest checkpoint written since the thread's row was last touched, if any. */
  private untouched: string | undefined;
  /** The run's stream modes: each happening of the graph becomes the events they ask for. */
  readonly modes: StreamModes;
  /** What the run's command resumes the tasks waiting at an interrupt with. */
  private resume: ResumeAnswers | undefined;
  /**
   * Where a hold of this run's request was cancelled (-1: before it wrote anything), and the hold
   * that went on from there: the run waits there to see whether it is cancelled too.
   */
  private goesOn: { at: number; as: number } | undefined;

  constructor(private readonly context: GraphRun) {
    const { run, graph, threads } = context;
    this.run = run;
    this.graph = graph;
    this.threadId = run.thread_id;
    const config = run.kwargs.config as Values;
    const configurable = (config.configurable ?? {}) as Values;
    const forkFrom = typeof configurable.checkpoint_id === 'string' ? canonicalUuid(configurable.checkpoint_id) : undefined;
    // A run that starts again after a restart continues from where its first attempt got.
    const latest = threads.latestCheckpoint(this.threadId);
    const head = forkFrom && !this.wroteCheckpoints() ? threads.checkpoint(this.threadId, forkFrom) : latest;
    this.root = this.rootFrame(head);
    this.metadata = runCheckpointMetadata(run, configurable);
    this.interruptBefore = (run.kwargs.interrupt_before as string[] | '*' | undefined) ?? [];
    this.interruptAfter = (run.kwargs.interrupt_after as string[] | '*' | undefined) ?? [];
    this.recursionLimit = typeof config.recursion_limit === 'number' ? config.recursion_limit : DEFAULT_RECURSION_LIMIT;
    this.modes = new StreamModes(
      context.log,
      (run.kwargs.stream_mode as string[] | undefined) ?? ['values'],
      {
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
        tags: Array.isArray(config.tags) ? (config.tags as string[]) : [],
      },
      context.observer,
    );
  }

  private wroteCheckpoints(): boolean {
    return this.context.run.attempt > 1 && this.context.threads.hasCheckpointOfRun(this.context.run.thread_id, this.context.run.run_id);
  }

  async execute(): Promise<void> {
    const { kwargs } = this.run;
    const retried = this.wroteCheckpoints();
    const command = (kwargs.command ?? undefined) as RunCommand | undefined;
    const input = kwargs.input as Values | null | undefined;
    this.resume = resumeAnswersOf(command);
    const resumed = this.resume !== undefined;
    if (kwargs.strict_resume === true && !retried) {
      const refusal = strictResumeRefusal(command, waitingInterruptIds(this.root.head?.tasks ?? []));
      if (refusal) throw new ResumeRefused(refusal);
    }
    // Whether the run goes on from where the thread stopped (no input of its own): then the node
    // it stopped before is not a breakpoint again.
    let continuing = true;
    this.modes.runStarted(input ?? null, command as Values | undefined);
    const root = this.root;
    // A graph of any shape: the entry of its runs that answers this request (a run started again
    // after a restart goes on where its first attempt got).
    const choice = this.graph.runs && !retried ? this.chooseEntry(command, input) : undefined;
    if (choice && 'waitsFirst' in choice) await this.untilCancelled();
    if (choice && 'goesOnAs' in choice) this.goesOn = { at: choice.unlessCancelledAt!, as: choice.goesOnAs! };
    if (this.goesOn?.at === -1) await this.untilCancelledOrAwaited();
    const refusal = choice && 'refusal' in choice ? new NodeError('Error', choice.refusal, false) : undefined;
    if (choice && 'position' in choice && choice.position) root.position = choice.position;
    if (command) {
      if ((command.update != null || command.goto !== undefined) && !retried) {
        this.writeCommand(command);
        continuing = resumed;
      }
    } else if (input != null && !retried) {
      this.writeInput(input, choice && 'position' in choice ? choice : undefined, refusal);
      continuing = false;
    }
    if (refusal) throw refusal;
    // A run that applied no input of its own streams the state it goes on from first.
    if (continuing && root.head) this.modes.startedFrom(root.values, root.head);
    let first = true;
    const compiled = this.graph.breakpointsOf();
    while (root.head && root.head.next.length > 0) {
      // LangGraph's loop counts its steps before it prepares the next (or stops at a breakpoint).
      this.checkRecursionLimit();
      if (this.goesOn && root.position?.step === this.goesOn.at) await this.untilCancelledOrAwaited();
      // The run's entry ends here with nodes left (it stopped at a breakpoint, or was cancelled): so does the run.
      const entry = this.graph.runs?.entryAt(root.position);
      if (entry && this.graph.runs!.isPastSteps(root.position!) && (entry.next !== undefined || entry.untilCancelled)) {
        if (entry.untilCancelled) await this.untilCancelled();
        this.breakpoint();
      }
      const nodes = root.head.next;
      const stopsBefore = nodes.some((node) => matches(this.interruptBefore, node, this.graph) || compiled.before.includes(node));
      if (!(first && continuing) && stopsBefore) this.breakpoint();
      await this.superstep(root, nodes);
      first = false;
      this.stepsTaken++;
      // As in LangGraph, a node in interrupt_after stops the run after it, even as the last one.
      if (nodes.some((node) => matches(this.interruptAfter, node, this.graph) || compiled.after.includes(node))) this.breakpoint();
    }
    if (this.graph.runs?.entryAt(root.position)?.untilCancelled) await this.untilCancelled();
    // LangGraph's loop counts its steps before it looks for tasks: a run whose last step reached the limit fails all the same.
    this.checkRecursionLimit();
  }

  /** LangGraph's loop takes at most recursion_limit + 1 steps per run (`__start__` counts); the next one fails the run. */
  private checkRecursionLimit(): void {
    if (this.stepsTaken > this.recursionLimit)
      throw new NodeError(
        'GraphRecursionError',
        `Recursion limit of ${this.recursionLimit} reached without hitting a stop condition. You can increase the limit by setting the "recursionLimit" config key.\n\nTroubleshooting URL: https://docs.langchain.com/oss/javascript/langgraph/GRAPH_RECURSION_LIMIT/\n`,
        false,
      );
  }

  /**
   * The entry of a graph's runs that answers this run (run-scripts.ts): from where the thread
   * stands, by everything the run was asked. A run with input starts its entry; a resume, `input:
   * null` or a command takes the entry that goes on from there, or goes on in the one it stands
   * in. `waitsFirst`: the entry's run was cancelled before it wrote anything.
   */
  private chooseEntry(
    command: RunCommand | undefined,
    input: Values | null | undefined,
  ):
    | { position?: ScriptPosition; cursor?: number; unlessCancelledAt?: number; goesOnAs?: number }
    | { refusal: string }
    | { waitsFirst: true } {
    const scripts = this.graph.runs!;
    const root = this.root;
    const kind = command ? 'command' : input != null ? 'input' : 'go-on';
    // Nothing to go on from: the run does nothing, as LangGraph's does.
    if (kind !== 'input' && !root.head) return {};
    const { kwargs } = this.run;
    const assistant = this.graph.assistant;
    const applied = input != null ? root.channels.apply(root.values, root.channels.ofState(input)) : root.values;
    const from = root.head?.script;
    const choice = scripts.choose(
      {
        kind,
        input: input ?? undefined,
        text: lastHumanText(applied),
        command: command as Values | undefined,
        config: configFromDefaults(kwargs.config as Values, assistant.config),
        context: contextFromDefaults(kwargs.context, assistant.context),
        interruptBefore: kwargs.interrupt_before as string[] | '*' | undefined,
        interruptAfter: kwargs.interrupt_after as string[] | '*' | undefined,
        multitaskStrategy: this.run.multitask_strategy ?? 'reject',
        stateless: kwargs.stateless === true,
      },
      from,
      this.context.runs.replyCursor(this.threadId),
      this.context.log.awaitedNow,
    );
    if ('refusal' in choice) return choice;
    if (choice.inPlace) return {};
    const entry = scripts.scripts[choice.index]!;
    if (entry.untilCancelled && entry.steps.length === 0 && entry.next === undefined && choice.goesOnAs === undefined)
      return { waitsFirst: true };
    // A run that may go on as another hold starts as that one when it has nothing to write before the cut.
    const run = choice.unlessCancelledAt === -1 ? choice.goesOnAs! : choice.index;
    return {
      position: { run, step: 0, ...(from?.resumes ? { resumes: from.resumes } : {}) },
      cursor: choice.nextCursor,
      ...(choice.goesOnAs === undefined ? {} : { unlessCancelledAt: choice.unlessCancelledAt!, goesOnAs: choice.goesOnAs }),
    };
  }

  /**
   * Waits where a hold of this request was cancelled, until the run is cancelled too, or a client
   * waits for it (or queues a run behind it): then it goes on as the hold that went on.
   */
  private async untilCancelledOrAwaited(): Promise<void> {
    const goesOn = this.goesOn!;
    this.goesOn = undefined;
    this.touchThread();
    await Promise.race([pause(Number.POSITIVE_INFINITY, this.context.signal), this.context.log.whenAwaited()]);
    this.assertLive();
    // Not cancelled: from here the run is the hold that went on (its steps so far were the same).
    if (this.root.position) this.root.position = { ...this.root.position, run: goesOn.as };
  }

  /** Waits until the run is cancelled: its recording was cancelled here. */
  private untilCancelled(): Promise<never> {
    this.touchThread();
    return pause(Number.POSITIVE_INFINITY, this.context.signal) as Promise<never>;
  }

  /** The run stops at a breakpoint: the thread waits there, with no interrupt. */
  private breakpoint(): never {
    this.modes.interrupted([], []);
    throw new Paused([]);
  }

  /**
   * A subgraph stops at a breakpoint: it waits there, and its node in its graph with no interrupt
   * (LangGraph streams that at its graph's level only, not in the subgraph's namespace).
   */
  private subgraphBreakpoint(): never {
    throw new TaskInterruptFrom([]);
  }

  /**
   * The input checkpoint (the state before the input) and the `__start__` step that applies it,
   * going on with the entry chosen for it; a run no entry answers stops after its input checkpoint.
   */
  private writeInput(
    input: Values,
    chosen: { position?: ScriptPosition; cursor?: number } | undefined,
    refusal: NodeError | undefined,
  ): void {
    const root = this.root;
    const step = root.head ? stepOf(root.head) + 1 : -1;
    this.commitIn(root, { values: root.values, next: [START], tasks: [pendingTask(START)], metadata: root.metadataOf('input', step) });
    this.stepsTaken = 1;
    if (refusal) return;
    const values = root.channels.apply(root.values, root.channels.ofState(input));
    if (this.graph.isReactAgent) {
      this.writeStart(root, input, reactNextAfter(START, values), undefined);
      return;
    }
    const position = chosen?.position;
    this.writeStart(root, input, position ? this.graph.runs!.nodesAt(position) : [], position, chosen?.cursor);
  }

  /**
   * The `__start__` superstep of a graph: the input applied to its state, then `next`. A graph of
   * any shape goes on with the steps of the entry its input chose (`position`), and the thread's
   * cursor moves past that entry.
   */
  private writeStart(frame: Frame, input: Values, next: string[], position: ScriptPosition | undefined, cursor?: number): void {
    const call = this.callOf(frame, START);
    const values = frame.channels.apply(frame.values, frame.channels.ofState(input));
    const head = frame.head;
    this.commitIn(
      frame,
      {
        values,
        next,
        tasks: next.map((node) => this.pendingTaskOf(frame, node)),
        metadata: frame.metadataOf('loop', call.step),
        script: position,
      },
      () => {
        if (head) frame.setHeadTasks(withResults(head.tasks, new Map([[START, input]])));
        if (cursor !== undefined) this.context.runs.setReplyCursor(this.threadId, cursor);
      },
    );
    this.modes.stateWritten(frame.ns, frame.values, true, frame.head!);
    this.context.log.checkpointStreamed(frame.head!.checkpoint_id);
  }

  /**
   * A command's `update` and `goto`, as LangGraph takes a Command for input: one `input` checkpoint
   * with the update applied, whose `next` is the nodes `goto` names (else what the thread had
   * next); the graph goes on from there.
   */
  private writeCommand(command: RunCommand): void {
    const root = this.root;
    const update =
      command.update == null
        ? {}
        : Array.isArray(command.update)
          ? Object.fromEntries(command.update as [string, unknown][])
          : (command.update as Values);
    const values = root.channels.apply(root.values, root.channels.ofState(update));
    root.values = values;
    const next =
      command.goto === undefined
        ? (root.head?.next ?? [])
        : [command.goto]
            .flat()
            .map((target) => (typeof target === 'string' ? target : target.node))
            .filter((node) => this.graph.shape.has(node));
    this.commitIn(
      root,
      {
        values,
        next,
        tasks: next.map((node) => this.pendingTaskOf(root, node)),
        metadata: root.metadataOf('input', root.head ? stepOf(root.head) + 1 : -1),
        script: root.position,
      },
      undefined,
      false,
    );
    // LangGraph streams the state the command made before its checkpoint, whatever runs after it.
    this.modes.commandApplied(values, root.head!);
    this.context.log.checkpointStreamed(root.head!.checkpoint_id);
  }

  /** Runs the superstep of `nodes` at the frame's head, and commits its checkpoint. */
  private async superstep(frame: Frame, nodes: readonly string[]): Promise<void> {
    const head = frame.head!;
    const plans = frame.plansAt(nodes);
    const missing = nodes.find((_, i) => !plans[i]);
    if (missing !== undefined)
      throw new NodeError(
        'Error',
        frame.position && this.graph.runs?.isPastSteps(frame.position)
          ? `The steps of runs[${frame.position.run}] of graph "${this.graph.id}" end before node "${missing}", where the graph goes on (add a step for it, or stop the run there with next)`
          : `No scripted step of graph "${this.graph.id}" runs node "${missing}" here (the script has no step for it at this point of the run)`,
        false,
      );
    const tasks = plans as TaskPlan[];
    const calls = tasks.map((plan) => this.callOf(frame, plan.node));
    const { resumes, unanswered } = this.resumesOf(head);
    // Tasks that ran before the superstep was interrupted keep their writes and do not run again,
    // whether or not they had waited at an interrupt before.
    const ranBefore = new Map(head.tasks.filter((task) => task.result != null).map((task) => [task.name, task.result as Values]));
    for (const [i, plan] of tasks.entries()) if (!ranBefore.has(plan.node)) this.modes.nodeStarted(calls[i]!, frame.values, this.nowIso());
    const finished: string[] = [];
    const endOrder = new EndOrder(tasks.length);
    const settled = await Promise.allSettled(
      tasks.map(async (plan, i): Promise<TaskResult> => {
        const done = ranBefore.get(plan.node);
        if (done) {
          endOrder.end(i);
          return { written: done, recorded: done, output: done };
        }
        // A subgraph's time is in its own steps, not its node's pauses: it neither waits nor is waited for.
        if (plan.subgraph) endOrder.end(i);
        try {
          // A task alone in its step has nobody to end before: it skips the ordering's await.
          const ordered = plan.subgraph || tasks.length === 1 ? undefined : { endOrder, index: i };
          const result = await this.runTask(frame, plan, calls[i]!, resumes.get(calls[i]!.taskId) ?? [], ordered);
          finished.push(plan.node);
          return result;
        } finally {
          endOrder.end(i);
        }
      }),
    );
    this.assertLive();
    // A node that raised fails the run (the first, in plan order); one that interrupted pauses it.
    const failed = settled.findIndex((outcome) => outcome.status === 'rejected' && !(outcome.reason instanceof TaskInterrupt));
    if (failed >= 0) {
      const reason = (settled[failed] as PromiseRejectedResult).reason;
      if (!(reason instanceof NodeError)) throw reason;
      this.taskFailed(frame, calls[failed]!, reason);
      throw reason;
    }
    // A task no answer was given to stops at the same interrupt again, with the same ID.
    const interrupted = settled.flatMap((outcome, i) =>
      outcome.status === 'rejected'
        ? [{ i, interrupts: interruptsOf(outcome.reason as TaskInterrupt, unanswered.get(calls[i]!.taskId)) }]
        : [],
    );
    const results = settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : undefined));
    if (interrupted.length > 0) this.pauseAt(frame, calls, results, interrupted, resumes);
    const done = results as TaskResult[];
    // Writes are applied in the order of the tasks, whichever finished first.
    let values = frame.values;
    let wroteState = false;
    for (const result of done) {
      const state = frame.channels.ofState(result.written);
      if (Object.keys(state).length > 0) wroteState = true;
      values = frame.channels.apply(values, state);
    }
    const { next, position } = frame.after(tasks, values);
    const cursor = done.find((result) => result.cursor !== undefined)?.cursor;
    // The head's tasks record what each wrote, in the order they finished.
    const order = [...finished, ...tasks.map((plan) => plan.node).filter((node) => !finished.includes(node))];
    const recorded = new Map(order.map((node) => [node, done[tasks.findIndex((plan) => plan.node === node)]!.recorded]));
    this.commitIn(
      frame,
      {
        values,
        next,
        tasks: next.map((node) => this.pendingTaskOf(frame, node)),
        metadata: frame.metadataOf('loop', stepOf(head) + 1),
        script: position,
      },
      () => {
        frame.setHeadTasks(withResults(head.tasks, recorded), true);
        if (cursor !== undefined) this.context.runs.setReplyCursor(this.threadId, cursor);
        // What the step's tasks write to the store commits with its checkpoint.
        for (const result of done) result.storeWrites?.();
      },
    );
    frame.position = position;
    this.modes.stateWritten(frame.ns, values, wroteState, frame.head!);
    this.context.log.checkpointStreamed(frame.head!.checkpoint_id);
  }

  /**
   * Runs one task of a superstep, and tells the stream how it ended; `ordered`: its place among
   * the step's tasks, which end in the order of their scripted time (end-order.ts).
   */
  private async runTask(
    frame: Frame,
    plan: TaskPlan,
    call: NodeCall,
    resumes: readonly unknown[],
    ordered?: { endOrder: EndOrder; index: number },
  ): Promise<TaskResult> {
    const before = frame.values;
    const result = await runTask(plan, {
      graph: this.graph,
      modes: this.modes,
      call,
      state: before,
      resumes,
      replyCursor: () => this.context.runs.replyCursor(this.threadId),
      pause: (ms) => {
        ordered?.endOrder.pausing(ordered.index, ms * this.context.timeScale);
        return this.pause(ms);
      },
      scaled: (ms) => ms * this.context.timeScale,
      runSubgraph: (subgraphPlan) => this.runSubgraph(frame, call, subgraphPlan),
      nowIso: () => this.nowIso(),
      store: this.context.store,
    });
    const route = frame.routesAfter(plan.node) && !plan.goto ? this.routeOf(frame, plan, result, before) : undefined;
    if (ordered) {
      await ordered.endOrder.turnOf(ordered.index);
      this.assertLive();
    }
    this.modes.nodeEnded(call, result.written, before, result.output, route, this.nowIso());
    return result;
  }

  /** Where the router after a node sends the graph: the next superstep's nodes. */
  private routeOf(frame: Frame, plan: TaskPlan, result: TaskResult, before: Values): { to: string[]; state: Values } {
    const state = frame.channels.apply(before, frame.channels.ofState(result.written));
    return { to: frame.after([plan], state).next, state };
  }

  /**
   * A subgraph node's run: its own graph in its namespace, from its first step (an input
   * checkpoint, then `__start__` with the state the node reads) or, resumed, from its latest
   * checkpoint; what the node returns is its final state (the keys its parent's state has).
   */
  private async runSubgraph(parent: Frame, call: NodeCall, plan: TaskPlan): Promise<{ written: Values; output: Values }> {
    const ns = namespaceOf(call);
    const steps = plan.subgraph!;
    const channels = this.graph.channelsOf(plan.node);
    const latest = this.context.subgraphCheckpoints.latest(this.threadId, ns.join('|'));
    // The checkpoints it runs under: the root's, and each enclosing subgraph's, by namespace.
    const parents =
      parent.ns.length === 0
        ? { '': this.root.head!.checkpoint_id }
        : { ...parent.parents, [parent.ns.join('|')]: parent.head!.checkpoint_id };
    const frame = this.subgraphFrame(call, ns, steps, channels, latest, parents);
    const subgraphRunId = newId();
    const input = channels.ofState(parent.values);
    this.modes.subgraphStarted(call, subgraphRunId, parent.values, parents);
    this.modes.subgraphLifecycle(ns, 'started');
    try {
      // A subgraph that stopped (an interrupt, a breakpoint) goes on from its checkpoint, which it streams first.
      const continuing = latest !== undefined && latest.next.length > 0;
      if (continuing) this.modes.startedFrom(frame.values, latest, ns);
      else {
        this.commitIn(frame, { values: frame.values, next: [START], tasks: [pendingTask(START)], metadata: frame.metadataOf('input', -1) });
        this.writeStart(
          frame,
          input,
          (steps[0] ?? []).map((task) => task.node),
          { run: 0, step: 0 },
        );
      }
      // The breakpoints compiled into the subgraph stop it, and the run with it; a run that goes on passes the one it stopped at.
      const breakpoints = this.graph.breakpointsOf(plan.node);
      let first = true;
      while (frame.head && frame.head.next.length > 0) {
        const nodes = frame.head.next;
        if (!(first && continuing) && nodes.some((node) => breakpoints.before.includes(node))) this.subgraphBreakpoint();
        await this.superstep(frame, nodes);
        first = false;
        if (nodes.some((node) => breakpoints.after.includes(node))) this.subgraphBreakpoint();
      }
    } catch (error) {
      // How it ended, for `lifecycle`: stopped at an interrupt or a breakpoint, or a node raised.
      if (error instanceof TaskInterrupt) this.modes.subgraphLifecycle(ns, 'interrupted');
      else if (error instanceof NodeError) this.modes.subgraphLifecycle(ns, 'failed', { error: error.kind, message: error.message });
      throw error;
    }
    this.modes.subgraphLifecycle(ns, 'completed');
    this.modes.subgraphEnded(call, subgraphRunId, frame.values, parent.values);
    // The node writes what of the subgraph's state its graph has; its chain's output is the whole of it.
    return { written: parent.channels.ofState(frame.values), output: frame.values };
  }

  /**
   * The resume values of each task waiting at the head: those kept with it, and the run's answer
   * to its interrupt. `unanswered`: the tasks the run's answers by interrupt ID do not name, with
   * the interrupts they wait at (they stop there again).
   */
  private resumesOf(head: CheckpointRow): { resumes: Map<string, unknown[]>; unanswered: Map<string, Interrupt[]> } {
    const resumes = new Map<string, unknown[]>();
    const unanswered = new Map<string, Interrupt[]>();
    const resume = this.resume;
    if (!resume) return { resumes, unanswered };
    for (const task of head.tasks) {
      // A task that waited at an interrupt and has since finished waits for nothing.
      if (!task.interrupts?.length || task.result != null) continue;
      const kept = head.script?.resumes?.[task.id] ?? [];
      const named =
        resume.kind === 'by-interrupt' ? task.interrupts.find((one) => one.id !== undefined && resume.answers.has(one.id)) : undefined;
      if (resume.kind === 'one') resumes.set(task.id, [...kept, resume.value]);
      else if (named) resumes.set(task.id, [...kept, resume.answers.get(named.id!)]);
      else {
        resumes.set(task.id, kept);
        unanswered.set(task.id, task.interrupts);
      }
    }
    return { resumes, unanswered };
  }

  /**
   * Tasks of a superstep interrupted: each records what it waits at (the others their writes, kept
   * for the resume), the stream hears it at this graph's level, and the run stops.
   */
  private pauseAt(
    frame: Frame,
    calls: NodeCall[],
    results: (TaskResult | undefined)[],
    interrupted: { i: number; interrupts: Interrupt[] }[],
    resumes: Map<string, unknown[]>,
  ): never {
    const head = frame.head!;
    // A task no resume answered waits at the interrupt it waited at, under the same ID.
    const waited = new Map(head.tasks.map((task) => [task.id, task.interrupts ?? []]));
    const interrupts = new Map(
      interrupted.map(({ i, interrupts: raised }) => {
        const before = waited.get(calls[i]!.taskId) ?? [];
        return [calls[i]!.node, !resumes.has(calls[i]!.taskId) && before.length > 0 ? before : raised];
      }),
    );
    const all = [...interrupts.values()].flat();
    this.assertLive();
    this.context.threads.transaction(() => {
      const written = new Map(results.flatMap((result, i) => (result ? [[calls[i]!.node, result.recorded] as const] : [])));
      frame.setHeadTasks(
        head.tasks.map((task) =>
          interrupts.has(task.name)
            ? { ...task, interrupts: interrupts.get(task.name)! }
            : written.has(task.name)
              ? { ...task, result: written.get(task.name)! }
              : task,
        ),
      );
      const given = Object.fromEntries([...resumes].filter(([taskId]) => interrupted.some(({ i }) => calls[i]!.taskId === taskId)));
      if (Object.keys(given).length > 0 && frame.position) frame.setHeadScript({ ...frame.position, resumes: given });
    });
    this.modes.interrupted(frame.ns, all);
    // A task that stopped at an interrupt ends with it; one whose subgraph stopped at a breakpoint has not ended.
    for (const { i } of interrupted) {
      const raised = interrupts.get(calls[i]!.node)!;
      if (raised.length > 0) this.modes.taskStopped(calls[i]!, raised, this.nowIso());
    }
    throw new TaskInterruptFrom(all);
  }

  /** A task raised: its task records the error (a node's), and the stream hears it ended with no writes. */
  private taskFailed(frame: Frame, call: NodeCall, error: NodeError): void {
    if (error.cursor !== undefined) {
      const cursor = error.cursor;
      this.assertLive();
      this.context.runs.transaction(() => this.context.runs.setReplyCursor(this.threadId, cursor));
    }
    if (!error.ofNode || this.context.signal.aborted) return;
    const head = frame.head;
    if (head) {
      this.assertLive();
      this.context.threads.transaction(() =>
        frame.setHeadTasks(head.tasks.map((task) => (task.name === call.node ? { ...task, error: error.message } : task))),
      );
    }
    // Streamed as LangGraph does: the task ends with no writes, then the run's error event.
    this.modes.taskStopped(call, [], this.nowIso());
  }

  /** Where a node runs in a frame: the step after the head, and the head's task for it. */
  private callOf(frame: Frame, node: string): NodeCall {
    const head = frame.head;
    return {
      ns: frame.ns,
      node,
      step: head ? stepOf(head) + 1 : 0,
      taskId: head?.tasks.find((task) => task.name === node)?.id ?? '',
      runId: newId(),
    };
  }

  /** A pending task of `node`; a subgraph node's points at its checkpoints, as LangGraph's state shows it. */
  private pendingTaskOf(frame: Frame, node: string): ThreadTask {
    const task = pendingTask(node);
    if (!frame.isSubgraph(node)) return task;
    return {
      ...task,
      checkpoint: { thread_id: this.threadId, checkpoint_ns: [...frame.ns, `${node}:${task.id}`].join('|') } as ThreadTask['checkpoint'],
    };
  }

  /**
   * Commits a checkpoint in a frame and makes it the frame's head. An input checkpoint is streamed
   * here, unless the caller streams it (`streamInput` false: a command's, after its state); a
   * step's is streamed with its state by the caller (stateWritten), and the log told where it ends.
   */
  private commitIn(frame: Frame, planned: PlannedCheckpoint, alsoWrite?: () => void, streamInput = true): void {
    this.assertLive();
    const written = frame.commit(planned, alsoWrite);
    frame.head = written;
    frame.values = planned.values;
    if (planned.script) frame.position = planned.script;
    if (planned.metadata.source !== 'input' || !streamInput) return;
    this.modes.checkpointWritten(frame.ns, written);
    this.context.log.checkpointStreamed(written.checkpoint_id);
  }

  private rootFrame(head: CheckpointRow | undefined): Frame {
    const { threads } = this.context;
    const execution = this;
    const graph = this.graph;
    return {
      ns: [],
      parents: {},
      channels: graph.channels,
      head,
      values: head ? { ...graph.defaults, ...head.values } : { ...graph.defaults },
      position: head?.script,
      plansAt(nodes) {
        const position = graph.runs ? scriptPositionOf(graph, this.position, nodes) : undefined;
        if (position) this.position = position;
        return nodes.map((node) => graph.taskPlan(node, position));
      },
      after(plans, values) {
        if (graph.isReactAgent)
          return { next: [...new Set(plans.flatMap((plan) => reactNextAfter(plan.node, values)))], position: undefined };
        const position = this.position ? { run: this.position.run, step: this.position.step + 1 } : undefined;
        if (!position) return { next: [], position };
        // Past its entry's steps the run goes where its entry says it stopped, else where the routers send it.
        const ended = graph.runs!.isPastSteps(position) && graph.runs!.entryAt(position)!.next === undefined;
        const nodes = plans.map((plan) => plan.node);
        return { next: ended ? graph.nextAfterSteps(nodes, values) : graph.runs!.nodesAt(position), position };
      },
      routesAfter: (node) => graph.shape.routesAfter(node),
      isSubgraph: (node) => graph.shape.subgraphs.has(node),
      commit(planned, alsoWrite) {
        const id = newCheckpointId();
        const created = execution.nowIso();
        const parent = this.head;
        threads.transaction(() => {
          alsoWrite?.();
          threads.addCheckpoint(execution.threadId, parent, { id, created_at: created, planned }, created, { touch: false });
        });
        execution.untouched = created;
        return {
          thread_id: execution.threadId,
          checkpoint_id: id,
          parent_checkpoint_id: parent?.checkpoint_id ?? null,
          created_at: created,
          metadata: planned.metadata,
          values: planned.values,
          next: planned.next,
          tasks: planned.tasks,
          ...(planned.script ? { script: planned.script } : {}),
        };
      },
      setHeadTasks(tasks, reorder) {
        const head = this.head!;
        const next = reorder ? tasks.map((task) => task.name) : head.next;
        threads.setCheckpointTasks(execution.threadId, head.checkpoint_id, tasks, reorder ? next : undefined);
        this.head = { ...head, tasks, next };
      },
      setHeadScript(script) {
        const head = this.head!;
        threads.setCheckpointScript(execution.threadId, head.checkpoint_id, script);
        this.head = { ...head, script };
      },
      metadataOf: (source, step) => ({ ...execution.metadata, source, step, parents: {} }),
    };
  }

  private subgraphFrame(
    call: NodeCall,
    ns: string[],
    steps: readonly StepPlan[],
    channels: Channels,
    head: CheckpointRow | undefined,
    parents: Record<string, string>,
  ): Frame {
    const store = this.context.subgraphCheckpoints;
    const execution = this;
    const namespace = ns.join('|');
    const position = (step: number): ScriptPosition => ({ run: 0, step });
    return {
      ns,
      parents,
      channels,
      head,
      values: head ? { ...channels.defaults(), ...head.values } : channels.defaults(),
      position: head?.script ?? (head ? undefined : position(0)),
      plansAt(nodes) {
        const step = this.position?.step ?? 0;
        return nodes.map((node) => steps[step]?.find((task) => task.node === node));
      },
      after(_plans, _values) {
        const next = position((this.position?.step ?? 0) + 1);
        return { next: (steps[next.step] ?? []).map((task) => task.node), position: next };
      },
      routesAfter: (node) => execution.graph.shape.subgraphs.get(call.node)?.routesAfter(node) ?? false,
      isSubgraph: (node) => steps.some((step) => step.some((task) => task.node === node && task.subgraph !== undefined)),
      commit(planned, alsoWrite) {
        const row = {
          thread_id: execution.threadId,
          checkpoint_ns: namespace,
          checkpoint_id: newCheckpointId(),
          parent_checkpoint_id: this.head?.checkpoint_id ?? null,
          created_at: execution.nowIso(),
          metadata: planned.metadata,
          values: planned.values,
          next: planned.next,
          tasks: planned.tasks,
          ...(planned.script ? { script: planned.script } : {}),
        };
        store.transaction(() => {
          alsoWrite?.();
          store.add(row);
        });
        return row;
      },
      setHeadTasks(tasks, reorder) {
        const head = this.head!;
        const next = reorder ? tasks.map((task) => task.name) : head.next;
        store.setTasks(execution.threadId, namespace, head.checkpoint_id, tasks, next);
        this.head = { ...head, tasks, next };
      },
      setHeadScript(script) {
        const head = this.head!;
        store.setScript(execution.threadId, namespace, head.checkpoint_id, script);
        this.head = { ...head, script };
      },
      metadataOf: (source, step) => ({
        ...execution.metadata,
        checkpoint_map: parents,
        source,
        step,
        parents,
        ...taskMetadata(call, namespace),
      }),
    };
  }

  nowIso(): string {
    return new Date(this.context.now()).toISOString();
  }

  /** Waits `ms` scaled by the run's time scale, or rejects with the abort reason as soon as the run is cancelled. */
  private pause(ms: number): Promise<void> {
    const scaled = ms * this.context.timeScale;
    // Other requests may read or search the thread while the run waits.
    if (scaled > 0) this.touchThread();
    return pause(scaled, this.context.signal);
  }

  /**
   * Notes on the thread's row that its values changed (when, and that their filter keys are out of
   * date), once for all the steps written since the last time: before the run pauses (other
   * requests may then read the thread or search it) and when it ends. Steps written in one turn are
   * seen by no request in between.
   */
  touchThread(): void {
    const stateUpdatedAt = this.untouched;
    if (stateUpdatedAt === undefined || this.context.signal.aborted) return;
    const { threads } = this.context;
    threads.transaction(() => threads.valuesChanged(this.threadId, stateUpdatedAt, stateUpdatedAt));
    this.untouched = undefined;
  }

  /** A cancelled run (or one whose thread was deleted) writes nothing more. */
  private assertLive(): void {
    if (this.context.signal.aborted) throw this.context.signal.reason ?? new Error('cancelled');
  }
}

/** Tasks interrupted below the root pause the task of their subgraph node too: raised out of its subgraph as its own interrupt. */
class TaskInterruptFrom extends TaskInterrupt {
  constructor(readonly interrupts: Interrupt[]) {
    super(undefined);
  }
}

/**
 * What a task waits at: the interrupt it raised (its value and a 32-digit ID, as LangGraph records
 * it; the ID it had, when it stops again at an interrupt no answer was given to), or those of its
 * subgraph.
 */
function interruptsOf(raised: TaskInterrupt, waitedAt: Interrupt[] | undefined): Interrupt[] {
  if (raised instanceof TaskInterruptFrom) return raised.interrupts;
  return [{ value: raised.value, id: waitedAt?.[0]?.id ?? newId().replaceAll('-', '') }];
}

/**
 * Where a graph of any shape stands for a superstep of `nodes`: its position, when the step there
 * runs those nodes, else the first later step that does (a state update may have moved the graph
 * on); undefined when none does.
 */
function scriptPositionOf(
  graph: ScriptedGraph,
  position: ScriptPosition | undefined,
  nodes: readonly string[],
): ScriptPosition | undefined {
  if (!position) return undefined;
  const scripts = graph.runs!;
  const same = (at: ScriptPosition) => {
    const there = scripts.nodesAt(at);
    return there.length === nodes.length && nodes.every((node) => there.includes(node));
  };
  for (let step = position.step; scripts.step({ run: position.run, step }); step++) {
    const at = { ...position, step };
    if (same(at)) return at;
  }
  return undefined;
}

/** The metadata LangGraph's server adds to every checkpoint of a run: its configurable keys, its metadata, the attempt. */
function runCheckpointMetadata(run: RunRow, configurable: Values): Values {
  const hidden = new Set(['checkpoint_id', 'checkpoint_ns', 'checkpoint_map', 'run_id', 'thread_id']);
  const visible = Object.fromEntries(Object.entries(configurable).filter(([key]) => !key.startsWith('__') && !hidden.has(key)));
  const metadata = ((run.kwargs.config as Values).metadata as Values | undefined) ?? {};
  return { ...visible, ...platformMetadata({ runId: run.run_id, threadId: run.thread_id, attempt: run.attempt, metadata }) };
}

const stepOf = (checkpoint: CheckpointRow): number => (typeof checkpoint.metadata.step === 'number' ? checkpoint.metadata.step : -1);

/** The tasks of a checkpoint once their nodes ran: each records what it wrote, in the order given. */
function withResults(tasks: ThreadTask[], written: ReadonlyMap<string, Values | null>): ThreadTask[] {
  // A task that raised an interrupt keeps it, and no result, once resumed: LangGraph records the
  // resumed node's writes under the resume, not under the interrupted task.
  const recorded = tasks.map((task) =>
    written.has(task.name) && !task.interrupts?.length ? { ...task, result: written.get(task.name)! } : task,
  );
  const order = [...written.keys()];
  return recorded.sort((a, b) => rank(order, a.name) - rank(order, b.name));
}

const rank = (order: readonly string[], name: string) => {
  const at = order.indexOf(name);
  return at < 0 ? order.length : at;
};

/** Whether a breakpoint list names a node; `*` is every node of the graph (`__start__` is not one). */
const matches = (nodes: readonly string[] | '*', node: string, graph: ScriptedGraph): boolean =>
  nodes === '*' ? graph.shape.has(node) : nodes.includes(node);

/** Waits `ms`, or rejects with the abort reason as soon as the run is cancelled. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    // An endless pause (a run waiting to be cancelled) sets no timer.
    const timer = Number.isFinite(ms)
      ? setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        }, ms)
      : undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
