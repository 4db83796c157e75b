// The items stored values are made of (decision E28, migration 13's `checkpoint_items`), and what
// the store knows of the values objects it wrote or read. A checkpoint's values, and a run's
// answer, are a manifest naming items of their thread (store/stored-values.ts); this file writes
// the new items a layout needs, reads values back from a manifest, copies a thread's items with
// it, and deletes the items no manifest names any more.
//
// Each values object written or read is remembered (weakly, with its canonical form) with its
// layout: the next checkpoint written after it reuses its items where it holds the same objects,
// its keys' value hashes continue from its own, and a run's answer that is those values names
// the same items. Layouts name items by number within their thread: one is only reused for
// the thread it was made for.

import { JsonText } from '../../contract/json-text.js';
import { valueHash } from '../../shared/canonical-json.js';
import type { Db } from '../../store/database.js';
import type { ManifestEntry, NewItem, StoredValues } from '../../store/stored-values.js';
import {
  answerManifestOf,
  answerOf,
  flat,
  keyHash,
  layOut,
  manifestOf,
  parseManifest,
  storedFromRead,
  valuesText,
} from '../../store/stored-values.js';

type Values = Record<string, unknown>;

export class ValueItems {
  private readonly statements;
  private readonly known = new WeakMap<object, StoredValues>();

  constructor(db: Db) {
    this.statements = {
      insert: db.prepare('INSERT INTO checkpoint_items (thread_id, channel, seq, text) VALUES (?, ?, ?, ?)'),
      lastSeq: db.prepare('SELECT max(seq) FROM checkpoint_items WHERE thread_id = ? AND channel = ?').pluck(),
      // A range's texts joined by SQLite in item order, and how many there were: a range read
      // short (an item missing) is a broken store, never a shorter list.
      range: db
        .prepare(
          "SELECT count(*), group_concat(text, ',' ORDER BY seq) FROM checkpoint_items WHERE thread_id = ? AND channel = ? AND seq BETWEEN ? AND ?",
        )
        .raw(),
      one: db.prepare('SELECT text FROM checkpoint_items WHERE thread_id = ? AND channel = ? AND seq = ?').pluck(),
      copy: db.prepare(
        'INSERT INTO checkpoint_items (thread_id, channel, seq, text) SELECT ?, channel, seq, text FROM checkpoint_items WHERE thread_id = ?',
      ),
      channels: db.prepare('SELECT DISTINCT channel FROM checkpoint_items WHERE thread_id = ?').pluck(),
      deleteChannel: db.prepare('DELETE FROM checkpoint_items WHERE thread_id = ? AND channel = ?'),
      deleteBetween: db.prepare('DELETE FROM checkpoint_items WHERE thread_id = ? AND channel = ? AND seq BETWEEN ? AND ?'),
    };
  }

  /**
   * Writes the items `values` need beyond those of `base` (the values of the checkpoint they
   * follow, when the store wrote or read them for this thread), and returns their layout.
   */
  write(threadId: string, values: Values, base?: Values): StoredValues {
    const known = base && this.known.get(base);
    const next = new Map<string, number>();
    const allocate = (channel: string) => {
      const seq = next.get(channel) ?? ((this.statements.lastSeq.get(threadId, channel) as number | null) ?? 0) + 1;
      next.set(channel, seq + 1);
      return seq;
    };
    const items: NewItem[] = [];
    const stored = layOut(values, known?.thread === threadId ? known : undefined, allocate, items);
    for (const item of items) this.statements.insert.run(threadId, item.channel, item.seq, item.text);
    stored.thread = threadId;
    this.remember(values, stored);
    return stored;
  }

  /** The values a checkpoint's manifest describes, in canonical form (remembered for the next write). */
  read(threadId: string, manifest: string): Values {
    const entries = parseManifest(manifest);
    const texts = entries.map((entry) => this.entryText(threadId, entry));
    const values = JSON.parse(valuesText(entries, texts)) as Values;
    const stored = storedFromRead(entries, texts, values);
    stored.thread = threadId;
    this.remember(values, stored);
    return values;
  }

