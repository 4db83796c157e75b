// The layout of stored values (decision E29), value by value: whatever a values object holds and
// however it was made from the one before (keys kept, lists grown, elements replaced or removed,
// keys JavaScript enumerates out of sorted order), its manifest reads back as its canonical text,
// a run's answer of it is JSON.stringify's text (from its manifest too), its keys' hashes are the
// filter index's, and the bytes kept for answers are never changed by a later append.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueItems } from '../src/agent-server/threads/value-items.js';
import { canonicalJson, valueHash } from '../src/shared/canonical-json.js';
import { migrate } from '../src/store/database.js';
import { GrowingBytes } from '../src/store/growing-bytes.js';
import type { NewItem } from '../src/store/stored-values.js';
import { answerOf, INLINE_LIST_CHARS, keyHash, layOut } from '../src/store/stored-values.js';

type Values = Record<string, unknown>;

const key = fc.constantFrom('a', 'b', 'messages', 'docs', '0', '9', '10', '-1', '__proto__', 'é');
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 200 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const values = fc.dictionary(key, json, { maxKeys: 5 });
/** How the next values are made from the last: keys replaced, lists grown, elements replaced, removed, reordered. */
interface Change {
  replaced: Values;
  grown: unknown[];
  replaceAt: number;
  removeAt: number;
  edit: 'grow' | 'replace' | 'remove' | 'reverse' | 'keep';
}
const change: fc.Arbitrary<Change> = fc.record({
  replaced: fc.dictionary(key, json, { maxKeys: 2 }),
  grown: fc.array(json, { maxLength: 4 }),
  replaceAt: fc.nat(),
  removeAt: fc.nat(),
  edit: fc.constantFrom('grow', 'replace', 'remove', 'reverse', 'keep'),
});

function next(before: Values, step: Change): Values {
  const after: Values = { ...before, ...step.replaced };
  const list = Array.isArray(after.docs) ? (after.docs as unknown[]) : [];
  if (step.edit === 'grow') after.docs = [...list, ...step.grown];
  else if (step.edit === 'replace' && list.length > 0)
    after.docs = list.map((element, i) => (i === step.replaceAt % list.length ? step.grown : element));
  else if (step.edit === 'remove' && list.length > 0) after.docs = list.filter((_, i) => i !== step.removeAt % list.length);
  else if (step.edit === 'reverse') after.docs = [...list].reverse();
  return after;
}

function itemsDatabase(): { items: ValueItems; threadId: string; db: Database.Database } {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db);
  const threadId = '0e1c7a52-8b1f-4d3a-9e6f-2a4b6c8d0e1f';
  db.prepare(
    "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, status, metadata, config) VALUES (?, 'now', 'now', 'now', 'idle', '{}', '{}')",
  ).run(threadId);
  return { items: new ValueItems(db), threadId, db };
}

const answerText = (answer: string | Uint8Array[]) => (typeof answer === 'string' ? answer : Buffer.concat(answer).toString('utf8'));

describe('stored values', () => {
  it('read back as their canonical text, answer as JSON.stringify, and hash as the filter index, along any chain of changes', () => {
    fc.assert(
      // A list starts inline (the values then stored whole, unless another key is an item) or, longer
      // than INLINE_LIST_CHARS, as items; growing may carry it from the one to the other.
      fc.property(values, fc.array(change, { maxLength: 6 }), fc.boolean(), (first, changes, long) => {
        const { items, threadId, db } = itemsDatabase();
        try {
          let current: Values = { ...first, docs: [{ z: 1, a: 2 }, 'x'.repeat(long ? INLINE_LIST_CHARS : 150)] };
          let manifest = '';
          for (const step of [undefined, ...changes]) {
            const base = current;
            if (step) current = next(current, step);
            const stored = items.write(threadId, current, step ? base : undefined);
            manifest = items.manifest(stored);
            // Read back as the whole canonical text parsed would be, key order included, whether or
            // not a write may follow the read.
            const whole = JSON.stringify(JSON.parse(canonicalJson(current)));
            expect(JSON.stringify(items.read(threadId, manifest))).toBe(whole);
            expect(JSON.stringify(items.read(threadId, manifest, false))).toBe(whole);
            // As one string, and as bytes (what a long list's answer is), kept from one answer to the next.
            expect(answerText(answerOf(current, stored))).toBe(JSON.stringify(current));
            expect(answerText(answerOf(current, stored, 0))).toBe(JSON.stringify(current));
            // And the answer read back from its manifest.
            expect(items.readAnswer(threadId, items.answerManifest(threadId, current)).text).toBe(JSON.stringify(current));
            for (const k of Object.keys(current)) expect(keyHash(stored.keys.get(k)!)).toBe(valueHash(current[k]));
          }
        } finally {
          db.close();
        }
      }),
      { numRuns: 300 },
    );
    // 300 generated chains, 1.6 s alone and 33 s on CI's busy cores: the limit only catches a hang.
  }, 180_000);

  it('writes a list grown at its end as the new elements only, continuing its ranges, text, hash and bytes', () => {
    const items: NewItem[] = [];
    let seq = 0;
    const allocate = () => ++seq;
    // Long enough that the answer is written from the list's kept bytes.
    const message = (i: number) => ({ content: `message ${i}`.padEnd(2000, '.'), id: `m-${i}`, type: 'human' });
    let list = Array.from({ length: 40 }, (_, i) => message(i));
    let stored = layOut({ messages: list }, undefined, allocate, items);
    keyHash(stored.keys.get('messages')!);
    answerOf({ messages: list }, stored);
    for (let i = 40; i < 80; i++) {
      list = [...list, message(i)];
      items.length = 0;
      stored = layOut({ messages: list }, stored, allocate, items);
      expect(items.map((item) => item.seq)).toEqual([i + 1]);
      const messages = stored.keys.get('messages')!;
      expect(messages.layout).toEqual({ kind: 'list', ranges: [1, i + 1] });
      // The hash and bytes were carried on, not made again from the whole list.
      expect(messages.hashing).toBeDefined();
      expect(messages.bytes).toBeDefined();
      expect(keyHash(messages)).toBe(valueHash(list));
      expect(answerText(answerOf({ messages: list }, stored))).toBe(JSON.stringify({ messages: list }));
    }
  });

  it('keeps every view of growing bytes as it was: appends go after it, or, from an older view, into a copy', () => {
    const first = GrowingBytes.of('[1');
    const second = first.append(',2');
    const views = [first.view, second.view];
    const third = second.append(',3');
    // A fork: appended to the second view again, after the third took the room behind it.
    const fork = second.append(',9');
    const longer = third.append(`,${'4'.repeat(10_000)}`);
    expect([...views, third.view, fork.view].map((view) => view.toString())).toEqual(['[1', '[1,2', '[1,2,3', '[1,2,9']);
    expect(longer.view.toString()).toBe(`[1,2,3,${'4'.repeat(10_000)}`);
    expect(views[1]!.toString()).toBe('[1,2');
  });
});
