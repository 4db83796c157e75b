// The items stored values are made of (decision E29, migration 15's `checkpoint_items`), and what
// the store knows of the values objects it wrote or read. A checkpoint's values, and a run's
// answer, are a manifest naming items of their thread (store/stored-values.ts); this file writes
// the new items a layout needs, reads values back from a manifest, copies a thread's items with
// it, and deletes the items no manifest names any more.
//
// Each values object written, or read to be written after, carries its layout (and so does its
// canonical form), in a hidden property that goes with it: the next checkpoint written after it
// reuses its items where it holds the same objects, its keys' value hashes continue from its own,
// and a run's answer that is those values names the same items. Layouts name items by number
// within their thread: one is only reused for the thread it was made for.

import { JsonText } from '../../contract/json-text.js';
import { setOwn, valueHash } from '../../shared/canonical-json.js';
import type { Db } from '../../store/database.js';
import type { ManifestEntry, NewItem, StoredKey, StoredValues } from '../../store/stored-values.js';
import {
  answerManifestOf,
  answerOf,
  answerText,
  flat,
  keyHash,
  layOut,
  manifestOf,
  parseManifest,
  storedFromEntry,
} from '../../store/stored-values.js';

type Values = Record<string, unknown>;

export class ValueItems {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      insert: db.prepare('INSERT INTO checkpoint_items (thread_id, channel, seq, text) VALUES (?, ?, ?, ?)'),
      lastSeq: db.prepare('SELECT max(seq) FROM checkpoint_items WHERE thread_id = ? AND channel = ?').pluck(),
      // A range's texts, in item order (the primary key's): one read short (an item missing) is a
      // broken store, never a shorter list.
      range: db
        .prepare('SELECT text FROM checkpoint_items WHERE thread_id = ? AND channel = ? AND seq BETWEEN ? AND ? ORDER BY seq')
        .pluck(),
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
    const known = base && layoutOf(base);
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

  /**
   * The values a checkpoint's manifest describes, in canonical form (remembered for the next
   * write): its inline values as the manifest's parse gave them, its items' parsed from their
   * texts, each key set in the manifest's (sorted) order, so that they read as the whole canonical
   * text parsed did. `base`: whether a write may follow these values, which then reuses their items.
   */
  read(threadId: string, manifest: string, base = true): Values {
    const parsed = parseManifest(manifest);
    if ('whole' in parsed) {
      if (base) this.remember(parsed.whole, wholeLayout(parsed.whole, threadId));
      return parsed.whole;
    }
    const values: Values = {};
    const keys = new Map<string, StoredKey>();
    for (const entry of parsed) {
      const text = this.entryText(threadId, entry);
      const value = entry[1] === 'j' ? entry[2] : JSON.parse(entry[1] === 'l' ? `${text}]` : text!);
      const key = entry[0];
      // A plain assignment keeps the object fast for V8; only `__proto__` needs defining.
      if (key === '__proto__') setOwn(values, key, value);
      else values[key] = value;
      if (base) keys.set(key, storedFromEntry(entry, value, text));
    }
    // Values no write will follow (a page of history) are not remembered: each costs a property.
    if (base) this.remember(values, { keys, canonical: values, thread: threadId });
    return values;
  }

  /** The manifest of values the store wrote. */
  manifest(stored: StoredValues): string {
    return manifestOf(stored);
  }

  /** The manifest of a run's answer: `values` as its waiters got them, naming the thread's items where it can. */
  answerManifest(threadId: string, values: Values): string {
    const known = layoutOf(values);
    return answerManifestOf(values, known?.thread === threadId ? known : undefined);
  }

  /**
   * A run's answer of `values`, as JSON text: JSON.stringify's, written from the stored texts (and
   * a long list's kept bytes) of the keys that hold the thread's values as stored.
   */
  answer<Body>(threadId: string, values: Values): JsonText<Body> {
    const known = layoutOf(values);
    return new JsonText(answerOf(values, known?.thread === threadId ? known : undefined));
  }

