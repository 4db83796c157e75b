// How a checkpoint's values are stored (decision E29): by what changed, not whole. A thread's
// values are written as items, each once, and a checkpoint keeps a small manifest saying which
// items make up each key:
//
// - a list (a message list, an `append` channel) is one item per element, numbered per thread and
//   key in the order they were first written, so the manifest of a list that only grew is one
//   range (`[1, 1200]`) however long it is; a message replaced or removed by ID makes one more
//   range, not a copy of the list;
// - any other value larger than INLINE_CHARS is one item; a smaller one, and a list of at most
//   INLINE_LIST_CHARS that is not items yet, is written into the manifest itself, as JSON.
// Values that name no item (a short thread's) are stored whole, their canonical text as before,
// and read with one parse, as they always were; a manifest naming items is a list of entries.
//
// A key whose value is the very same object as in the checkpoint it follows (a merge keeps the
// untouched keys' values, a reducer keeps the elements it did not change) keeps that checkpoint's
// items: object identity says "unchanged", because stored values are never modified in place (the
// latest-checkpoint cache shares them read-only). An element or value not found that way is
// written as a new item: a value made equal by other means is stored again, which costs bytes,
// never correctness.
//
// Items hold canonical JSON (keys sorted, decision E13), so the values a manifest describes read
// back as the same text the whole values were stored as before: an object of its keys' texts, a
// list the texts of its elements. Pure: the items' SQL is agent-server/threads/value-items.ts, and
// migration 15 (checkpoint-values-conversion.ts) lays out what older emulators stored whole.
import type { Hash } from 'node:crypto';
import { createHash } from 'node:crypto';
import { canonicalJson, inCanonicalForm, inCanonicalOrder, setOwn, textHash } from '../shared/canonical-json.js';
import { GrowingBytes } from './growing-bytes.js';

type Values = Record<string, unknown>;

/**
 * Values whose canonical text is at most this long are written into the manifest: an item row
 * costs its key and index entry (about 90 bytes), more than a number, a status or an ID.
 */
export const INLINE_CHARS = 128;

/**
 * A list stays in the manifest until its text is longer than this, then becomes items for good: a
 * short conversation is read and written as whole values were (a range of items costs a query per
 * read), and its repetition is bounded by this, per checkpoint.
 */
export const INLINE_LIST_CHARS = 4096;

/** What is written into the manifest: values whose text is at most `chars`, lists at most `listChars` that are not items yet. */
export interface Inline {
  chars: number;
  listChars: number;
}

/** An item to write: an element of a list key, or a whole value, under its key (`channel`). */
export interface NewItem {
  channel: string;
  seq: number;
  text: string;
}

/** How one key's value is stored. `ranges` are inclusive pairs of item numbers: [first, last, first, last, ...]. */
export type KeyLayout = { kind: 'inline' } | { kind: 'item'; seq: number } | { kind: 'list'; ranges: number[] };

/** One key of stored values: where its value is, the value, and what is known of its text. */
export interface StoredKey {
  layout: KeyLayout;
  /** The value as it was given (or read): the object later values are compared with. */
  source: unknown;
  /** The value in canonical form: what a read of the stored text gives back. */
  canonical: unknown;
  /**
   * The canonical text; a list's without its closing bracket, so that an append adds to it (known
   * for a list; for another value, written out when first asked for: `textOf`).
   */
  text?: string;
  /** SHA-1 state of `text` so far (lists), kept so that an append hashes only what it adds. */
  hashing?: Hash;
  hash?: string;
  /** Whether JSON.stringify writes `canonical` as `text` (no integer-like key out of sorted order, anywhere). */
  plain?: boolean;
  /** A list's `text` as UTF-8 bytes, once a run answered with it: an append adds to them in place. */
  bytes?: GrowingBytes;
}

/** A values object as stored: each key in canonical (sorted) order, and the values in canonical form. */
export interface StoredValues {
  keys: Map<string, StoredKey>;
  canonical: Values;
  /** The thread whose items the layout names (items are numbered per thread). */
  thread?: string;
  /** The manifest's text, once asked for. */
  manifest?: string;
}

