// Deep equality of JSON values as a string comparison: the canonical text of a value sorts object
// keys, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are equal. Search filters compare these hashes.
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** A short, fixed-size stand-in for a value's canonical JSON (SHA-1, base64url). */
export function valueHash(value: unknown): string {
  return createHash('sha1').update(canonicalJson(value)).digest('base64url');
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
