// How the HTTP layer reads what a request carries, unit by unit: parameter text (percent-decoding,
// decimal-only numbers, booleans) and JSON bodies (UTF-8, finite numbers, well-formed strings,
// depth). The answers these produce on the wire are in http.test.ts and the fuzz test.
import { describe, expect, it } from 'vitest';
import { decodeParameter, readParameterText, splitQuery } from '../src/contract/parameter-text.js';
import { HttpError } from '../src/http/http-error.js';
import { describeInvalidUtf8, readJsonBody } from '../src/http/json-body.js';

describe('parameter text', () => {
  it('reads an integer only from decimal digits; anything else stays text for the schema to refuse', () => {
    const read = (text: string) => readParameterText(text, 'integer');
    expect([read('16'), read('-3'), read('007'), read('9007199254740993')]).toEqual([16, -3, 7, 9007199254740992]);
    for (const text of ['0x10', '1e1', '+5', ' 5', '5 ', '5.0', '', '-', '1_000', '١٢', `1${'0'.repeat(400)}`]) {
      expect(read(text), text).toBe(text);
    }
  });

  it('reads a number as JSON writes one, and a boolean only as true or false, 1 or 0', () => {
    expect(readParameterText('1.5e3', 'number')).toBe(1500);
    for (const text of ['.5', '1.', 'NaN', 'Infinity', '1E400']) expect(readParameterText(text, 'number'), text).toBe(text);
    expect(['true', 'false', '1', '0'].map((text) => readParameterText(text, 'boolean'))).toEqual([true, false, true, false]);
    for (const text of ['True', '01', 'yes', 'on', '']) expect(readParameterText(text, 'boolean'), text).toBe(text);
    expect(readParameterText('0x10', 'string')).toBe('0x10');
  });

  it('decodes percent-escapes as UTF-8 and refuses escaped bytes that are not', () => {
    expect(decodeParameter('a%20b', false)).toBe('a b');
    expect(decodeParameter('%E2%82%AC', false)).toBe('€');
    expect(decodeParameter('a+b', true)).toBe('a b');
    expect(decodeParameter('a+b', false)).toBe('a+b');
    expect(decodeParameter('%2B', true)).toBe('+');
    expect(decodeParameter('100%', false)).toBe('100%');
    expect(decodeParameter('%zz', false)).toBe('%zz');
    for (const raw of ['%FF', '%C0%80', '%ED%A0%80', '%E2%82', 'ok%80']) expect(decodeParameter(raw, false), raw).toBeNull();
  });

  it('splits a query string in order, keeping repeats and skipping names that are not UTF-8', () => {
    expect(splitQuery('a=1&a=2&b&&c=%FF&%FF=x&d=x%3Dy')).toEqual([
      ['a', '1'],
      ['a', '2'],
      ['b', ''],
      ['c', null],
      ['d', 'x=y'],
    ]);
  });
});

describe('JSON bodies', () => {
  const bytes = (...values: number[]) => new Uint8Array(values);
  const refusal = (body: Uint8Array | string) => {
    try {
      readJsonBody(typeof body === 'string' ? Buffer.from(body) : body, 64);
    } catch (error) {
      if (error instanceof HttpError) return { status: error.status, detail: error.detail };
      throw error;
    }
    return null;
  };

  it('refuses a body that is not UTF-8 with a 400 naming the first bad byte', () => {
    const cases: [Uint8Array, string][] = [
      [bytes(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d), 'invalid sequence at byte 6: 0xFF 0x22 0x7D'],
      [bytes(0x22, 0xc0, 0x80, 0x22), 'invalid sequence at byte 1: 0xC0 0x80 0x22'],
      [bytes(0x22, 0xed, 0xa0, 0x80, 0x22), 'invalid sequence at byte 1: 0xED 0xA0 0x80 0x22'],
      [bytes(0x22, 0xe2, 0x82), 'invalid sequence at byte 1: 0xE2 0x82'],
      [bytes(0x22, 0xe2, 0x82, 0xac, 0xf5, 0x80), 'invalid sequence at byte 4: 0xF5 0x80'],
    ];
    for (const [body, where] of cases) {
      expect(describeInvalidUtf8(body)).toBe(where);
      expect(refusal(body)).toEqual({ status: 400, detail: `Request body is not valid UTF-8 (${where}).` });
    }
  });

  it('refuses numbers that are not finite, where they stand', () => {
    expect(refusal('{"a": [1, 1E400]}')).toEqual({
      status: 422,
      detail: [{ loc: ['body', 'a', 1], msg: 'Input should be a finite number', type: 'finite_number' }],
    });
    expect(refusal('-1e999')).toMatchObject({ status: 422, detail: [{ loc: ['body'], type: 'finite_number' }] });
    expect(refusal('{"a": 1e308, "b": 9223372036854775807}')).toBeNull();
  });

  it('refuses lone surrogates in strings and in keys', () => {
    expect(refusal('{"a": {"b": "x\\ud800"}}')).toMatchObject({
      status: 422,
      detail: [{ loc: ['body', 'a', 'b'], type: 'string_unicode' }],
    });
    expect(refusal('{"\\udc00": 1}')).toMatchObject({ status: 422, detail: [{ loc: ['body', '\udc00'], type: 'string_unicode' }] });
    expect(refusal('{"a": "\\ud83d\\ude00"}')).toBeNull();
  });

  it('accepts 64 levels of nesting and refuses 65; refuses a byte order mark and trailing text as JSON errors', () => {
    expect(refusal(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeNull();
    expect(refusal(`${'['.repeat(65)}${']'.repeat(65)}`)).toMatchObject({ status: 422, detail: [{ type: 'json_too_deep' }] });
    expect(refusal('\ufeff{}')).toMatchObject({ status: 422, detail: [{ loc: ['body', 0], type: 'json_invalid' }] });
    expect(refusal('{} x')).toMatchObject({ status: 422, detail: [{ type: 'json_invalid' }] });
  });
});
