// Migration 15's data conversion (decision E29): the checkpoint values older emulators stored
// whole, one full copy per checkpoint, laid out as items and manifests, as the store writes them
// now; and the runs' answers that are a thread's values, as manifests naming the same items.
//
// The store finds what a checkpoint shares with its parent by object identity (stored-values.ts);
// values read from text share no object, so each thread's values are interned by their canonical
// text first: every element (and every whole value) with the same text under a key becomes one
// object, and the layout of a checkpoint then reuses its parent's items wherever the texts agree.
// What a checkpoint's values read back as is their text before, byte for byte: items hold canonical
// JSON, as the whole values did.
import type Database from 'better-sqlite3';
import { canonicalJson } from '../shared/canonical-json.js';
import type { ManifestEntry, NewItem, StoredValues } from './stored-values.js';
import { layOut, manifestOf, rangesOf } from './stored-values.js';

type Values = Record<string, unknown>;

/** Layouts kept per thread for the checkpoints that follow them; an older parent (a fork far back) is laid out afresh. */
const RECENT_LAYOUTS = 64;

export function convertCheckpointValues(db: Database.Database): void {
  const statements = {
    threads: db.prepare('SELECT DISTINCT thread_id FROM checkpoints').pluck(),
    checkpoints: db.prepare(
      'SELECT checkpoint_id, parent_checkpoint_id, "values" FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id',
    ),
    setManifest: db.prepare('UPDATE checkpoints SET value_refs = ? WHERE thread_id = ? AND checkpoint_id = ?'),
    insertItem: db.prepare('INSERT INTO checkpoint_items (thread_id, channel, seq, text) VALUES (?, ?, ?, ?)'),
    answers: db.prepare('SELECT run_id, outcome FROM runs WHERE thread_id = ? AND outcome IS NOT NULL'),
    setAnswer: db.prepare('UPDATE runs SET outcome = NULL, outcome_values = ? WHERE run_id = ?'),
  };
  for (const threadId of statements.threads.all() as string[]) {
    const thread = new ThreadConversion();
    const rows = statements.checkpoints.all(threadId) as { checkpoint_id: string; parent_checkpoint_id: string | null; values: string }[];
    for (const row of rows) {
      const items: NewItem[] = [];
      const stored = thread.layOut(row.checkpoint_id, row.parent_checkpoint_id, JSON.parse(row.values) as Values, items);
      for (const item of items) statements.insertItem.run(threadId, item.channel, item.seq, item.text);
      statements.setManifest.run(manifestOf(stored), threadId, row.checkpoint_id);
    }
    for (const run of statements.answers.all(threadId) as { run_id: string; outcome: string }[]) {
      const manifest = thread.answerManifest(JSON.parse(run.outcome));
      if (manifest !== undefined) statements.setAnswer.run(manifest, run.run_id);
    }
  }
}

/** One thread's conversion: its interned values, its items by text, and the layouts of its latest checkpoints. */
class ThreadConversion {
  private readonly interned = new Map<string, Map<string, unknown>>();
  /** The item each text of a key was first written as. */
  private readonly itemOfText = new Map<string, Map<string, number>>();
  private readonly nextSeq = new Map<string, number>();
  private readonly recent = new Map<string, StoredValues>();

  layOut(checkpointId: string, parentId: string | null, values: Values, items: NewItem[]): StoredValues {
    const shared: Values = {};
    for (const key of Object.keys(values)) {
      const value = values[key];
      const kept = Array.isArray(value) ? value.map((element) => this.intern(key, element)) : this.intern(key, value);
      Object.defineProperty(shared, key, { value: kept, enumerable: true, writable: true, configurable: true });
    }
    const allocate = (channel: string) => {
      const seq = this.nextSeq.get(channel) ?? 1;
      this.nextSeq.set(channel, seq + 1);
      return seq;
    };
    const written: NewItem[] = [];
    const stored = layOut(shared, parentId === null ? undefined : this.recent.get(parentId), allocate, written);
    for (const item of written) {
      let texts = this.itemOfText.get(item.channel);
      if (!texts) {
        texts = new Map();
        this.itemOfText.set(item.channel, texts);
      }
      if (!texts.has(item.text)) texts.set(item.text, item.seq);
      items.push(item);
    }
    this.recent.set(checkpointId, stored);
    if (this.recent.size > RECENT_LAYOUTS) this.recent.delete(this.recent.keys().next().value!);
    return stored;
  }

  /**
   * The manifest of a run's answer stored whole (JSON.stringify's text), naming the items whose
   * text it holds; undefined for an answer that names none, or is no thread's values (an error,
   * interrupts).
   */
  answerManifest(answer: unknown): string | undefined {
    if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return undefined;
    const keys = Object.keys(answer);
    if (keys.length === 1 && (keys[0] === '__error__' || keys[0] === '__interrupt__')) return undefined;
    const entries: ManifestEntry[] = keys.map((key) => {
      const value = (answer as Values)[key];
      const texts = this.itemOfText.get(key);
      if (Array.isArray(value) && value.length > 0) {
        const seqs = value.map((element) => texts?.get(JSON.stringify(element)));
        if (seqs.every((seq) => seq !== undefined)) return [key, 'l', rangesOf(seqs as number[])];
      } else if (!Array.isArray(value)) {
        const seq = texts?.get(JSON.stringify(value));
        if (seq !== undefined) return [key, 'v', seq];
      }
      return [key, 'j', value];
    });
    // An answer that names no item stays as it was.
    return entries.some(([, kind]) => kind !== 'j') ? JSON.stringify(entries) : undefined;
  }

  /** The one object standing for every value with this canonical text under `key`. */
  private intern(key: string, value: unknown): unknown {
    let byText = this.interned.get(key);
    if (!byText) {
      byText = new Map();
      this.interned.set(key, byText);
    }
    const text = canonicalJson(value);
    const known = byText.get(text);
    if (known !== undefined || byText.has(text)) return known;
    byText.set(text, value);
    return value;
  }
}
