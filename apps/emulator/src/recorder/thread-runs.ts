// A thread's runs, read back one by one: each run the upstream made on the thread is a hold of one
// request (recording.ts makes entries of `runs` of them), with what decided it (its request, as the
// upstream's run kept it, and where the thread stood when it began) and how it ended (its steps,
// read by run-steps.ts; the nodes it stopped before; a cancel).
//
// - A run's checkpoints carry its ID; those of a state update carry none. Where the thread stood is
//   the checkpoint the run began from, or the nearest one before it that a run wrote: a state
//   update between two runs keeps the place the first left, as the replay's does.
// - A run the upstream cancelled (a client's cancel, a later run's `interrupt`) ends waiting to be
//   cancelled where it stopped; so does one a later run rolled back (the LangGraph JS server marks
//   it an error and keeps its checkpoints, where the contract deletes it: the run after it starts
//   where the rolled-back one began).
// - A run that stopped with nodes left, no interrupt and no error stopped at a breakpoint: its own
//   (its request's) or one compiled into the graph, which stops every run there.
// - What a router did is observed where one task's node wrote and the graph went on: the state
//   after it and the nodes that ran next (recording.ts reads routes from them).
import { configFromDefaults, contextFromDefaults, saysAllOf } from '../agent-server/graphs/run-requests.js';
import type { RecordedStep, StateObservations } from './run-steps.js';
import { isInputCheckpoint, stoppedStep, superstepOf } from './run-steps.js';
import { streamTimeline } from './stream-timeline.js';
import type { RunSighting } from './traffic.js';
import type { UpstreamRun, UpstreamState } from './upstream.js';

type Values = Record<string, unknown>;

/** What a run was asked, as an entry's `request` says it (graph-config.ts's RUN_REQUEST). */
export type RecordedRequest = Values;

/** An entry of a graph's `runs`, before recording.ts names it and says what it continues. */
export interface RecordedRun {
  match?: string;
  match_input?: string;
  request: RecordedRequest;
  steps: RecordedStep[];
  next?: string[];
  until_cancelled?: true;
}

/** One run of a thread: the request it answered and how, and the run whose place it began from. */
export interface RunHold {
  graphId: string;
  runId: string;
  run: RecordedRun;
  /** The run that left the thread where this one began (`step`: at a checkpoint before that run's step `step`); none where no run did. */
  from: { runId: string; step?: number } | undefined;
}

/** Where a router sent the graph: the node that wrote, the state after it, the nodes that ran next. */
export interface RouteObservation {
  node: string;
  values: Values;
  next: string[];
}

/** What a thread's history showed. */
export interface ThreadRecording extends StateObservations {
  holds: RunHold[];
  /** The values of the thread's first input checkpoint: the keys with defaults. */
  initialValues: { graphId: string; values: Values } | undefined;
  /** The breakpoints compiled into the graph: the nodes the graph (key '') or a subgraph node's graph stopped before, every run. */
  breakpoints: Map<string, Set<string>>;
  /** Where the graph's routers went, by graph. */
  routes: { graphId: string; observation: RouteObservation }[];
  /** What could not be recorded, one line each. */
  notes: string[];
  /** The runs of the thread the recording holds, by run ID. */
  recorded: Set<string>;
}

/** What was read of a thread: its root history, its subgraphs' by namespace, its runs. */
export interface ThreadCapture {
  root: UpstreamState[];
  subgraphs: ReadonlyMap<string, UpstreamState[]>;
  runs: readonly UpstreamRun[];
}

/** The default assistant of each graph, whose config and context every run has: a request says what it adds. */
export type AssistantDefaults = (graphId: string) => { config: Values; context: Values };