/** A manifest entry: a key and where its value is (the value itself, one item, or ranges of items). */
export type ManifestEntry =
  | [key: string, kind: 'j', value: unknown]
  | [key: string, kind: 'v', seq: number]
  | [key: string, kind: 'l', ranges: number[]];

/**
 * Lays `values` out as stored, reusing what `base` (the values of the checkpoint they follow)
 * stored where they hold the very same objects. `allocate(key)` gives the next item number of a
 * key; the items to write are added to `items`.
 */
export function layOut(
  values: Values,
  base: StoredValues | undefined,
  allocate: (channel: string) => number,
  items: NewItem[],
  inline: Inline = { chars: INLINE_CHARS, listChars: INLINE_LIST_CHARS },
): StoredValues {
  const keys = new Map<string, StoredKey>();
  const canonical: Values = {};
  for (const key of Object.keys(values).sort()) {
    const value = values[key];
    const before = base?.keys.get(key);
    let stored: StoredKey;
    if (before && (value === before.source || value === before.canonical)) stored = before;
    else if (Array.isArray(value)) stored = layOutList(key, value, before, allocate, items, inline.listChars);
    else {
      const kept = inCanonicalForm(value);
      const text = canonicalJson(kept);
      if (text.length <= inline.chars) stored = { layout: { kind: 'inline' }, source: value, canonical: kept, text };
      else {
        const seq = allocate(key);
        items.push({ channel: key, seq, text });
        stored = { layout: { kind: 'item', seq }, source: value, canonical: kept, text };
      }
    }
    keys.set(key, stored);
    // A plain assignment keeps the object fast for V8; only `__proto__` needs defining.
    if (key === '__proto__') setOwn(canonical, key, stored.canonical);
    else canonical[key] = stored.canonical;
  }
  return { keys, canonical };
}

/**
 * A list key: the elements found in the base's list keep their items, the others are new items.
 * When the list is the base's elements, in order, then more (an append), its text, hash state and
 * ranges continue the base's; otherwise they are worked out again.
 */
function layOutList(
  channel: string,
  list: unknown[],
  before: StoredKey | undefined,
  allocate: (channel: string) => number,
  items: NewItem[],
  inlineChars: number,
): StoredKey {
  const reusable = before?.layout.kind === 'list' ? before : undefined;
  if (!reusable) return freshList(channel, list, allocate, items, inlineChars);
  const baseText = openText(reusable);
  const baseSource = reusable.source as unknown[];
  const baseCanonical = reusable.canonical as unknown[];
  const baseLength = baseCanonical.length;
  let positions: Map<unknown, number> | undefined;
  const canonical = new Array<unknown>(list.length);
  const seqs = new Array<number>(list.length);
  const added: string[] = [];
  let addedPlain = true;
  let appended = list.length >= baseLength;
  for (let i = 0; i < list.length; i++) {
    const element = list[i];
    let at = -1;
    if (i < baseLength && (element === baseSource[i] || element === baseCanonical[i])) at = i;
    else if (i < baseLength || positions !== undefined) {
      // The list changed within the base's length (a message replaced or removed): its other
      // elements are found wherever they are. Past it, after a plain prefix, elements are new.
      positions ??= positionsOf(baseSource, baseCanonical);
      at = positions.get(element) ?? -1;
    }
    if (at >= 0) {
      if (at !== i || i >= baseLength) appended = false;
      canonical[i] = baseCanonical[at];
      seqs[i] = -1 - at; // resolved below, once the base's numbers are needed
    } else {
      if (i < baseLength) appended = false;
      const kept = inCanonicalForm(element);
      const text = canonicalJson(kept);
      const seq = allocate(channel);
      items.push({ channel, seq, text });
      canonical[i] = kept;
      seqs[i] = seq;
      added.push(text);
      if (addedPlain && !inCanonicalOrder(kept)) addedPlain = false;
    }
  }
  const stored: StoredKey = { layout: { kind: 'list', ranges: [] }, source: list, canonical, text: '' };
  if (appended) {
    // The base's ranges, then the new items' numbers (consecutive, as allocated).
    const ranges = [...(reusable.layout as { ranges: number[] }).ranges];
    for (let i = baseLength; i < list.length; i++) extendRanges(ranges, seqs[i]!);
    stored.layout = { kind: 'list', ranges };
    const more = added.join(',');
    stored.text = added.length === 0 ? baseText : `${baseText}${baseLength === 0 ? '' : ','}${more}`;
    const appendedText = `${baseLength === 0 ? '' : ','}${more}`;
    if (reusable.hashing) stored.hashing = added.length === 0 ? reusable.hashing : reusable.hashing.copy().update(appendedText);
    if (reusable.bytes) stored.bytes = added.length === 0 ? reusable.bytes : reusable.bytes.append(appendedText);
    if (added.length === 0 && reusable.hash !== undefined) stored.hash = reusable.hash;
    if (reusable.plain !== undefined) stored.plain = reusable.plain && addedPlain;
    return stored;
  }
  const baseSeqs = expandRanges((reusable.layout as { ranges: number[] }).ranges);
  const ranges: number[] = [];
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i]!;
    extendRanges(ranges, seq < 0 ? baseSeqs[-1 - seq]! : seq);
  }
  stored.layout = { kind: 'list', ranges };
  stored.text = openListText(canonical);
  return stored;
}

