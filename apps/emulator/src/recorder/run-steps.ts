// A run's supersteps, read back as the steps of the graphs config (graphs/graph-config.ts): what
// each superstep's tasks did, from the upstream's own history, with what its stream adds
// (stream-timeline.ts). thread-runs.ts says which checkpoints are a run's.
//
// - In the history each checkpoint's `tasks` are the superstep that follows it, each with what it
//   wrote (`result`), its error or its interrupts; the next checkpoint's values are the state
//   after. A task whose result the history does not keep (one that was interrupted and resumed, a
//   subgraph node) wrote what changed between the two; one that wrote nothing went where its
//   Command sent it (`goto`).
// - A model's reply (an AI message whose ID is a model call's, `run-...`) becomes a `message`,
//   cut in the chunks its stream showed; a ToolMessage answers a tool call as a tool node does
//   when the stream showed the tool run (`tools`), else as the plain write it was.
// - Custom events are placed in the task their time falls in; each task's time is the time between
//   its checkpoint and the one before, less the time its reply streamed.
// - A subgraph node's steps are read from the subgraph's own history, by its namespace: all of
//   them, whichever run took them, so that a run going on inside the subgraph finds its step there.
import type { StreamTimeline } from './stream-timeline.js';
import type { UpstreamState } from './upstream.js';

type Values = Record<string, unknown>;

/** A step's task as the config writes it (graph-config.ts's TASK), built up here. */
export interface RecordedTask {
  node: string;
  do?: Values[];
  message?: Values;
  tools?: string[];
  update?: Values;
  goto?: string | string[];
  interrupt?: unknown;
  error?: { name: string; message: string };
  subgraph?: RecordedStep[];
}
export type RecordedStep = RecordedTask | { parallel: RecordedTask[] };

/** A write to a key, and the key's value before and after it: what the key's reducer is read from. */
export interface Transition {
  /** The subgraph node whose state the key is of; undefined for the graph's own. */
  graph?: string | undefined;
  key: string;
  before: unknown;
  writes: unknown[];
  after: unknown;
}

/** What reading steps observes of the state, for the channels (recording.ts). */
export interface StateObservations {
  transitions: Transition[];
  /** Each subgraph node's state: its first input checkpoint's values, and every key its values had. */
  subgraphStates: Map<string, { initial: Values; keys: Set<string> }>;
}

/** What reading a run's supersteps needs: the subgraphs' histories, the run's stream, where observations go, and whose state it reads. */
export interface Reading {
  subgraphHistory: (namespace: string) => UpstreamState[];
  timeline: StreamTimeline | undefined;
  observations: StateObservations;
  /** The subgraph node whose steps these are; undefined at the graph's own level. */
  scope?: string | undefined;
}