export function recordThread(
  threadId: string,
  capture: ThreadCapture,
  sightings: ReadonlyMap<string, RunSighting>,
  defaults: AssistantDefaults,
): ThreadRecording {
  const recording: ThreadRecording = {
    holds: [],
    transitions: [],
    subgraphStates: new Map(),
    initialValues: undefined,
    breakpoints: new Map(),
    routes: [],
    notes: [],
    recorded: new Set(),
  };
  const byId = new Map(capture.root.map((state) => [state.checkpoint.checkpoint_id, state]));
  const parentOf = (state: UpstreamState) => (state.parent_checkpoint ? byId.get(state.parent_checkpoint.checkpoint_id) : undefined);
  const checkpointsOf = new Map<string, UpstreamState[]>();
  for (const state of capture.root) {
    const runId = runOf(state);
    if (runId) checkpointsOf.set(runId, [...(checkpointsOf.get(runId) ?? []), state]);
  }
  const runs = runsInOrder(capture, sightings, threadId);
  const rolledBack = rolledBackRuns(runs, checkpointsOf);
  const holds = new Map<string, RunHold>();
  /** Where each run began: the hold it went on from, recursively past rolled-back runs. */
  const placeOf = (runId: string): RunHold['from'] => {
    const own = holds.get(runId);
    return own?.from;
  };
  for (const { runId, upstream, sighting } of runs) {
    const states = checkpointsOf.get(runId) ?? [];
    const graphId = String(states[0]?.metadata.graph_id ?? graphOf(upstream) ?? '');
    if (graphId === '') {
      recording.notes.push(`run ${runId} on thread ${threadId}: its graph is not known (the upstream kept nothing of it)`);
      continue;
    }
    const ended = upstream ? upstream.status !== 'pending' && upstream.status !== 'running' : states.length > 0;
    if (!ended) continue;
    const subgraphHistory = (namespace: string) => capture.subgraphs.get(namespace) ?? [];
    const reading = { subgraphHistory, timeline: sighting ? streamTimeline(sighting.events) : undefined, observations: recording };
    // Where it began: the checkpoint before its first, or (it wrote none) the latest before it was made.
    const began = states.length > 0 ? parentOf(states[0]!) : latestBefore(capture.root, upstream?.created_at);
    let from = placeFrom(began, parentOf, checkpointsOf, holds);
    if (from && rolledBack.has(from.runId)) from = placeOf(from.runId);
    const run: RecordedRun = { ...matchOf(upstream, sighting), request: requestOf(upstream, sighting, defaults(graphId)), steps: [] };
    const first = states[0];
    if (first && isInputCheckpoint(first) && first.metadata.source === 'input')
      recording.initialValues ??= { graphId, values: first.values };
    for (const state of states) {
      const before = parentOf(state);
      if (!before || state.metadata.source !== 'loop' || isInputCheckpoint(before)) continue;
      const step = superstepOf(before, state, reading);
      run.steps.push(step);
      // One task that went on by the graph's edges (not by a Command): where its router, if any, sent it.
      if (!('parallel' in step) && step.goto === undefined)
        recording.routes.push({ graphId, observation: { node: step.node, values: state.values, next: state.next } });
    }
    const last = states.at(-1);
    const cancelled = upstream?.status === 'interrupted' || rolledBack.has(runId);
    if (last && last.next.length > 0 && !isInputCheckpoint(last)) {
      const stopped = last.tasks.filter((task) => task.interrupts?.length || task.error);
      const insideSubgraph = stopped.length === 0 && last.tasks.some((task) => stoppedInside(task, runId, subgraphHistory));
      if (stopped.length > 0 || insideSubgraph) run.steps.push(stoppedStep(last, reading));
      if (insideSubgraph && !cancelled) compiledInSubgraph(last, runId, subgraphHistory, recording);
      // Stopped before nodes with nothing raised: at a breakpoint, by a cancel, or by the loop's own
      // error (a recursion limit, which the replay raises there itself, from the same config).
      if (stopped.length === 0 && !insideSubgraph) {
        run.next = [...last.next];
        const atBreakpoint = upstream === undefined || upstream.status === 'success';
        if (atBreakpoint && !cancelled && run.request.interrupt_before === undefined && run.request.interrupt_after === undefined)
          addBreakpoints(recording, '', last.next);
      }
    }
    if (cancelled) run.until_cancelled = true;
    const hold: RunHold = { graphId, runId, run, from };
    holds.set(runId, hold);
    recording.holds.push(hold);
    recording.recorded.add(runId);
  }
  // Update checkpoints show where a router goes after the node they were applied as.
  for (const state of capture.root)
    if (state.metadata.source === 'update') {
      const writes = Object.keys((state.metadata.writes as Values | null | undefined) ?? {});
      const graphId = String(state.metadata.graph_id ?? recording.holds[0]?.graphId ?? '');
      if (writes.length === 1 && graphId !== '')
        recording.routes.push({ graphId, observation: { node: writes[0]!, values: state.values, next: state.next } });
    }
  return recording;
}