/** A list with no stored list before it: inline when short, else an item per element. */
function freshList(
  channel: string,
  list: unknown[],
  allocate: (channel: string) => number,
  items: NewItem[],
  inlineChars: number,
): StoredKey {
  const canonical = list.map(inCanonicalForm);
  const texts = canonical.map(canonicalJson);
  const open = `[${texts.join(',')}`;
  if (open.length + 1 <= inlineChars) return { layout: { kind: 'inline' }, source: list, canonical, text: `${open}]` };
  const ranges: number[] = [];
  for (const text of texts) {
    const seq = allocate(channel);
    items.push({ channel, seq, text });
    extendRanges(ranges, seq);
  }
  return { layout: { kind: 'list', ranges }, source: list, canonical, text: open };
}

function positionsOf(source: readonly unknown[], canonical: readonly unknown[]): Map<unknown, number> {
  const positions = new Map<unknown, number>();
  // The first occurrence wins: a list holding an element twice keeps both at the first's item.
  for (let i = canonical.length - 1; i >= 0; i--) {
    positions.set(source[i], i);
    positions.set(canonical[i], i);
  }
  return positions;
}

/** The ranges of a list of item numbers. */
export function rangesOf(seqs: readonly number[]): number[] {
  const ranges: number[] = [];
  for (const seq of seqs) extendRanges(ranges, seq);
  return ranges;
}

/** Appends item `seq` to `ranges`, extending the last range when it follows it. */
function extendRanges(ranges: number[], seq: number): void {
  const last = ranges.length - 1;
  if (last > 0 && ranges[last] === seq - 1) ranges[last] = seq;
  else ranges.push(seq, seq);
}

/** Every item number the ranges hold, in order. */
export function expandRanges(ranges: readonly number[]): number[] {
  const seqs: number[] = [];
  for (let i = 0; i < ranges.length; i += 2) for (let seq = ranges[i]!; seq <= ranges[i + 1]!; seq++) seqs.push(seq);
  return seqs;
}

/** A list's canonical text without its closing bracket. */
function openListText(canonical: readonly unknown[]): string {
  return `[${canonical.map(canonicalJson).join(',')}`;
}

/** The canonical text of a stored key's value. */
export function keyText(stored: StoredKey): string {
  return stored.layout.kind === 'list' ? `${openText(stored)}]` : textOf(stored);
}

/** A list of items' text without its closing bracket (kept from its writing or its read). */
function openText(stored: StoredKey): string {
  stored.text ??= openListText(stored.canonical as unknown[]);
  return stored.text;
}

