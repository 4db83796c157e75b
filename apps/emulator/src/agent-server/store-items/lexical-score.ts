// The score a store search's `query` ranks items by (StoreItemSearch in the spec): the share of the
// query's distinct words found among the words of an item's text. Lexical and deterministic, so
// that a test can predict it: the real server embeds with a model, and there is none here.

/** A word: a run of letters, marks and digits of any script, lower-cased. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The distinct words of a text. */
export function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().match(WORD) ?? []);
}

/** Every string under `value` (object keys excluded), in document order. */
function stringsIn(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) stringsIn(item, into);
}

/** What is under a path of keys joined by periods (`profile.bio`); `$` is the whole value. */
function atPath(value: Record<string, unknown>, path: string): unknown {
  if (path === '$') return value;
  let at: unknown = value;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * The text `query` reads of an item: the strings of its whole value (`fields` null), or of the
 * listed fields only; none when the item is not indexed (`false`).
 */
export function indexedText(value: Record<string, unknown>, fields: readonly string[] | false | null): string | undefined {
  if (fields === false) return undefined;
  const strings: string[] = [];
  for (const part of fields === null ? [value] : fields.map((path) => atPath(value, path))) stringsIn(part, strings);
  return strings.join(' ');
}

/** The share (0 to 1) of the query's words that the text has; undefined for a query without words. */
export function lexicalScore(queryWords: ReadonlySet<string>, text: string): number | undefined {
  if (queryWords.size === 0) return undefined;
  const words = wordsOf(text);
  let found = 0;
  for (const word of queryWords) if (words.has(word)) found++;
  return found / queryWords.size;
}
