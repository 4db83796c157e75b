// Reads a request body as the spec's HTTPValidationError and BadRequest describe every body:
// UTF-8 (else 400, naming the first bad byte), one JSON value (else 422 `json_invalid` at the
// character offset), nested at most `maxDepth` levels (`json_too_deep`), with finite numbers only
// (`finite_number`: `1E400` parses to Infinity, which would be stored as null) and well-formed
// strings only (`string_unicode`: a lone surrogate such as `"\ud800"` cannot be stored as UTF-8).
// Nothing that fails here reaches a handler, so nothing of it is stored.
import { isUtf8 } from 'node:buffer';
import type { ValidationIssue } from '../contract/validation-errors.js';
import { HttpError, validationError } from './http-error.js';

// ignoreBOM keeps a byte order mark in the text, so JSON.parse refuses it (a BOM is not JSON).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export function readJsonBody(raw: Uint8Array, maxDepth: number): unknown {
  if (!isUtf8(raw)) throw new HttpError(400, `Request body is not valid UTF-8 (${describeInvalidUtf8(raw)}).`);
  // Before parsing: JSON.parse of 10,000 nested arrays builds 10,000 objects only to refuse them,
  // and bursts of such bodies grew the process by 20 MB (apps/bench/src/memory.bench.js).
  if (nestsDeeperThan(raw, maxDepth)) throw validationError([tooDeep(maxDepth)]);
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(raw));
  } catch (error) {
    const position = /position (\d+)/.exec(String((error as Error).message))?.[1];
    throw validationError([
      { loc: ['body', Number(position ?? 0)], msg: `JSON decode error: ${(error as Error).message}`, type: 'json_invalid' },
    ]);
  }
  const problem = inspect(value, maxDepth);
  if (problem) throw validationError([problem]);
  return value;
}

/**
 * The first value of a parsed body that may not be stored, or null. Recursion is bounded: it
 * stops one level past `maxDepth`.
 */
function inspect(root: unknown, maxDepth: number): ValidationIssue | null {
  const loc: (string | number)[] = ['body'];
  const visit = (value: unknown, depth: number): ValidationIssue | null => {
    if (typeof value === 'number') {
      return Number.isFinite(value) ? null : { loc: [...loc], msg: 'Input should be a finite number', type: 'finite_number' };
    }
    if (typeof value === 'string') return value.isWellFormed() ? null : notUnicode([...loc]);
    if (value === null || typeof value !== 'object') return null;
    if (depth >= maxDepth) return tooDeep(maxDepth);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        loc.push(i);
        const problem = visit(value[i], depth + 1);
        loc.pop();
        if (problem) return problem;
      }
      return null;
    }
    for (const key in value) {
      loc.push(key);
      const problem = key.isWellFormed() ? visit((value as Record<string, unknown>)[key], depth + 1) : notUnicode([...loc]);
      loc.pop();
      if (problem) return problem;
    }
    return null;
  };
  return visit(root, 0);
}

const tooDeep = (maxDepth: number): ValidationIssue => ({
  loc: ['body'],
  msg: `JSON nested deeper than ${maxDepth} levels`,
  type: 'json_too_deep',
});

/**
 * Whether the brackets of a JSON text (outside its strings) nest deeper than `limit`: one pass
 * over the bytes, allocating nothing. Only a bound: the text may still be invalid JSON.
 */
function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === 0x5c)
        i++; // a backslash escapes the next byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

const notUnicode = (loc: (string | number)[]): ValidationIssue => ({
  loc,
  msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
  type: 'string_unicode',
});

/** Where the first invalid UTF-8 sequence of `bytes` starts, and its bytes (RFC 3629's table 3-7). */
export function describeInvalidUtf8(bytes: Uint8Array): string {
  let at = 0;
  while (at < bytes.length) {
    const length = validSequenceLength(bytes, at);
    if (length === 0) {
      const shown = [...bytes.subarray(at, Math.min(at + 4, bytes.length))]
        .map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`)
        .join(' ');
      return `invalid sequence at byte ${at}: ${shown}`;
    }
    at += length;
  }
  return 'no invalid sequence found';
}

/** The length of the valid UTF-8 sequence starting at `at`, or 0 when none starts there. */
function validSequenceLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  if (lead < 0x80) return 1;
  const [length, secondMin, secondMax] =
    lead >= 0xc2 && lead <= 0xdf
      ? [2, 0x80, 0xbf]
      : lead === 0xe0
        ? [3, 0xa0, 0xbf]
        : lead === 0xed
          ? [3, 0x80, 0x9f]
          : lead >= 0xe1 && lead <= 0xef
            ? [3, 0x80, 0xbf]
            : lead === 0xf0
              ? [4, 0x90, 0xbf]
              : lead >= 0xf1 && lead <= 0xf3
                ? [4, 0x80, 0xbf]
                : lead === 0xf4
                  ? [4, 0x80, 0x8f]
                  : [0, 0, 0];
  if (length === 0 || at + length > bytes.length) return 0;
  const second = bytes[at + 1]!;
  if (second < secondMin || second > secondMax) return 0;
  for (let i = 2; i < length; i++) if ((bytes[at + i]! & 0xc0) !== 0x80) return 0;
  return length;
}
