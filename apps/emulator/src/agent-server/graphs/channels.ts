// A graph's state keys, as LangGraph's channels: each key's reducer (how a write is applied to
// what the key holds) and its default. A key with a default is in the state from the start (as
// LangGraph's `messages: []`); a key without one is absent from `values` until something writes
// it, as LangGraph leaves an unwritten channel out.
//
// A thread without a configured graph has no declared keys: `messages` merges, every other key is
// replaced (UNDECLARED).
import { inCanonicalForm, setOwn } from '../../shared/canonical-json.js';
import { newId } from '../../shared/ids.js';
import { inTypeForm } from './message-forms.js';

type Values = Record<string, unknown>;

/** How a write to a key is applied: replace (LangGraph's LastValue), append, add, merge, or the messages reducer. */
export type Reducer = 'replace' | 'append' | 'add' | 'merge' | 'messages';

export interface Channel {
  reducer: Reducer;
  /** Present when the key has a default: then it is in the state from the start. */
  default?: unknown;
}

export class Channels {
  private readonly channels: ReadonlyMap<string, Channel>;

  constructor(
    channels: Readonly<Record<string, Channel>>,
    /** Whether keys not declared are state too (a thread without a graph); else writes to them are dropped. */
    private readonly open = false,
  ) {
    this.channels = new Map(Object.entries(channels));
  }

  /** The declared keys, in the order the graph declares them. */
  get keys(): string[] {
    return [...this.channels.keys()];
  }

  has(key: string): boolean {
    return this.open || this.channels.has(key);
  }

  reducerOf(key: string): Reducer {
    return this.channels.get(key)?.reducer ?? (key === 'messages' ? 'messages' : 'replace');
  }

  /** The state before anything is written: the keys with a default. */
  defaults(): Values {
    const values: Values = {};
    for (const [key, channel] of this.channels)
      if (Object.hasOwn(channel, 'default')) setOwn(values, key, structuredClone(channel.default));
    return values;
  }

  /** What of a write reaches the state: the declared keys only, as LangGraph maps input to its channels. */
  ofState(written: Values): Values {
    if (this.open) return written;
    return Object.fromEntries(Object.entries(written).filter(([key]) => this.channels.has(key)));
  }

  /**
   * The values after `written` is applied, each key through its reducer. Keys not in the state are
   * dropped (a run's writes), or with `keepUndeclared` replaced as written (a state update or a
   * superstep, which the API applies as given).
   */
  apply(values: Values, written: Values | undefined, keepUndeclared = false): Values {
    if (!written) return values;
    const next = { ...values };
    for (const [key, value] of Object.entries(written)) {
      if (!keepUndeclared && !this.has(key)) continue;
      setOwn(next, key, reduce(this.reducerOf(key), Object.hasOwn(values, key) ? values[key] : undefined, value));
    }
    return next;
  }
}

/** The channels of a thread whose graph is not configured: any key, `messages` merging. */
export const UNDECLARED = new Channels({}, true);

/** What a key holds after a write, by its reducer (`current` is undefined when nothing wrote it yet). */
export function reduce(reducer: Reducer, current: unknown, written: unknown): unknown {
  switch (reducer) {
    case 'messages':
      return mergeMessages(current, written);
    case 'append':
      return current === undefined ? asList(written) : [...asList(current), ...asList(written)];
    case 'add':
      return typeof current === 'number' && typeof written === 'number' ? current + written : written;
    case 'merge':
      return isObject(current) && isObject(written) ? { ...current, ...written } : written;
    default:
      return written;
  }
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
const isObject = (value: unknown): value is Values => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Messages a node made that were named on their way to the reducer with an ID made for them (a
 * UUID, or the stream handler's name for a node call of its own): no list holds that ID yet, so the
 * reducer appends them without looking for it among the conversation's messages, which took an
 * index of a long thread's whole list on every reply.
 */
const freshlyNamed = new WeakSet<object>();

/** Names a message a node made with an ID made for it now (see freshlyNamed). */
export function nameFreshly(message: Values, id: string): void {
  message.id = id;
  freshlyNamed.add(message);
}

/** Marks a message built with an ID made for it now (a model call's `run-<its run ID>`; see freshlyNamed). */
export function freshlyNamedMessage<T extends Values>(message: T): T {
  freshlyNamed.add(message);
  return message;
}

/**
 * LangGraph's messages reducer: a message whose `id` is in the list replaces it in place; one
 * without `id` gets one and is appended; `{type: "remove", id}` deletes that message (nothing,
 * when the list does not have it), `__remove_all__` empties the list. Stored messages carry the
 * fields LangGraph always writes (`additional_kwargs`, `response_metadata`, and on AI messages
 * `tool_calls` and `invalid_tool_calls`), so a message reads back the same from either server.
 * A message in the role form is stored in the `type` form (message-forms.ts).
 */
export function mergeMessages(current: unknown, incoming: unknown): unknown[] {
  let messages = Array.isArray(current) ? [...current] : [];
  let positions: Map<unknown, number> | undefined;
  const indexOf = (id: unknown) => {
    positions ??= new Map(messages.map((m, i) => [(m as Values).id, i]));
    return positions.get(id);
  };
  // Where this call appended the freshly named (two messages of one node call share its name), and
  // whether a removal moved what it appended: then their positions are looked up as any other's.
  let appendedFresh: Map<unknown, number> | undefined;
  let removed = false;
  for (const written of asList(incoming) as (Values | string)[]) {
    // A bare string is a human message, as LangChain coerces one.
    const raw = typeof written === 'string' ? { type: 'human', content: written } : inTypeForm(written);
    if (raw.type === 'remove') {
      messages = raw.id === '__remove_all__' ? [] : messages.filter((m) => (m as Values).id !== raw.id);
      positions = undefined;
      removed = true;
      continue;
    }
    const message: Values = { ...raw };
    const idMadeHere = message.id === undefined || message.id === '';
    const fresh = !idMadeHere && typeof written === 'object' && freshlyNamed.has(written) && !removed;
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
    const at = idMadeHere ? undefined : fresh ? appendedFresh?.get(message.id) : indexOf(message.id);
    if (at !== undefined) messages[at] = stored;
    else {
      const position = messages.push(stored) - 1;
      positions?.set(message.id, position);
      if (fresh) {
        appendedFresh ??= new Map();
        appendedFresh.set(message.id, position);
      }
    }
  }
  return messages;
}