/** The ID of the run that wrote a checkpoint; none for a state update's. */
function runOf(state: UpstreamState): string | undefined {
  const runId = state.metadata.run_id;
  return typeof runId === 'string' && state.metadata.source !== 'update' ? runId : undefined;
}

/** The thread's runs in the order they were made: those the upstream lists, and those only the traffic showed. */
function runsInOrder(
  capture: ThreadCapture,
  sightings: ReadonlyMap<string, RunSighting>,
  threadId: string,
): { runId: string; upstream: UpstreamRun | undefined; sighting: RunSighting | undefined }[] {
  const runs = new Map<string, { runId: string; upstream: UpstreamRun | undefined; sighting: RunSighting | undefined; at: string }>();
  for (const upstream of capture.runs)
    runs.set(upstream.run_id, { runId: upstream.run_id, upstream, sighting: sightings.get(upstream.run_id), at: upstream.created_at });
  // Runs whose checkpoints are there but which the upstream no longer lists.
  for (const state of capture.root) {
    const runId = runOf(state);
    if (runId && !runs.has(runId)) runs.set(runId, { runId, upstream: undefined, sighting: sightings.get(runId), at: state.created_at });
  }
  for (const [runId, sighting] of sightings)
    if (sighting.threadId === threadId && !runs.has(runId))
      runs.set(runId, { runId, upstream: undefined, sighting, at: new Date(sighting.startedAt).toISOString() });
  // IDs are time-ordered: they break a tie between runs made in the same millisecond.
  return [...runs.values()].sort((a, b) => (a.at === b.at ? (a.runId < b.runId ? -1 : 1) : a.at < b.at ? -1 : 1));
}

/**
 * Runs a later run rolled back: the run just before a run made with `rollback`, when it did not end
 * of itself (the LangGraph JS server marks it an error, with no error of a node; a cancelled one is
 * `interrupted`).
 */
function rolledBackRuns(
  runs: readonly { runId: string; upstream: UpstreamRun | undefined }[],
  checkpointsOf: ReadonlyMap<string, UpstreamState[]>,
): Set<string> {
  const rolledBack = new Set<string>();
  for (const [i, { upstream }] of runs.entries()) {
    if (i === 0 || upstream?.multitask_strategy !== 'rollback') continue;
    const before = runs[i - 1]!;
    const last = checkpointsOf.get(before.runId)?.at(-1);
    const raised = last?.tasks.some((task) => task.error);
    if (before.upstream?.status !== 'success' && !raised) rolledBack.add(before.runId);
  }
  return rolledBack;
}

/**
 * Where the thread stood at a checkpoint: the run that wrote it (or the nearest ancestor a run
 * wrote), and, when that run went further, the step of it the checkpoint comes before.
 */
function placeFrom(
  checkpoint: UpstreamState | undefined,
  parentOf: (state: UpstreamState) => UpstreamState | undefined,
  checkpointsOf: ReadonlyMap<string, UpstreamState[]>,
  holds: ReadonlyMap<string, RunHold>,
): RunHold['from'] {
  let at = checkpoint;
  while (at && runOf(at) === undefined) at = parentOf(at);
  // A run's input checkpoint keeps no place of its own (the replay writes it before it chooses an entry).
  if (!at || isInputCheckpoint(at)) return undefined;
  const runId = runOf(at)!;
  const hold = holds.get(runId);
  if (!hold) return undefined;
  const own = checkpointsOf.get(runId) ?? [];
  // The run's position after each of its steps: its `__start__` checkpoint is step 0, each later loop checkpoint one more.
  const loops = own.filter((state) => state.metadata.source === 'loop');
  const startsWithInput = own[0] !== undefined && isInputCheckpoint(own[0]);
  const index = loops.findIndex((state) => state.checkpoint.checkpoint_id === at.checkpoint.checkpoint_id);
  const step = index < 0 ? 0 : startsWithInput ? index : index + 1;
  return step >= hold.run.steps.length - 1 || index === loops.length - 1 ? { runId } : { runId, step };
}