/** The canonical text of a stored key that is not a list of items, written out the first time it is asked for. */
function textOf(stored: StoredKey): string {
  stored.text ??= canonicalJson(stored.canonical);
  return stored.text;
}

/** The key's value hash (shared/canonical-json.ts's valueHash), a list's continued from its last append. */
export function keyHash(stored: StoredKey): string {
  if (stored.hash !== undefined) return stored.hash;
  if (stored.layout.kind !== 'list') {
    stored.hash = textHash(textOf(stored));
    return stored.hash;
  }
  stored.hashing ??= createHash('sha1').update(openText(stored));
  stored.hash = stored.hashing.copy().update(']').digest('base64url');
  return stored.hash;
}

/** Whether JSON.stringify of the key's canonical value writes its canonical text. */
export function isPlain(stored: StoredKey): boolean {
  stored.plain ??= inCanonicalOrder(stored.canonical);
  return stored.plain;
}

/** The manifest of stored values, in their (canonical) key order: JSON, its inline values written as they are. */
export function manifestOf(stored: StoredValues): string {
  if (stored.manifest === undefined) {
    const entries: string[] = [];
    let whole = true;
    for (const value of stored.keys.values()) whole &&= value.layout.kind === 'inline';
    for (const [key, value] of stored.keys)
      entries.push(whole ? `${JSON.stringify(key)}:${keyText(value)}` : entryText(key, value, keyText));
    // Values with no item are stored whole, their canonical text as checkpoints always held it.
    stored.manifest = whole ? `{${entries.join(',')}}` : `[${entries.join(',')}]`;
  }
  return stored.manifest;
}

/** A manifest entry's JSON text; an inline value's text is `inlineText`'s. */
function entryText(key: string, stored: StoredKey, inlineText: (stored: StoredKey) => string): string {
  const { layout } = stored;
  const name = JSON.stringify(key);
  if (layout.kind === 'inline') return `[${name},"j",${inlineText(stored)}]`;
  if (layout.kind === 'item') return `[${name},"v",${layout.seq}]`;
  return `[${name},"l",[${layout.ranges.join(',')}]]`;
}

/**
 * The manifest of a run's answer, `values` as its waiters were answered (JSON.stringify's key
 * order and text): a key whose value is the stored canonical value, and which JSON.stringify
 * writes as its canonical text, points at the stored items; any other is written out.
 */
export function answerManifestOf(values: Values, stored: StoredValues | undefined): string {
  // An answer that names no item is stored as its text.
  if (!answerParts(values, stored, (_, known) => known !== undefined && known.layout.kind !== 'inline').includes(true))
    return JSON.stringify(values);
  const entries = answerParts(values, stored, (key, known, value) =>
    known ? entryText(key, known, keyText) : `[${JSON.stringify(key)},"j",${JSON.stringify(value)}]`,
  );
  return `[${entries.join(',')}]`;
}

/** From this many characters on, a list's text is answered from its kept bytes; below it, joined into the answer's string. */
const BYTES_FROM_CHARS = 64 * 1024;

/**
 * JSON.stringify(values), written from the stored texts of the keys that hold the values as stored
 * (as answerManifestOf names them): a string, or, once a list's text is long, UTF-8 bytes in parts,
 * the list's from its bytes kept and grown in place from one answer to the next (growing-bytes.ts).
 * Either way the conversation a long thread's answer repeats is neither serialised nor copied again.
 */
export function answerOf(values: Values, stored: StoredValues | undefined, bytesFromChars = BYTES_FROM_CHARS): string | Uint8Array[] {
  const parts: (string | Uint8Array)[] = [];
  let pending = '{';
  let first = true;
  let bytes = false;
  answerParts(values, stored, (key, known, value) => {
    pending += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (known?.layout.kind === 'list' && (known.bytes || openText(known).length >= bytesFromChars)) {
      known.bytes ??= GrowingBytes.of(openText(known));
      parts.push(pending, known.bytes.view);
      pending = ']';
      bytes = true;
    } else pending += known ? keyText(known) : JSON.stringify(value);
  });
  parts.push(`${pending}}`);
  if (bytes) return parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part));
  return flat(parts.join(''));
}

