// The canonical text behind search filters: its fast path (JSON.stringify of a value whose keys are
// in order already) must write exactly what the key-sorting definition writes, or a filter stops
// matching the threads it matched before (their hashes are stored). The same holds of the texts a
// state update reuses from the checkpoint before it (ValueTexts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planSupersteps } from '../src/agent-server/threads/supersteps.js';
import { ValueTexts } from '../src/agent-server/threads/value-texts.js';
import { canonicalJson, inCanonicalForm, objectText, textHash, valueHash } from '../src/shared/canonical-json.js';

/** The definition: every object's keys sorted, undefined written as null. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

// Keys JavaScript enumerates before the others ("0", "10", "9"), keys that sort before digits
// ("!", "-1", " "), and ordinary ones.
const key = fc.constantFrom('a', 'b', 'content', 'type', 'id', '0', '9', '10', '2', '-1', '!', ' ', '01', '__proto__', 'é');
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('canonicalJson', () => {
  it('writes what the key-sorting definition writes, for any JSON value', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes what the definition writes for a value read back from its canonical text (the stored values)', () => {
    fc.assert(
      fc.property(json, (value) => {
        const readBack = JSON.parse(canonicalJson(value));
        expect(canonicalJson(readBack)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts the keys JavaScript would enumerate first, and writes undefined as null', () => {
    expect(canonicalJson({ 10: 'a', 9: 'b', '-1': 'c', x: undefined })).toBe('{"-1":"c","10":"a","9":"b","x":null}');
    expect(canonicalJson([undefined, { b: 1, a: [2, { d: 3, c: 4 }] }])).toBe('[null,{"a":[2,{"c":4,"d":3}],"b":1}]');
    // Keys in order, so only the undefined keeps JSON.stringify (which drops the key) out.
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1,"b":null}');
  });

  it("keeps a '__proto__' key the client sent as an ordinary key", () => {
    const value = JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
  });

  it('hashes as files written by earlier versions did: SHA-1 of the canonical text, base64url', () => {
    // Stored filter keys hold these hashes; a different hash would make every stored key unfindable.
    expect(valueHash('agent')).toBe('NfNG1kr3egFCTG3JV5EjqCdRAuU');
    expect(valueHash({ b: null, a: [1, 'x'] })).toBe('NwviGQ7jezZwWQzfWf78k6l7J8Y');
  });

  it('inCanonicalForm reorders keys without changing the value, so that JSON.stringify writes the canonical text', () => {
    fc.assert(
      fc.property(json, (value) => {
        const ordered = inCanonicalForm(value);
        expect(canonicalJson(ordered)).toBe(reference(value));
        // JavaScript enumerates integer-like keys first whatever the order they were set in.
        if (!/"(0|[1-9][0-9]*)":/.test(reference(value))) expect(JSON.stringify(ordered)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('a merged message list is canonical, new messages included: its text is one JSON.stringify', () => {
    const stored = JSON.parse(canonicalJson({ messages: [{ type: 'human', content: 'Hi', id: 'h-1' }] }));
    const { values } = planSupersteps(
      [{ updates: [{ as_node: 'agent', values: { messages: [{ type: 'ai', content: [{ type: 'text', text: 'Hello' }], id: 'a-1' }] } }] }],
      { graphId: 'agent', base: { values: stored, step: 0 } },
    );
    expect(JSON.stringify(values.messages)).toBe(canonicalJson(values.messages));
  });
});

describe('ValueTexts', () => {
  const values = fc.dictionary(key, json, { maxKeys: 6 });

  it('gives, key by key, the texts and hashes of the whole value, and the value in canonical form', () => {
    fc.assert(
      fc.property(values, (object) => {
        const { entries, canonical } = new ValueTexts().of(object);
        expect(objectText(entries)).toBe(reference(object));
        for (const [k, text] of entries) expect(textHash(text)).toBe(valueHash(object[k]));
        expect(canonicalJson(canonical)).toBe(reference(object));
        expect(canonical).toEqual(object);
      }),
    );
  });

  it('reuses the texts of the values before only where they hold: kept keys, and lists the same elements start', () => {
    fc.assert(
      fc.property(values, values, fc.array(json, { maxLength: 3 }), (first, changes, added) => {
        const texts = new ValueTexts();
        const before = texts.of({ ...first, list: [{ b: 1, a: 2 }, 'x'] }).canonical;
        // What a merge makes: untouched keys keep their values, some change, the list grows.
        const after: Record<string, unknown> = { ...before, ...changes };
        if (!Object.hasOwn(changes, 'list')) after.list = [...(before.list as unknown[]), ...added];
        const { entries, canonical } = texts.of(after, before);
        expect(objectText(entries)).toBe(reference(after));
        expect(canonicalJson(canonical)).toBe(reference(after));
        // And again from what it returned, as the next update would.
        const next = { ...canonical, list: [...(canonical.list as unknown[]), { z: 0, y: [1] }] };
        expect(objectText(texts.of(next, canonical).entries)).toBe(reference(next));
      }),
      { numRuns: 500 },
    );
  });

  it('does not serialise again the messages a state update keeps', () => {
    let walks = 0;
    // A stored message that counts the enumerations of its keys.
    const message = new Proxy(
      { content: 'hi', id: 'm-1', type: 'human' },
      {
        ownKeys: (target) => {
          walks++;
          return Reflect.ownKeys(target);
        },
      },
    );
    const texts = new ValueTexts();
    const before = texts.of({ messages: [message], topic: { a: 1 } }).canonical;
    const after = { ...before, messages: [...(before.messages as unknown[]), { type: 'ai', content: 'hello', id: 'm-2' }] };
    const expected = reference(after);
    walks = 0;
    const { entries } = texts.of(after, before);
    expect(walks).toBe(0);
    expect(objectText(entries)).toBe(expected);
  });
});
