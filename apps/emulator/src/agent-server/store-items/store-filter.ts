// A store search's `filter` (StoreItemSearch in the spec): each given top-level field of an item's
// value must deep-equal the value given, or satisfy its operators when the value given is an
// object of operators only.
import { canonicalJson } from '../../shared/canonical-json.js';

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);

type Json = unknown;

const equal = (a: Json, b: Json) => canonicalJson(a) === canonicalJson(b);

/** `a` before (-1), equal to (0) or after (1) `b`, when both are numbers or both strings; else undefined. */
function order(a: Json, b: Json): number | undefined {
  if ((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string'))
    return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

function isOperatorObject(value: Json): value is Record<string, Json> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => OPERATORS.has(key));
}

function satisfies(present: boolean, actual: Json, operator: string, operand: Json): boolean {
  const compared = present ? order(actual, operand) : undefined;
  switch (operator) {
    case '$eq':
      return present && equal(actual, operand);
    case '$ne':
      return !present || !equal(actual, operand);
    case '$gt':
      return compared !== undefined && compared > 0;
    case '$gte':
      return compared !== undefined && compared >= 0;
    case '$lt':
      return compared !== undefined && compared < 0;
    case '$lte':
      return compared !== undefined && compared <= 0;
    case '$in':
      return present && Array.isArray(operand) && operand.some((candidate) => equal(actual, candidate));
    default: // $nin
      return !present || !Array.isArray(operand) || !operand.some((candidate) => equal(actual, candidate));
  }
}

/** Whether an item's value matches every field of the filter. */
export function matchesStoreFilter(value: Record<string, unknown>, filter: Record<string, Json>): boolean {
  return Object.entries(filter).every(([field, wanted]) => {
    const present = Object.hasOwn(value, field);
    if (isOperatorObject(wanted))
      return Object.entries(wanted).every(([operator, operand]) => satisfies(present, value[field], operator, operand));
    return present && equal(value[field], wanted);
  });
}
