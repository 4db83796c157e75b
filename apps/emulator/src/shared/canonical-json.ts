// Deep equality of JSON values as a string comparison: the canonical text of a value sorts object
// keys, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are equal. Search filters compare these hashes.
//
// Checkpoint values are stored as canonical text (decision E13), so the values read back hold
// their keys in order already: most of a state's canonical text, message lists above all, is then
// JSON.stringify's, with no key sorted and no string built by hand.
import { hash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (inCanonicalOrder(value)) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * `value` with every object's keys in canonical (sorted) order: the objects already in order are
 * kept as they are, the others copied. Whatever is built from it and from canonical values then
 * stays on canonicalJson's fast path.
 */
export function inCanonicalForm<T>(value: T): T {
  if (value === null || typeof value !== 'object' || inCanonicalOrder(value)) return value;
  if (Array.isArray(value)) return value.map(inCanonicalForm) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) setOwn(copy, key, inCanonicalForm((value as Record<string, unknown>)[key]));
  return copy as T;
}

/**
 * Whether JSON.stringify writes `value` as canonicalJson does: every object's keys already
 * enumerate in sorted order, and nothing is undefined (which JSON.stringify would drop from an
 * object where the canonical text writes null). A key order JavaScript imposes (integer-like keys
 * first, numerically) that is not the sorted one fails the test, so such objects take the slow path.
 */
export function inCanonicalOrder(value: unknown): boolean {
  if (value === undefined) return false;
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!inCanonicalOrder(value[i])) return false;
    return true;
  }
  let previous: string | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (previous !== undefined && !(previous < key)) return false;
    if (!inCanonicalOrder((value as Record<string, unknown>)[key])) return false;
    previous = key;
  }
  return true;
}

/** The canonical text of the object whose keys' canonical texts are `entries`, in sorted key order. */
export function objectText(entries: [key: string, text: string][]): string {
  return `{${entries.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(',')}}`;
}

/** A short, fixed-size stand-in for a value's canonical JSON (SHA-1, base64url). */
export function valueHash(value: unknown): string {
  return textHash(canonicalJson(value));
}

/** valueHash of the value whose canonical text is `text`. */
export function textHash(text: string): string {
  // The one-shot form: a Hash object per key cost three times as much for the short texts of
  // metadata values.
  return hash('sha1', text, 'base64url');
}

/** Whether every key of `filter` is in `target` with a deep-equal value. */
export function matchesFilter(target: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, value]) => Object.hasOwn(target, key) && canonicalJson(target[key]) === canonicalJson(value));
}

/**
 * Sets an own property whatever its name: a plain assignment to `__proto__` would replace the
 * object's prototype instead of storing the client's key.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