export const START = '__start__';
const MODEL_MESSAGE_ID = /^run-[0-9a-f-]{36}$/;
const MADE_ID = /^(run-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(-tool-.*)?$/i;

/** Whether a checkpoint is the one an input starts from: the state before it, with `__start__` next. */
export const isInputCheckpoint = (state: UpstreamState): boolean => state.next.length === 1 && state.next[0] === START;

/** One superstep: the tasks of `before` that produced `after`, with what each wrote and how long it took. */
export function superstepOf(before: UpstreamState, after: UpstreamState, reading: Reading): RecordedStep {
  const { subgraphHistory, timeline } = reading;
  const tasks = before.tasks.filter((task) => task.name !== START);
  const elapsed = Math.max(0, Date.parse(after.created_at) - Date.parse(before.created_at));
  const writes = new Map<string, Values>();
  const timed = tasks.map((task) => {
    const namespace = task.checkpoint?.checkpoint_ns;
    // What the task wrote: its result, or (not kept for a resumed or subgraph task) what changed.
    const written = (task.result ?? (task.interrupts?.length || namespace ? changed(before.values, after.values) : undefined)) as
      | Values
      | undefined;
    if (written) writes.set(task.name, written);
    const built: RecordedTask = { node: task.name };
    if (task.interrupts?.length) built.interrupt = task.interrupts[0]!.value;
    if (namespace) {
      const inner = subgraphHistory(namespace);
      built.subgraph = inner.length > 0 ? innerSteps(inner, { ...reading, scope: task.name }) : undefined;
      if (!built.subgraph) delete built.subgraph;
    }
    // A node that wrote nothing, or whose stream showed it returned a Command, went where the Command sent it.
    const command = timeline?.commandOf(task.name);
    if (command || (!written && !namespace && !task.interrupts?.length)) {
      const to = command ?? after.next;
      built.goto = to.length === 0 ? '__end__' : to.length === 1 ? to[0]! : to;
    }
    if (written && !built.subgraph) describeWrites(built, written, timeline);
    // Each task's time as its stream showed it (asked for every task, so that a node's tasks stay in turn).
    const streamed = timeline?.taskTime(task.name);
    // A task that was interrupted and resumed: the time between its checkpoints is a person's, not its own.
    const own = task.interrupts?.length ? (streamed?.ms ?? 0) : tasks.length === 1 ? elapsed : (streamed?.ms ?? elapsed);
    return { built, ms: Math.round(own), endedAs: tasks.length > 1 ? streamed?.endedAs : undefined };
  });
  keepEndOrder(timed);
  const recorded = timed.map(({ built, ms }) => {
    timeTask(built, ms, timeline);
    return built;
  });
  for (const key of new Set([...writes.values()].flatMap((written) => Object.keys(written))))
    reading.observations.transitions.push({
      graph: reading.scope,
      key,
      before: before.values[key],
      writes: [...writes.values()].filter((written) => Object.hasOwn(written, key)).map((written) => written[key]),
      after: after.values[key],
    });
  return recorded.length === 1 ? recorded[0]! : { parallel: recorded };
}

/**
 * Parallel tasks end in the replay in the order of their times; the stream showed the order the
 * upstream ended them in. Times read from when events arrived can tie (two ends in one read), or
 * be a millisecond apart and round to one, and a tie replays in the tasks' plan order: each task
 * the stream showed ending later takes at least a millisecond more than the one before it.
 */
function keepEndOrder(tasks: { ms: number; endedAs?: number | undefined }[]): void {
  let before: number | undefined;
  for (const task of tasks.filter((t) => t.endedAs !== undefined).sort((a, b) => a.endedAs! - b.endedAs!)) {
    if (before !== undefined && task.ms <= before) task.ms = before + 1;
    before = task.ms;
  }
}

/** The superstep a run stopped in: its interrupted tasks (and those that wrote before it stopped), or the one that raised. */
export function stoppedStep(last: UpstreamState, reading: Reading): RecordedStep {
  // How long the step worked before it stopped: only its stream tells (no checkpoint follows it).
  const worked = reading.scope === undefined ? reading.timeline?.stoppedAfter() : undefined;
  const tasks = last.tasks.map((task): RecordedTask => {
    const built: RecordedTask = { node: task.name };
    if (task.error) built.error = errorOf(task.error);
    else if (task.interrupts?.length) built.interrupt = task.interrupts[0]!.value;
    else if (task.result) built.update = withoutMadeIds(task.result);
    const namespace = task.checkpoint?.checkpoint_ns;
    // How long it worked before it stopped; a subgraph node's time is its subgraph's steps'.
    if (!namespace && (task.error || task.interrupts?.length) && worked !== undefined && worked > 0) {
      built.do = [{ delay_ms: Math.round(worked) }, ...actionsOf(built)];
      delete built.interrupt;
    }
    if (namespace) {
      const inner = reading.subgraphHistory(namespace);
      if (inner.length > 0) {
        built.subgraph = innerSteps(inner, { ...reading, scope: task.name });
        delete built.interrupt;
      }
    }
    return built;
  });
  return tasks.length === 1 ? tasks[0]! : { parallel: tasks };
}

/** A resumed superstep's tasks gain what they wrote once resumed. */
function completeStep(pending: RecordedStep, done: RecordedStep): void {
  const pendingTasks = 'parallel' in pending ? pending.parallel : [pending];
  const doneTasks = 'parallel' in done ? done.parallel : [done];
  for (const task of pendingTasks) {
    const finished = doneTasks.find((candidate) => candidate.node === task.node);
    if (!finished || task.subgraph) continue;
    for (const key of ['message', 'tools', 'update', 'do'] as const)
      if (finished[key] !== undefined) (task as unknown as Values)[key] = finished[key];
  }
}

/** A subgraph's steps, from its own history (one run, from its input checkpoint). */
function innerSteps(states: UpstreamState[], reading: Reading): RecordedStep[] {
  // What the subgraph's state holds: the keys its values had, those it had before any write.
  const observed = reading.observations.subgraphStates.get(reading.scope!) ?? { initial: states[0]?.values ?? {}, keys: new Set<string>() };
  for (const state of states) for (const key of Object.keys(state.values)) observed.keys.add(key);
  reading.observations.subgraphStates.set(reading.scope!, observed);
  const byId = new Map(states.map((state) => [state.checkpoint.checkpoint_id, state]));
  const steps: RecordedStep[] = [];
  const stepOf = new Map<string, RecordedStep>();
  for (const state of states) {
    const before = state.parent_checkpoint ? byId.get(state.parent_checkpoint.checkpoint_id) : undefined;
    if (!before || state.metadata.source !== 'loop' || isInputCheckpoint(before)) continue;
    const step = superstepOf(before, state, reading);
    const pending = stepOf.get(before.checkpoint.checkpoint_id);
    if (pending) completeStep(pending, step);
    else steps.push(step);
  }
  const last = states.at(-1);
  if (last && last.next.length > 0 && last.tasks.some((task) => task.interrupts?.length || task.error))
    steps.push(stoppedStep(last, reading));
  // A subgraph resumed: its interrupted step appears once, then (resumed) as a step of its own: keep one.
  return steps;
}

/** What changed from `before` to `after`: the keys whose value differs, `messages` as the messages new or changed. */
function changed(before: Values, after: Values): Values {
  const written: Values = {};
  for (const [key, value] of Object.entries(after)) {
    if (JSON.stringify(before[key]) === JSON.stringify(value)) continue;
    if (key === 'messages' && Array.isArray(value) && Array.isArray(before[key])) {
      const old = new Map((before[key] as Values[]).map((message) => [message.id, JSON.stringify(message)]));
      written[key] = (value as Values[]).filter((message) => old.get(message.id) !== JSON.stringify(message));
    } else written[key] = value;
  }
  return written;
}

/** A task's writes as the config says them: a model's reply as `message`, tool answers as `tools` when run as tools, the rest as `update`. */
function describeWrites(task: RecordedTask, written: Values, timeline: StreamTimeline | undefined): void {
  const update: Values = {};
  const literal: Values[] = [];
  for (const [key, value] of Object.entries(written)) {
    if (key !== 'messages') {
      update[key] = value;
      continue;
    }
    const messages = (Array.isArray(value) ? value : [value]) as Values[];
    const tools: string[] = [];
    for (const message of messages) {
      if (
        message.type === 'ai' &&
        typeof message.id === 'string' &&
        MODEL_MESSAGE_ID.test(message.id) &&
        // A model's reply is the concatenation of its stream: an AIMessageChunk, with `tool_call_chunks`.
        Array.isArray(message.tool_call_chunks) &&
        typeof message.content === 'string' &&
        !task.message
      ) {
        task.message = modelMessage(message, timeline);
      } else if (
        message.type === 'tool' &&
        typeof message.tool_call_id === 'string' &&
        timeline?.ranTool(message.tool_call_id) &&
        typeof message.content === 'string'
      ) {
        tools.push(message.content);
      } else literal.push(withoutMadeId(message));
    }
    if (tools.length > 0) task.tools = tools;
    if (literal.length > 0) update.messages = literal;
  }
  if (Object.keys(update).length > 0) task.update = update;
}

/** A model's reply as a `message`: its text, tool calls, and the chunks its stream showed, with the pause before each. */
function modelMessage(message: Values, timeline: StreamTimeline | undefined): Values {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Values[]) : [];
  const described: Values = { text: message.content };
  if (calls.length > 0)
    described.tool_calls = calls.map((call) => ({ name: call.name, args: call.args ?? {}, ...(call.id ? { id: call.id } : {}) }));
  if (typeof message.name === 'string') described.name = message.name;
  const chunks = timeline?.chunksOf(message.id as string);
  if (chunks && chunks.texts.length > 0) {
    described.chunks = chunks.texts;
    described.delay_ms = chunks.delayMs;
  } else described.chunk = 'whole';
  return described;
}

