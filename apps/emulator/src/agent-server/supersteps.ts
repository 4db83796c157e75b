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
// graph's channel defaults (`messages: []` in the input checkpoint, as LangGraph has it) and `next`
// follows the graph's edges from the nodes that wrote (react-agent.ts); without one, only keys that
// were written are there, and `next` is known only after an input.
//
// Pure: no storage. Every input is valid by the time it gets here (the request schemas say what a
// message, a command and a superstep are), so planning cannot fail.
import type { Superstep, SuperstepUpdate, ThreadTask } from '@agentplane/agent-server';
import { inCanonicalForm, setOwn } from '../shared/canonical-json.js';
import { newId } from '../shared/ids.js';
import { inTypeForm } from './message-forms.js';
import { nextAfter } from './react-agent.js';
import type { ScriptedGraph } from './scripted-graph.js';

type Values = Record<string, unknown>;

export interface PlannedCheckpoint {
  values: Values;
  next: string[];
  tasks: ThreadTask[];
  /**
   * Checkpoint metadata without `checkpoint_id` (added when read): what wrote it (`input` and
   * `loop` for a run's checkpoints, `update` for a state update), its step, and what the writer adds.
   */
  metadata: { source: 'input' | 'update' | 'loop'; step: number; parents: Record<string, never> } & Values;
}

/** The checkpoint a plan continues from: its values, step, and the input it left pending. */
export interface PlanBase {
  values: Values;
  step: number;
  /** The values of an `__input__` not yet applied by a `__start__` update. */
  pendingInput?: Values | undefined;
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
  let values: Values = { ...(options.graph?.defaults ?? {}), ...(options.base?.values ?? {}) };
  let pending = options.base?.pendingInput;
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
        nextPending = applyValues(nextPending ?? {}, written);
        continue;
      }
      const applied = update.as_node === START && written === undefined ? pending : written;
      values = applyValues(values, applied);
    }
    pending = nextPending;
    step = step === undefined ? (isInput ? -1 : 0) : step + 1;
    const next = pending ? [START] : options.graph ? nextOf(superstep.updates, values) : [];
    checkpoints.push({
      values,
      next,
      tasks: next.map(pendingTask),
      metadata: { graph_id: options.graphId, source: isInput ? 'input' : 'update', step, writes, parents: {} },
    });
  }
  // No superstep, no checkpoint: a thread without state has no values, not its graph's defaults.
  return { checkpoints, values: checkpoints.length === 0 ? (options.base?.values ?? {}) : values };
}

/** The nodes that run after a superstep, by the graph's edges from each node that wrote in it. */
function nextOf(updates: readonly SuperstepUpdate[], values: Values): string[] {
  return [...new Set(updates.flatMap((update) => nextAfter(update.as_node, values)))];
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

/** Values after a write: each key replaces the stored one, except `messages`, which merges (mergeMessages). */
export function applyValues(values: Values, written: Values | undefined): Values {
  if (!written) return values;
  const next = { ...values };
  for (const [key, value] of Object.entries(written)) {
    if (key === 'messages') next.messages = mergeMessages(values.messages, value);
    else setOwn(next, key, value);
  }
  return next;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * LangGraph's messages reducer: a message whose `id` is in the list replaces it in place; one
 * without `id` gets one and is appended; `{type: "remove", id}` deletes that message (nothing,
 * when the list does not have it), `__remove_all__` empties the list. Stored messages carry the
 * fields LangGraph always writes (`additional_kwargs`, `response_metadata`, and on AI messages
 * `tool_calls` and `invalid_tool_calls`), so a message reads back the same from either server.
 * A message in the role form is stored in the `type` form (message-forms.ts).
 */
function mergeMessages(current: unknown, incoming: unknown): unknown[] {
  let messages = Array.isArray(current) ? [...current] : [];
  let positions: Map<unknown, number> | undefined;
  const indexOf = (id: unknown) => {
    positions ??= new Map(messages.map((m, i) => [(m as Values).id, i]));
    return positions.get(id);
  };
  for (const written of asList(incoming) as Values[]) {
    const raw = inTypeForm(written);
    if (raw.type === 'remove') {
      messages = raw.id === '__remove_all__' ? [] : messages.filter((m) => (m as Values).id !== raw.id);
      positions = undefined;
      continue;
    }
    const message: Values = { ...raw };
    const idMadeHere = message.id === undefined || message.id === '';
    if (idMadeHere) message.id = newId();
    message.additional_kwargs ??= {};
    message.response_metadata ??= {};
    if (message.type === 'ai') {
      message.tool_calls ??= [];
      message.invalid_tool_calls ??= [];
    }
    // Its keys sorted, as the stored messages' are (decision E13): the list stays canonical.
    const stored = inCanonicalForm(message);
    // An ID made here is in no list yet: the usual append (an agent's reply) builds no index of
    // the conversation's messages, which cost a long conversation's update more than its merge.
    const at = idMadeHere ? undefined : indexOf(message.id);
    if (at !== undefined) messages[at] = stored;
    else {
      const position = messages.push(stored) - 1;
      positions?.set(message.id, position);
    }
  }
  return messages;
}

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
