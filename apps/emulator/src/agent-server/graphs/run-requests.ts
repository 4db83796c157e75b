// What decides a run, as an entry of `runs` says it and as a run's request is: a run is told apart
// by everything that decides what the upstream did with it (a recording answers each request as the
// upstream answered that one). An entry's `request` (graph-config.ts's RUN_REQUEST) is compared with
// the run's, field by field, each left-out field at its default; `continues` says where the thread
// stood (after which entry's run, or at which of its steps for a run from an earlier checkpoint).
// A run no entry fits is refused with what differs from the nearest entry (run-scripts.ts).
//
// The config and context compared are what the run runs with (its assistant's and its own,
// merged), less what the graph's default assistant gives every run and what the server adds
// (its IDs, the request's headers): the same on a replay as on the upstream the recording was
// made from, whichever assistant carried them.
import { canonicalJson } from '../../shared/canonical-json.js';

type Values = Record<string, unknown>;

/** The kinds of run: one that gives input, one that gives a command, one that goes on from where the thread stands (input null). */
export type RunKind = 'input' | 'command' | 'go-on';

/** A run's request, as the runner knows it when the run starts. */
export interface RunRequest {
  kind: RunKind;
  /** The input (a run of kind input). */
  input: Values | undefined;
  /** The text of the last human message once the input is applied (what `match` reads). */
  text: string;
  command: Values | undefined;
  /** What it runs with, less the default assistant's and the server's (configFromDefaults). */
  config: Values;
  context: Values;
  interruptBefore: readonly string[] | '*' | undefined;
  interruptAfter: readonly string[] | '*' | undefined;
  multitaskStrategy: string;
  stateless: boolean;
}

/** An entry's `request`, as the config gives it. */
export interface EntryRequest {
  input?: unknown;
  command?: Values;
  config?: Values;
  context?: Values;
  interrupt_before?: readonly string[] | '*';
  interrupt_after?: readonly string[] | '*';
  multitask_strategy?: string;
  stateless?: boolean;
}

/** Keys of `configurable` the server sets or passes through from the request, which decide nothing a recording replays. */
const SERVER_KEYS = new Set([
  'run_id',
  'thread_id',
  'graph_id',
  'assistant_id',
  'checkpoint_id',
  'checkpoint_ns',
  'checkpoint_map',
  'user-agent',
]);
const isServerKey = (key: string) => SERVER_KEYS.has(key) || key.startsWith('__') || key.startsWith('x-') || key.startsWith('langgraph_');

/**
 * A run's config as a recording compares it: what it runs with (`kwargs.config`), without its
 * metadata, the server's keys, and what the default assistant's config already says.
 */
export function configFromDefaults(config: Values, defaults: Values): Values {
  const compared: Values = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === 'metadata' || key === 'configurable' || same(value, defaults[key])) continue;
    compared[key] = value;
  }
  const given = (config.configurable ?? {}) as Values;
  const base = (defaults.configurable ?? {}) as Values;
  const configurable = Object.fromEntries(Object.entries(given).filter(([key, value]) => !isServerKey(key) && !same(value, base[key])));
  if (Object.keys(configurable).length > 0) compared.configurable = configurable;
  return compared;
}

/** A run's context as a recording compares it: what the default assistant's context does not already say. */
export function contextFromDefaults(context: unknown, defaults: Values): Values {
  if (context === null || typeof context !== 'object' || Array.isArray(context)) return {};
  return Object.fromEntries(Object.entries(context).filter(([key, value]) => !same(value, defaults[key])));
}

/** The kind of run an entry answers: a command's, one with input, or one going on (`continues` with no input of its own). */
export function entryKind(entry: { match?: string; match_input?: string; continues?: unknown; request?: EntryRequest }): RunKind {
  if (entry.request?.command !== undefined) return 'command';
  const givesInput = entry.match !== undefined || entry.match_input !== undefined || entry.request?.input !== undefined;
  if (givesInput) return 'input';
  return entry.continues !== undefined ? 'go-on' : 'input';
}

/** A field of a request where it differs from an entry's: what it is, the entry's, the run's. */
export interface Difference {
  field: string;
  recorded: unknown;
  given: unknown;
}