/** A task's time: a pause before it writes, less the time its reply streamed; custom events placed by when they came. */
function timeTask(task: RecordedTask, elapsedMs: number, timeline: StreamTimeline | undefined): void {
  const streaming =
    task.message && Array.isArray(task.message.chunks) ? (task.message.chunks as unknown[]).length * Number(task.message.delay_ms ?? 0) : 0;
  const customs = timeline?.customsOf(task.node) ?? [];
  const work = Math.max(0, Math.round(elapsedMs - streaming));
  if (customs.length === 0) {
    if (work > 0) task.do = [{ delay_ms: work }, ...actionsOf(task)];
  } else {
    const actions: Values[] = [];
    let used = 0;
    for (const custom of customs) {
      const wait = Math.max(0, Math.min(work - used, Math.round(custom.offsetMs - used)));
      if (wait > 0) actions.push({ delay_ms: wait });
      used += wait;
      actions.push({ custom: custom.value });
    }
    if (work - used > 0) actions.push({ delay_ms: work - used });
    task.do = [...actions, ...actionsOf(task)];
  }
  if (task.do) {
    delete task.message;
    delete task.interrupt;
  }
}

/** The shorthand actions of a task (its interrupt, then its reply) as `do` actions, in that order. */
function actionsOf(task: RecordedTask): Values[] {
  return [...(task.interrupt !== undefined ? [{ interrupt: task.interrupt }] : []), ...(task.message ? [{ message: task.message }] : [])];
}

function errorOf(error: string): { name: string; message: string } {
  try {
    const parsed = JSON.parse(error) as Values;
    if (typeof parsed.message === 'string')
      return { name: typeof parsed.name === 'string' ? parsed.name : 'Error', message: parsed.message };
  } catch {
    // The error as the server wrote it: its message.
  }
  return { name: 'Error', message: error };
}

/** A message written as it was, but for an ID the server made (the replay makes its own). */
function withoutMadeId(message: Values): Values {
  if (typeof message.id !== 'string' || !MADE_ID.test(message.id)) return message;
  const { id: _id, ...rest } = message;
  return rest;
}

function withoutMadeIds(written: Values): Values {
  return Array.isArray(written.messages) ? { ...written, messages: (written.messages as Values[]).map(withoutMadeId) } : written;
}