/**
 * `text`, made flat. V8 keeps a string built by concatenation as a tree of its parts (a list's
 * text grows by one append per checkpoint); measuring its UTF-8 length and writing it to a socket
 * then walk that tree a character at a time, where a flat string is copied. Reading a character
 * of a tree makes V8 flatten it, once.
 */
export function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/** Each key JSON.stringify writes of `values`, with its stored key where it holds that value as stored, in its text. */
function answerParts<Part>(
  values: Values,
  stored: StoredValues | undefined,
  part: (key: string, known: StoredKey | undefined, value: unknown) => Part,
): Part[] {
  const parts: Part[] = [];
  for (const key of Object.keys(values)) {
    const value = values[key];
    // JSON.stringify leaves out what JSON cannot hold.
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const known = stored?.keys.get(key);
    parts.push(part(key, known && sameAsStored(value, known) && isPlain(known) ? known : undefined, value));
  }
  return parts;
}

/** Whether `value` is the key's stored canonical value, or a list of its very elements. */
function sameAsStored(value: unknown, stored: StoredKey): boolean {
  if (value === stored.canonical) return true;
  if (stored.layout.kind !== 'list' || !Array.isArray(value)) return false;
  const canonical = stored.canonical as unknown[];
  if (value.length !== canonical.length) return false;
  for (let i = 0; i < value.length; i++) if (value[i] !== canonical[i]) return false;
  return true;
}

/** A manifest's entries, checked to be what manifestOf and answerManifestOf write. */
export function parseManifest(text: string): ManifestEntry[] | { whole: Values } {
  const parsed = JSON.parse(text) as unknown;
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { whole: parsed as Values };
  if (!Array.isArray(parsed) || !parsed.every(isEntry)) throw new Error(`not a stored values manifest: ${text.slice(0, 200)}`);
  return parsed;
}

function isEntry(entry: unknown): entry is ManifestEntry {
  if (!Array.isArray(entry) || entry.length !== 3 || typeof entry[0] !== 'string') return false;
  const [, kind, where] = entry;
  if (kind === 'j') return true;
  if (kind === 'v') return Number.isInteger(where);
  return kind === 'l' && Array.isArray(where) && where.length % 2 === 0;
}

/** A key as a read found it: its layout, its value (source and canonical form at once) and, for items, their text. */
export function storedFromEntry([, kind, where]: ManifestEntry, value: unknown, text: string | undefined): StoredKey {
  const layout: KeyLayout =
    kind === 'j' ? { kind: 'inline' } : kind === 'v' ? { kind: 'item', seq: where } : { kind: 'list', ranges: where };
  return { layout, source: value, canonical: value, ...(text === undefined ? {} : { text }) };
}

/**
 * The JSON text of an answer's manifest, in entry order: an inline value written out (JSON.stringify
 * writes a value read from its text as that text), an item's text, a list's items' (`texts[i]`,
 * a list's without its closing bracket).
 */
export function answerText(entries: readonly ManifestEntry[], texts: readonly (string | undefined)[]): string {
  const parts = entries.map(
    ([key, kind, where], i) => `${JSON.stringify(key)}:${kind === 'j' ? JSON.stringify(where) : `${texts[i]}${kind === 'l' ? ']' : ''}`}`,
  );
  return `{${parts.join(',')}}`;
}

/** The characters the values' canonical text takes (what the latest-checkpoint cache counts). */
export function storedChars(stored: StoredValues): number {
  let chars = 2;
  // Bytes kept for answers count too: the cache's budget is the memory the values hold.
  for (const [key, value] of stored.keys) chars += key.length + 4 + keyText(value).length + (value.bytes?.capacity ?? 0);
  return chars;
}