/**
 * Whether `match` says all of an input: one human message whose content is its text, and nothing
 * else. An exact entry without `request.input` or `match_input` answers only such an input.
 */
export function saysAllOf(input: unknown): boolean {
  if (input === null || typeof input !== 'object') return false;
  const object = input as Values;
  const keys = Object.keys(object);
  if (keys.length !== 1 || keys[0] !== 'messages' || !Array.isArray(object.messages) || object.messages.length !== 1) return false;
  const message = object.messages[0] as Values;
  const human = message.type === 'human' || message.role === 'user' || message.role === 'human';
  const fields = Object.keys(message).filter((key) => key !== 'id');
  return (
    human &&
    typeof message.content === 'string' &&
    message.content !== '' &&
    fields.every((key) => ['type', 'role', 'content'].includes(key))
  );
}

/** What a recording writes in place of a secret's value: it stands for any value. */
export const REDACTED = '<redacted>';

/** `given` with every value `recorded` holds as REDACTED (at any depth) taken as that too: a secret matches whatever it was. */
function asRecorded(recorded: unknown, given: unknown): unknown {
  if (recorded === REDACTED) return REDACTED;
  if (Array.isArray(recorded) && Array.isArray(given)) return given.map((item, i) => asRecorded(recorded[i], item));
  if (recorded !== null && typeof recorded === 'object' && given !== null && typeof given === 'object' && !Array.isArray(given))
    return Object.fromEntries(Object.entries(given).map(([key, item]) => [key, asRecorded((recorded as Values)[key], item)]));
  return given;
}

/** Where a run's request differs from an entry's `request` (none: it fits); `byMatch`: the entry's `match_input` says the whole input. */
export function requestDifferences(entry: EntryRequest, run: RunRequest, byMatchInput = false): Difference[] {
  const differences: Difference[] = [];
  const compare = (field: string, recorded: unknown, given: unknown) => {
    if (!same(recorded, asRecorded(recorded, given))) differences.push({ field, recorded, given });
  };
  if (entry.input !== undefined) compare('input', withoutMessageIds(entry.input), withoutMessageIds(run.input));
  else if (run.kind === 'input' && !byMatchInput && !saysAllOf(run.input))
    differences.push({ field: 'input', recorded: 'its human message alone', given: withoutMessageIds(run.input) });
  compare('command', withoutMessageIds(entry.command), withoutMessageIds(run.command));
  compare('config', entry.config ?? {}, run.config);
  compare('context', entry.context ?? {}, run.context);
  compare('interrupt_before', breakpoints(entry.interrupt_before), breakpoints(run.interruptBefore));
  compare('interrupt_after', breakpoints(entry.interrupt_after), breakpoints(run.interruptAfter));
  compare('multitask_strategy', entry.multitask_strategy ?? 'reject', run.multitaskStrategy);
  compare('stateless', entry.stateless ?? false, run.stateless);
  return differences;
}

/** What a difference says in a refusal: the field, and both values. */
export function describeDifference({ field, recorded, given }: Difference): string {
  const shown = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(value));
  return `${field} (recorded ${shown(recorded)}, this run ${shown(given)})`;
}

const breakpoints = (nodes: readonly string[] | '*' | undefined) => (nodes === undefined || nodes.length === 0 ? undefined : nodes);

/** A value with the `id` of each message in it left out: a client may make new ones every time it sends the same messages. */
function withoutMessageIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMessageIds);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Values;
  const isMessage = typeof object.content !== 'undefined' && (typeof object.type === 'string' || typeof object.role === 'string');
  return Object.fromEntries(
    Object.entries(object)
      .filter(([key]) => !(isMessage && key === 'id'))
      .map(([key, item]) => [key, withoutMessageIds(item)]),
  );
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** The key of an entry's selectors: entries with the same are holds of one request, used in turn. */
export function selectorKey(entry: { match?: string; match_input?: string; continues?: unknown; request?: EntryRequest }): string {
  return canonicalJson({
    match: entry.match ?? null,
    match_input: entry.match_input ?? null,
    continues: entry.continues ?? null,
    request: entry.request ?? null,
  });
}
