// --only and --skip: which checks a run includes, by check id, area, operation id or spec tag.
import type { ApiName } from './model.js';
import { operationsOf } from './spec.js';

export class ConformanceUsageError extends Error {
  override readonly name = 'ConformanceUsageError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export interface Selectable {
  id: string;
  api: ApiName;
  area: string;
  operations: string[];
}

export interface Selection {
  only: string[];
  skip: string[];
}

/**
 * The names a selector may use for a check: its id and area, and the operation it is about (the
 * first it lists) or, with `all`, every operation it calls, with their tags.
 */
function namesOf(item: Selectable, all = true): Set<string> {
  const operations = all ? item.operations : item.operations.slice(0, 1);
  const names = new Set([item.id, item.area, ...operations]);
  for (const operationId of operations) for (const tag of operationsOf(item.api).get(operationId)?.tags ?? []) names.add(tag);
  return new Set([...names].map((name) => name.toLowerCase()));
}

/** Refuses a selector that names nothing a run has, listing what it could name. */
export function checkSelectors(selection: Selection, items: readonly Selectable[]): void {
  const known = new Set(items.flatMap((item) => [...namesOf(item)]));
  for (const [flag, values] of [
    ['--only', selection.only],
    ['--skip', selection.skip],
  ] as const) {
    for (const value of values) {
      if (!known.has(value.toLowerCase()))
        throw new ConformanceUsageError(
          `${flag} ${JSON.stringify(value)} names no check, area, operation or tag`,
          `use an operation id (getThread), a tag (Threads, "Thread State"), an area (search) or a check id (search:sort); known: ${[
            ...new Set(items.flatMap((item) => item.operations)),
          ].join(', ')}.`,
        );
    }
  }
}

/**
 * Whether a run includes a check: with --only, when its id, area, or the operation it is about (or
 * that operation's tag) is listed; never when --skip lists its id, area, or any operation it calls
 * (or their tags), so that skipping an operation a server lacks never calls it.
 */
export function isSelected(item: Selectable, selection: Selection): boolean {
  const listed = (values: string[], names: Set<string>) => values.some((value) => names.has(value.toLowerCase()));
  if (selection.only.length > 0 && !listed(selection.only, namesOf(item, false))) return false;
  return !listed(selection.skip, namesOf(item));
}