  /** The manifest of values the store wrote. */
  manifest(stored: StoredValues): string {
    return manifestOf(stored);
  }

  /** The manifest of a run's answer: `values` as its waiters got them, naming the thread's items where it can. */
  answerManifest(threadId: string, values: Values): string {
    const known = this.known.get(values);
    return answerManifestOf(values, known?.thread === threadId ? known : undefined);
  }

  /**
   * A run's answer of `values`, as JSON text: JSON.stringify's, written from the stored texts (and
   * a long list's kept bytes) of the keys that hold the thread's values as stored.
   */
  answer<Body>(threadId: string, values: Values): JsonText<Body> {
    const known = this.known.get(values);
    return new JsonText(answerOf(values, known?.thread === threadId ? known : undefined));
  }

  /** A run's answer from its manifest, as its waiters got it: its JSON text. */
  readAnswer<Body>(threadId: string, manifest: string): JsonText<Body> {
    const entries = parseManifest(manifest);
    const texts = entries.map((entry) => this.entryText(threadId, entry));
    return new JsonText(flat(valuesText(entries, texts)));
  }

  /** The value hash of `values[key]` (the filter-key index's), continued from its layout when the store knows it. */
  hashOf(values: Values, key: string): string {
    const value = values[key];
    const stored = this.known.get(values)?.keys.get(key);
    return stored && (value === stored.source || value === stored.canonical) ? keyHash(stored) : valueHash(value);
  }

  /** What the store knows of a values object it wrote or read. */
  storedOf(values: Values): StoredValues | undefined {
    return this.known.get(values);
  }

  /** Copies a thread's items to its copy, under the same numbers (its manifests are copied as they are). */
  copy(sourceId: string, copyId: string): void {
    this.statements.copy.run(copyId, sourceId);
  }

  /** Deletes the thread's items that none of `manifests` names (checkpoints or answers went away). */
  collect(threadId: string, manifests: Iterable<string>): void {
    const live = new Map<string, [number, number][]>();
    for (const manifest of manifests)
      for (const [key, kind, where] of parseManifest(manifest)) {
        if (kind === 'j') continue;
        let ranges = live.get(key);
        if (!ranges) {
          ranges = [];
          live.set(key, ranges);
        }
        if (kind === 'v') ranges.push([where, where]);
        else for (let i = 0; i < where.length; i += 2) ranges.push([where[i]!, where[i + 1]!]);
      }
    const s = this.statements;
    for (const channel of s.channels.all(threadId) as string[]) {
      const ranges = live.get(channel);
      if (!ranges) {
        s.deleteChannel.run(threadId, channel);
        continue;
      }
      ranges.sort((a, b) => a[0] - b[0]);
      let from = Number.MIN_SAFE_INTEGER;
      for (const [first, last] of ranges) {
        if (first > from) s.deleteBetween.run(threadId, channel, from, first - 1);
        from = Math.max(from, last + 1);
      }
      s.deleteBetween.run(threadId, channel, from, Number.MAX_SAFE_INTEGER);
    }
  }

  private remember(values: Values, stored: StoredValues): void {
    this.known.set(values, stored);
    this.known.set(stored.canonical, stored);
  }

  /** An entry's text: inline, one item's, or a list's items' (without its closing bracket). */
  private entryText(threadId: string, [key, kind, where]: ManifestEntry): string {
    if (kind === 'j') return where;
    if (kind === 'v') {
      const text = this.statements.one.get(threadId, key, where) as string | undefined;
      if (text === undefined) throw missingItems(threadId, key, where, where);
      return text;
    }
    const parts: string[] = [];
    for (let i = 0; i < where.length; i += 2) {
      const [first, last] = [where[i]!, where[i + 1]!];
      const [count, joined] = this.statements.range.get(threadId, key, first, last) as [number, string | null];
      if (count !== last - first + 1) throw missingItems(threadId, key, first, last);
      parts.push(joined!);
    }
    return `[${parts.join(',')}`;
  }
}

function missingItems(threadId: string, channel: string, first: number, last: number): Error {
  return new Error(`thread ${threadId}: the stored items ${first}-${last} of "${channel}" are missing`);
}
