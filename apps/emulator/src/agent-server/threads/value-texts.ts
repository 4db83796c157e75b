// The canonical text of a values object key by key, continued from the values it was made from
// (decision E13): the texts of the layouts the store writes (store/stored-values.ts, decision E29),
// without their items. A key whose value is the very same object keeps its text, a list the same
// elements start keeps the text of those elements and serialises only what was added, so a state
// update of a long conversation writes out only its new messages.
import type { StoredValues } from '../../store/stored-values.js';
import { keyText, layOut } from '../../store/stored-values.js';

type Values = Record<string, unknown>;

export interface ValuesText {
  /** Each key's canonical text, in canonical (sorted) key order. */
  entries: [key: string, text: string][];
  /** The values in canonical form, to keep: what a read of the stored text gives back. */
  canonical: Values;
}

export class ValueTexts {
  private readonly layouts = new WeakMap<Values, StoredValues>();

  /**
   * The canonical text of `values` key by key; `before`, when given, is the values they were made
   * from (values or a `canonical` this class returned), whose texts are reused where they hold.
   */
  of(values: Values, before?: Values): ValuesText {
    let numbered = 0;
    // Every list laid out as items (none inline), so that the next call continues its text.
    const stored = layOut(values, before && this.layouts.get(before), () => ++numbered, [], { chars: 0, listChars: 0 });
    this.layouts.set(values, stored);
    this.layouts.set(stored.canonical, stored);
    return { entries: [...stored.keys].map(([key, value]) => [key, keyText(value)]), canonical: stored.canonical };
  }
}
