// Superstep semantics, as LangGraph has them (decision A5 of docs/decisions.md, and the Superstep
// and SuperstepUpdate schemas' descriptions). Updates are applied in order; each superstep
// yields one checkpoint whose metadata has `source` (`input` when all its updates are
// `as_node: __input__`, else `update`), `step` (−1 for a first input checkpoint, 0 for any other
// first one, then one more each), `writes` (`{as_node: values}`) and `parents` (`{}`).
//
// `__input__` writes go to the `__start__` channel, not to the state: the input checkpoint holds
// the state before the input, with `next: ["__start__"]` and one pending `__start__` task; the
// `__start__` update that follows applies the input (its own values, when it has some, take the
// input's place, as a second write to that channel would). Any other update drops a pending
// input. Keys of the values replace earlier ones, except `messages`, which merges (see
// mergeMessages). A `command`'s `update` is applied as `values` would be.
//
// When the thread's graph is configured (its metadata's `graph_id`), the state starts from the
// graph's channel defaults (`messages: []` in the input checkpoint, as LangGraph has it), each key
// is written through its channel's reducer, and `next` follows the graph's edges from the nodes
// that wrote (graphs/scripted-graph.ts); without one, only keys that were written are there, and
// `next` is known only after an input. A checkpoint keeps the script position of the one it
// follows, so that a run going on from it takes the graph's steps from there.
//
// Pure: no storage. Every input is valid by the time it gets here (the request schemas say what a
// message, a command and a superstep are), so planning cannot fail.
import type { Superstep, SuperstepUpdate, ThreadTask } from '@agentplane/agent-server';
import { setOwn } from '../../shared/canonical-json.js';
import { newId } from '../../shared/ids.js';
import { UNDECLARED } from '../graphs/channels.js';
import type { ScriptPosition } from '../graphs/run-scripts.js';
import type { ScriptedGraph } from '../graphs/scripted-graph.js';

type Values = Record<string, unknown>;

export interface PlannedCheckpoint {
  values: Values;
  next: string[];
  tasks: ThreadTask[];
  /**
   * Checkpoint metadata without `checkpoint_id` (added when read): what wrote it (`input` and
   * `loop` for a run's checkpoints, `update` for a state update), its step, and what the writer adds.
   */
  metadata: { source: 'input' | 'update' | 'loop'; step: number; parents: Record<string, string> } & Values;
  /** Where a scripted run stands in its graph's script once this checkpoint is written (graphs of any shape). */
  script?: ScriptPosition | undefined;
}

/** The checkpoint a plan continues from: its values, step, and the input it left pending. */
export interface PlanBase {
  values: Values;
  step: number;
  /** The values of an `__input__` not yet applied by a `__start__` update. */
  pendingInput?: Values | undefined;
  /** Where the run that wrote it stood in its graph's script. */
  script?: ScriptPosition | undefined;
}

const INPUT = '__input__';
const START = '__start__';

export function planSupersteps(
  supersteps: readonly Superstep[],
  options: { graphId: string; graph?: ScriptedGraph | undefined; base?: PlanBase | undefined },
): {
  checkpoints: PlannedCheckpoint[];
  values: Values;
} {
  const { graph } = options;
  const channels = graph?.channels ?? UNDECLARED;
  // A superstep writes any key it is given: a configured graph's keys through their reducers.
  const apply = (values: Values, written: Values | undefined) => channels.apply(values, written, true);
  let values: Values = { ...(graph?.defaults ?? {}), ...(options.base?.values ?? {}) };
  let pending = options.base?.pendingInput;
  const script = options.base?.script;
  const checkpoints: PlannedCheckpoint[] = [];
  let step = options.base?.step;

  for (const superstep of supersteps) {
    const writes: Values = {};
    const isInput = superstep.updates.every((update) => update.as_node === INPUT);
    let nextPending: Values | undefined;
    for (const update of superstep.updates) {
      const written = updateValues(update);
      setOwn(writes, update.as_node, written ?? null);
      if (update.as_node === INPUT) {
        nextPending = UNDECLARED.apply(nextPending ?? {}, written);
        continue;
      }
      const applied = update.as_node === START && written === undefined ? pending : written;
      values = apply(values, applied);
    }
    pending = nextPending;
    step = step === undefined ? (isInput ? -1 : 0) : step + 1;
    const next = pending ? [START] : graph ? nextOf(graph, superstep.updates, values, script) : [];
    checkpoints.push({
      values,
      next,
      tasks: next.map(pendingTask),
      metadata: { graph_id: options.graphId, source: isInput ? 'input' : 'update', step, writes, parents: {} },
      ...(script ? { script } : {}),
    });
  }
  // No superstep, no checkpoint: a thread without state has no values, not its graph's defaults.
  return { checkpoints, values: checkpoints.length === 0 ? (options.base?.values ?? {}) : values };
}

/** The nodes that run after a superstep, by the graph's edges from each node that wrote in it. */
function nextOf(graph: ScriptedGraph, updates: readonly SuperstepUpdate[], values: Values, script: ScriptPosition | undefined): string[] {
  return [...new Set(updates.flatMap((update) => graph.nextAfterUpdate(update.as_node, values, script)))];
}

/** The input a checkpoint left pending: its `__input__` writes, if it is an input checkpoint. */
export function pendingInputOf(metadata: Record<string, unknown>): Values | undefined {
  if (metadata.source !== 'input') return undefined;
  const writes = metadata.writes as Values | undefined;
  const input = writes?.[INPUT];
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Values) : {};
}

/** What an update writes: its command's `update` when it has a command, else its `values`. */
function updateValues(update: SuperstepUpdate): Values | undefined {
  if (update.command) {
    const written = update.command.update;
    if (written === undefined) return undefined;
    if (!Array.isArray(written)) return written;
    const pairs: Values = {};
    for (const [channel, value] of written as [string, unknown][]) {
      // A channel given twice: LangGraph applies both writes in order; `messages` merges them.
      setOwn(
        pairs,
        channel,
        channel === 'messages' && Object.hasOwn(pairs, channel) ? [...asList(pairs[channel]), ...asList(value)] : value,
      );
    }
    return pairs;
  }
  return update.values ?? undefined;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** A task of the next step that has not run: what `tasks` shows for each node of `next`. */
export function pendingTask(node: string): ThreadTask {
  return {
    id: newId(),
    name: node,
    error: null,
    interrupts: [],
    checkpoint: null,
    state: null,
    path: ['__pregel_pull', node],
    result: null,
  };
}
