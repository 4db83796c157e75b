// The canonical text of each key of the values the store last wrote for a thread, kept with the
// values object the latest-checkpoint cache holds (decision E13). A state update changes a key or
// two and appends to the message list: the texts of the keys it left alone are reused as they
// are, and a message list it appended to is the old text with the new messages added. On a
// 100-message conversation, serialising and checking the whole list again was a third of an
// update's time in process. Stored values never change (the cache shares them read-only), so a
// text once taken stays right; the texts go with their values object when the cache lets it go.
import { canonicalJson, inCanonicalForm, setOwn } from '../../shared/canonical-json.js';

type Values = Record<string, unknown>;

export interface ValuesText {
  /** Each key's canonical text, in canonical (sorted) key order. */
  entries: [key: string, text: string][];
  /** The values in canonical form, to keep: what a read of the stored text gives back. */
  canonical: Values;
}

export class ValueTexts {
  private readonly texts = new WeakMap<Values, Map<string, string>>();

  /**
   * The canonical text of `values` key by key; `before`, when given, is the values they were made
   * from (a checkpoint's this class returned as `canonical`), whose texts are reused where they hold.
   */
  of(values: Values, before?: Values): ValuesText {
    const known = before && this.texts.get(before);
    const entries: [string, string][] = [];
    const canonical: Values = {};
    for (const key of Object.keys(values).sort()) {
      const value = values[key];
      const reused = known && reuse(known.get(key), before![key], value);
      entries.push([key, reused ? reused.text : canonicalJson(value)]);
      const kept = reused ? reused.value : inCanonicalForm(value);
      // A plain assignment keeps the object fast for V8; only `__proto__` needs defining.
      if (key === '__proto__') setOwn(canonical, key, kept);
      else canonical[key] = kept;
    }
    this.texts.set(canonical, new Map(entries));
    return { entries, canonical };
  }
}

/**
 * The text of `after` from the text of `before`: the same when it is the very same value (kept
 * by the merge), the old text with the new elements when `after` is `before`'s elements, the very
 * same ones, followed by more. Undefined otherwise.
 */
function reuse(text: string | undefined, before: unknown, after: unknown): { text: string; value: unknown } | undefined {
  if (text === undefined) return undefined;
  if (after === before) return { text, value: after };
  if (!Array.isArray(before) || !Array.isArray(after) || after.length <= before.length) return undefined;
  for (let i = 0; i < before.length; i++) if (after[i] !== before[i]) return undefined;
  const added = after.slice(before.length).map(inCanonicalForm);
  const addedText = added.map(canonicalJson).join(',');
  // An array's canonical text is its elements' texts, comma-separated, in brackets.
  return { text: before.length === 0 ? `[${addedText}]` : `${text.slice(0, -1)},${addedText}]`, value: [...before, ...added] };
}