/** The latest checkpoint written before a time (where a run that wrote nothing began). */
function latestBefore(states: readonly UpstreamState[], time: string | undefined): UpstreamState | undefined {
  if (time === undefined) return states.at(-1);
  return states.filter((state) => state.created_at <= time).at(-1);
}

function graphOf(upstream: UpstreamRun | undefined): string | undefined {
  const configurable = ((upstream?.kwargs.config as Values | undefined)?.configurable ?? {}) as Values;
  return typeof configurable.graph_id === 'string' ? configurable.graph_id : undefined;
}

/** How a run's entry is chosen by its input: the text of its last human message, else its input as JSON. */
function matchOf(upstream: UpstreamRun | undefined, sighting: RunSighting | undefined): { match?: string; match_input?: string } {
  const input = (upstream ? upstream.kwargs.input : sighting?.body?.input) as Values | null | undefined;
  if (input === null || input === undefined || typeof input !== 'object') return {};
  const messages = Array.isArray(input.messages) ? (input.messages as Values[]) : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.type === 'human' || message.role === 'user' || message.role === 'human') {
      const text = textOf(message.content);
      if (text !== '') return { match: text };
      break;
    }
  }
  return Object.keys(input).length === 0 ? {} : { match_input: JSON.stringify(input) };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => (block && typeof block === 'object' && typeof block.text === 'string' ? block.text : '')).join('');
}

/**
 * What decided a run, as the upstream kept it (its run's kwargs: config and context merged with its
 * assistant's), else as its request said it: each field only where it is not the default.
 */
function requestOf(
  upstream: UpstreamRun | undefined,
  sighting: RunSighting | undefined,
  defaults: { config: Values; context: Values },
): RecordedRequest {
  const kwargs = (upstream?.kwargs ?? sighting?.body ?? {}) as Values;
  const request: RecordedRequest = {};
  const input = kwargs.input as Values | null | undefined;
  // The input beyond what `match` says (anything but its one human message of text); `match_input` says all of an input without one.
  if (input && typeof input === 'object' && !saysAllOf(input) && matchOf(upstream, sighting).match_input === undefined)
    request.input = input;
  if (kwargs.command != null) request.command = kwargs.command;
  const config = configFromDefaults((kwargs.config ?? {}) as Values, defaults.config);
  if (Object.keys(config).length > 0) request.config = config;
  const context = contextFromDefaults(kwargs.context, defaults.context);
  if (Object.keys(context).length > 0) request.context = context;
  for (const key of ['interrupt_before', 'interrupt_after'] as const) {
    const nodes = kwargs[key] as string[] | '*' | undefined;
    if (nodes !== undefined && nodes.length > 0) request[key] = nodes;
  }
  const strategy = upstream?.multitask_strategy ?? (sighting?.body?.multitask_strategy as string | undefined);
  if (strategy && strategy !== 'reject') request.multitask_strategy = strategy;
  if (sighting?.stateless) request.stateless = true;
  return request;
}

/** Whether a task's subgraph stopped inside (at a breakpoint compiled into it) in this run. */
function stoppedInside(
  task: UpstreamState['tasks'][number],
  runId: string,
  subgraphHistory: (namespace: string) => UpstreamState[],
): boolean {
  const namespace = task.checkpoint?.checkpoint_ns;
  if (!namespace) return false;
  const stoppedAt = subgraphHistory(namespace)
    .filter((state) => state.metadata.run_id === runId)
    .at(-1);
  return stoppedAt !== undefined && stoppedAt.next.length > 0;
}

/** The breakpoint compiled into a subgraph node's graph that stopped a run inside it. */
function compiledInSubgraph(
  last: UpstreamState,
  runId: string,
  subgraphHistory: (namespace: string) => UpstreamState[],
  recording: ThreadRecording,
): void {
  for (const task of last.tasks) {
    const namespace = task.checkpoint?.checkpoint_ns;
    if (!namespace) continue;
    const stoppedAt = subgraphHistory(namespace)
      .filter((state) => state.metadata.run_id === runId)
      .at(-1);
    if (stoppedAt && stoppedAt.next.length > 0) addBreakpoints(recording, task.name, stoppedAt.next);
  }
}

function addBreakpoints(recording: ThreadRecording, graph: string, nodes: readonly string[]): void {
  recording.breakpoints.set(graph, new Set([...(recording.breakpoints.get(graph) ?? []), ...nodes]));
}