  /** A run's answer from its manifest, as its waiters got it: its JSON text. */
  readAnswer<Body>(threadId: string, manifest: string): JsonText<Body> {
    // An answer naming no item is stored as its text.
    if (manifest.startsWith('{')) return new JsonText(manifest);
    const entries = parseManifest(manifest) as ManifestEntry[];
    const texts = entries.map((entry) => this.entryText(threadId, entry));
    return new JsonText(flat(answerText(entries, texts)));
  }

  /** The value hash of `values[key]` (the filter-key index's), continued from its layout when the store knows it. */
  hashOf(values: Values, key: string): string {
    const value = values[key];
    const stored = layoutOf(values)?.keys.get(key);
    return stored && (value === stored.source || value === stored.canonical) ? keyHash(stored) : valueHash(value);
  }

  /** What the store knows of a values object it wrote or read. */
  storedOf(values: Values): StoredValues | undefined {
    return layoutOf(values);
  }

  /** Copies a thread's items to its copy, under the same numbers (its manifests are copied as they are). */
  copy(sourceId: string, copyId: string): void {
    this.statements.copy.run(copyId, sourceId);
  }

  /** Deletes the thread's items that none of `manifests` names (checkpoints or answers went away). */
  collect(threadId: string, manifests: Iterable<string>): void {
    const live = new Map<string, [number, number][]>();
    for (const manifest of manifests) {
      const parsed = parseManifest(manifest);
      if ('whole' in parsed) continue;
      for (const [key, kind, where] of parsed) {
        if (kind === 'j') continue;
        let ranges = live.get(key);
        if (!ranges) {
          ranges = [];
          live.set(key, ranges);
        }
        if (kind === 'v') ranges.push([where, where]);
        else for (let i = 0; i < where.length; i += 2) ranges.push([where[i]!, where[i + 1]!]);
      }
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
    remember(values, stored);
    remember(stored.canonical, stored);
  }

  /** The text of an entry's items: one item's, or a list's (without its closing bracket); none for an inline value. */
  private entryText(threadId: string, [key, kind, where]: ManifestEntry): string | undefined {
    if (kind === 'j') return undefined;
    if (kind === 'v') {
      const text = this.statements.one.get(threadId, key, where) as string | undefined;
      if (text === undefined) throw missingItems(threadId, key, where, where);
      return text;
    }
    const parts: string[] = [];
    for (let i = 0; i < where.length; i += 2) {
      const [first, last] = [where[i]!, where[i + 1]!];
      const texts = this.statements.range.all(threadId, key, first, last) as string[];
      if (texts.length !== last - first + 1) throw missingItems(threadId, key, first, last);
      parts.push(texts.join(','));
    }
    return `[${parts.join(',')}`;
  }
}

/** The layout of values stored whole: every key inline. */
function wholeLayout(values: Values, threadId: string): StoredValues {
  const keys = new Map<string, StoredKey>();
  for (const key of Object.keys(values).sort()) keys.set(key, { layout: { kind: 'inline' }, source: values[key], canonical: values[key] });
  return { keys, canonical: values, thread: threadId };
}

/**
 * Where a values object's layout is kept: a property of the object itself, under a symbol and not
 * enumerable, so that neither JSON, nor a spread, nor a key walk sees it. (A WeakMap was the first
 * home: every state read then left an entry for the collector to trace.)
 */
const LAYOUT = Symbol('stored layout');

function layoutOf(values: Values): StoredValues | undefined {
  return (values as { [LAYOUT]?: StoredValues })[LAYOUT];
}

function remember(values: Values, stored: StoredValues): void {
  if (Object.hasOwn(values, LAYOUT)) (values as { [LAYOUT]?: StoredValues })[LAYOUT] = stored;
  else Object.defineProperty(values, LAYOUT, { value: stored, writable: true, configurable: true, enumerable: false });
}

function missingItems(threadId: string, channel: string, first: number, last: number): Error {
  return new Error(`thread ${threadId}: the stored items ${first}-${last} of "${channel}" are missing`);
}
