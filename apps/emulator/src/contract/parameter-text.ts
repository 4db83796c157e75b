// How a path or query parameter is read from the request target, before its schema checks it.
// Strict on purpose (the spec's HTTPValidationError states these rules):
//
// - Percent-escapes are decoded as UTF-8; escaped bytes that are not UTF-8 (`%FF`) make the
//   parameter unreadable (a 422 `string_unicode` naming it) instead of turning into U+FFFD. A `%`
//   not followed by two hex digits is kept as it is, as browsers keep it.
// - Its text is read as the JSON type its schema declares: an integer is decimal digits with an
//   optional `-`, a number is written as JSON writes numbers, a boolean is `true` or `false`, or
//   `1` or `0` (the LangGraph SDK sends `wait=1` and `cancel_on_disconnect=0`).
//   Text that does not read as its type is passed on unchanged, so the schema refuses it as the
//   wrong type and the 422 names the parameter (`int_parsing`). A lenient reading
//   (`Number(text)`) would take `0x10` as 16, ` 5` as 5 and `1E400` as Infinity.
import { isUtf8 } from 'node:buffer';

import type { ParameterTextType } from '../generated/server-operation.js';

export type { ParameterTextType };
/** The type of one parameter's text, or of each item of a query list. */
export type ScalarTextType = Exclude<ParameterTextType, `${string}[]`>;

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export function readParameterText(text: string, type: ScalarTextType): unknown {
  switch (type) {
    case 'integer':
    case 'number': {
      if (!(type === 'integer' ? INTEGER : NUMBER).test(text)) return text;
      const value = Number(text);
      // Too long to be finite (`1` and 400 zeros): stays text, a parsing error, never Infinity.
      return Number.isFinite(value) ? value : text;
    }
    case 'boolean':
      return text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : text;
    case 'string':
      return text;
  }
}

const ESCAPE_RUNS = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * The text of a percent-encoded path segment or query component (`+` is a space in a query), or
 * null when a run of escaped bytes is not UTF-8.
 */
export function decodeParameter(raw: string, plusIsSpace: boolean): string | null {
  const text = plusIsSpace && raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!text.includes('%')) return text;
  let utf8 = true;
  const decoded = text.replace(ESCAPE_RUNS, (run) => {
    const bytes = Buffer.from(run.replaceAll('%', ''), 'hex');
    if (!isUtf8(bytes)) utf8 = false;
    return bytes.toString('utf8');
  });
  return utf8 ? decoded : null;
}

/** Splits a query string into its parameters, first occurrence first; a name that is not UTF-8 is skipped. */
export function splitQuery(query: string): [name: string, value: string | null][] {
  const pairs: [string, string | null][] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    const name = decodeParameter(at < 0 ? part : part.slice(0, at), true);
    if (name === null) continue;
    pairs.push([name, decodeParameter(at < 0 ? '' : part.slice(at + 1), true)]);
  }
  return pairs;
}
