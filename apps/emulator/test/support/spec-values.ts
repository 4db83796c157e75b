// Values derived from the bundled specs' schemas, for the generative tests: values a schema
// accepts (`validValue`), values it refuses one constraint at a time (`invalidValue`), and
// numbers written as raw JSON text (`RawNumber`) for the literals JavaScript cannot hold
// (`1E400`, `9223372036854775807`). Nothing here knows an operation or a field by name.
import { resolveRef } from '@agentplane/openapi-toolkit';
import fc from 'fast-check';

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';
export const JSON_TYPES: JsonType[] = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];

/** The JSON types a schema accepts (through $ref, enum, const, oneOf/anyOf); all when it does not say. */
export function acceptedTypes(spec: any, node: any): Set<JsonType> {
  const schema = resolveRef(spec, node);
  if (!schema || typeof schema !== 'object') return new Set(JSON_TYPES);
  if (schema.type) {
    const types = new Set<JsonType>([schema.type].flat());
    if (types.has('number')) types.add('integer');
    return types;
  }
  const valueType = (v: unknown): JsonType =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : (typeof v as JsonType);
  if (schema.enum) return new Set(schema.enum.map(valueType));
  if ('const' in schema) return new Set([valueType(schema.const)]);
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return new Set(branches.flatMap((b: any) => [...acceptedTypes(spec, b)]));
  if (schema.allOf) {
    const typed = schema.allOf.map((b: any) => acceptedTypes(spec, b)).find((t: Set<JsonType>) => t.size < JSON_TYPES.length);
    if (typed) return typed;
  }
  return new Set(JSON_TYPES);
}

export const jsonScalar = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));
export const smallJson = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const ofType: Record<JsonType, fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 30 }),
  integer: fc.integer(),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  boolean: fc.boolean(),
  object: fc.dictionary(fc.string({ maxLength: 8 }), jsonScalar, { maxKeys: 3 }),
  array: fc.array(jsonScalar, { maxLength: 3 }),
  null: fc.constant(null),
};

/** Values of a JSON type the schema does not accept, or null when it accepts every type. */
function wrongTypeValue(spec: any, node: any): fc.Arbitrary<unknown> | null {
  const accepted = acceptedTypes(spec, node);
  const wrong = JSON_TYPES.filter((t) => !accepted.has(t) && !(t === 'integer' && accepted.has('number')));
  return wrong.length ? fc.oneof(...wrong.map((t) => ofType[t])) : null;
}

export function isUuidFormat(s: string): boolean {
  return /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(s);
}

export const notUuid = fc
  .oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '',
      'null',
      '0',
      'not-a-uuid',
      '1f0c9e4e-2b7a-4d3e-9c5a-6f1d2e3b4a5',
      '1f0c9e4e-2b7a-4d3e-9c5a-6f1d2e3b4a59x',
      'g1f0c9e4-2b7a-4d3e-9c5a-6f1d2e3b4a59',
      '{1f0c9e4e-2b7a-4d3e-9c5a-6f1d2e3b4a59}',
      '1f0c9e4e2b7a4d3e9c5a6f1d2e3b4a59',
      'urn:uuid:zz',
      ' 1f0c9e4e-2b7a-4d3e-9c5a-6f1d2e3b4a59',
    ),
    fc.uuid().map((u) => `${u.slice(0, 8)}_${u.slice(9)}`),
  )
  .filter((s) => !isUuidFormat(s));

/**
 * A number written in a body exactly as given: JSON text JavaScript cannot produce from a number
 * (`1E400` parses to Infinity, `9223372036854775807` loses its last digits).
 */
export class RawNumber {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `\u0000raw:${this.text}\u0000`;
  }
}

/** JSON text of a value, with every RawNumber written as its own text. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000raw:([^"\\]+)\\u0000"/g, '$1');
}

/** Integer literals at and past the limits of what a JSON number or SQLite holds, as raw text. */
export const EXTREME_NUMBERS = [
  '9007199254740992',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '1e308',
  '-1e308',
  '1E400',
  '-1E400',
  '1e-400',
  `1${'0'.repeat(400)}`,
];

/** Numbers past a bounded integer's range, as raw text: the next integer out, and the extremes. */
function outOfRange(schema: any): fc.Arbitrary<unknown> {
  const literals = EXTREME_NUMBERS.filter((text) => {
    const value = Number(text);
    return (
      !Number.isFinite(value) || !Number.isInteger(value) || value > (schema.maximum ?? Infinity) || value < (schema.minimum ?? -Infinity)
    );
  });
  const options: fc.Arbitrary<unknown>[] = [fc.constantFrom(...literals.map((text) => new RawNumber(text)))];
  if (typeof schema.maximum === 'number') options.push(fc.constant(new RawNumber(String(BigInt(schema.maximum) + 1n))));
  if (typeof schema.minimum === 'number') options.push(fc.constant(new RawNumber(String(BigInt(schema.minimum) - 1n))));
  return fc.oneof(...options);
}

/**
 * Values the schema refuses (beyond a wrong type): out of range (the next integer out, and the
 * extremes), not integer, bad format, not in the enum, too short or long, not matching the
 * pattern, bad items, unknown nested fields.
 */
export function invalidValue(spec: any, node: any, depth = 0, withWrongType = true): fc.Arbitrary<unknown> | null {
  const schema = resolveRef(spec, node);
  const options: fc.Arbitrary<unknown>[] = [];
  const wrongType = withWrongType ? wrongTypeValue(spec, schema) : null;
  if (wrongType) options.push(wrongType);
  const types = acceptedTypes(spec, schema);
  if (types.has('integer') && !types.has('number')) {
    if (typeof schema.minimum === 'number') options.push(fc.integer({ min: -1e9, max: schema.minimum - 1 }));
    if (typeof schema.maximum === 'number' && schema.maximum < 2 ** 31) options.push(fc.integer({ min: schema.maximum + 1, max: 2 ** 31 }));
    if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number') options.push(outOfRange(schema));
    options.push(fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((n) => !Number.isInteger(n)));
  }
  if (types.has('string')) {
    if (schema.format === 'uuid') options.push(notUuid);
    if (schema.enum) options.push(fc.string({ maxLength: 20 }).filter((s) => !schema.enum.includes(s)));
    if (typeof schema.minLength === 'number' && schema.minLength > 0) options.push(fc.constant(''));
    if (typeof schema.maxLength === 'number')
      options.push(fc.string({ minLength: schema.maxLength + 1, maxLength: schema.maxLength + 20 }));
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern, 'u');
      options.push(
        fc
          .oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('UPPER', '-x', 'a b', 'ä', '1abc', 'x/y'))
          .filter((s) => !pattern.test(s)),
      );
    }
  }
  if (schema.enum && !types.has('string')) options.push(fc.constant('not-in-the-enum'));
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches && depth < 3) {
    // An object branch with a bad field (a nullable object, or one of several object forms); the
    // branch's own wrong types may be another branch's right ones, so those come from the union.
    for (const branch of branches) {
      const resolved = resolveRef(spec, branch);
      if (resolved?.type === 'object' || resolved?.properties) {
        const inner = invalidValue(spec, resolved, depth + 1, false);
        if (inner) options.push(inner);
      }
    }
  }
  if (schema.type === 'array' && schema.items && depth < 3) {
    const item = invalidValue(spec, schema.items, depth + 1);
    if (item)
      options.push(
        fc.tuple(item, fc.nat(2)).map(([bad, at]) => [...Array.from({ length: at }, () => validExampleOf(spec, schema.items)), bad]),
      );
    if (typeof schema.maxItems === 'number' && schema.maxItems <= 1000) {
      const valid = validExampleOf(spec, schema.items);
      if (valid !== undefined) options.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, () => valid)));
    }
  }
  if ((schema.type === 'object' || schema.properties) && depth < 3) {
    if (schema.additionalProperties === false) {
      const known = new Set(Object.keys(schema.properties ?? {}));
      options.push(
        fc
          .tuple(
            fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !known.has(k)),
            jsonScalar,
          )
          .map(([k, v]) => ({ [k]: v })),
      );
    }
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const bad = invalidValue(spec, property, depth + 1);
      if (bad) options.push(bad.map((v) => ({ [name]: v })));
    }
  }
  return options.length ? fc.oneof(...options) : null;
}

/** A minimal value the schema accepts, for padding arrays around a bad item. */
export function validExampleOf(spec: any, node: any): unknown {
  const schema = resolveRef(spec, node);
  if (schema.example !== undefined) return schema.example;
  if (schema.format === 'uuid') return crypto.randomUUID();
  if (schema.enum) return schema.enum[0];
  const types = acceptedTypes(spec, schema);
  if (types.has('string')) return 'x';
  if (types.has('integer')) return schema.minimum ?? 1;
  if (types.has('object')) {
    return Object.fromEntries((schema.required ?? []).map((name: string) => [name, validExampleOf(spec, schema.properties?.[name] ?? {})]));
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Valid values.

/** Free-form JSON as a client may store it: nested a little, any well-formed text, finite numbers. */
const freeJson = fc.jsonValue({ maxDepth: 2, stringUnit: 'grapheme' }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const freeKey = fc.oneof(fc.string({ maxLength: 10, unit: 'grapheme' }), fc.constantFrom('__proto__', 'constructor', 'messages', 'a.b'));

/**
 * Values a schema accepts, boundaries included (minimum, maximum, maxLength). Best effort for
 * the cross-field rules (`if`/`then` is applied where its `if` holds); the caller filters with the
 * spec's own validator, so what this gets wrong is discarded, never sent as valid.
 */
export function validValue(spec: any, node: any, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveRef(spec, node) ?? {};
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return fc.oneof(...branches.map((branch: any) => validValue(spec, branch, depth + 1)));
  const types = [schema.type ?? (schema.properties ? 'object' : undefined)].flat().filter(Boolean) as JsonType[];
  if (types.length === 0) return depth > 3 ? fc.constant(null) : freeJson;
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue(spec, { ...schema, type }, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerIn(schema.minimum, schema.maximum);
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringFor(schema);
    case 'array': {
      const item = validValue(spec, schema.items ?? {}, depth + 1);
      const min = schema.minItems ?? 0;
      const lengths = { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 3, 3)) };
      // Items equal as JSON are what uniqueItems forbids.
      return schema.uniqueItems === true
        ? fc.uniqueArray(item, { ...lengths, selector: (value) => JSON.stringify(value) })
        : fc.array(item, lengths);
    }
    default:
      return objectFor(spec, schema, depth);
  }
}

function integerIn(minimum: number | undefined, maximum: number | undefined): fc.Arbitrary<number> {
  const min = minimum ?? -1_000_000;
  const max = maximum ?? 1_000_000;
  const small = fc.integer({ min, max: Math.min(max, min + 1000) });
  const wide = fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) });
  return fc.oneof({ weight: 4, arbitrary: small }, { weight: 2, arbitrary: wide }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
}

function stringFor(schema: any): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 40;
  if (schema.format === 'uuid')
    return fc.oneof(
      { weight: 6, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
      { weight: 1, arbitrary: fc.uuid().map((u) => `urn:uuid:${u}`) },
    );
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (schema.format === 'uri') return fc.webUrl();
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => [...s].length >= minLength && [...s].length <= maxLength && s.isWellFormed());
  }
  const text = (min: number, max: number) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: max }) },
      { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }) },
    );
  const short = text(minLength, Math.min(maxLength, Math.max(minLength, 20))).filter(
    (s) => [...s].length >= minLength && [...s].length <= maxLength,
  );
  if (schema.maxLength === undefined) return short;
  // The longest text the schema accepts, counted in code points as JSON Schema counts them (valid
  // as it is made). One value in seven for a short limit; a long one (a message's content takes a
  // million code points, 2 MB of JSON) one in a hundred: at one in seven, 4% of the bodies of a
  // thread with supersteps were megabytes and made most of the fuzz's time, in the generator, in
  // the emulator, and in every search and copy of the threads they left.
  const rare = maxLength > 4096;
  return fc.oneof({ weight: rare ? 99 : 6, arbitrary: short }, { weight: 1, arbitrary: fc.constant('ü'.repeat(maxLength)) });
}

function objectFor(spec: any, schema: any, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, any> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const known = Object.keys(properties);
  const declared =
    known.length === 0
      ? fc.constant({})
      : fc.record(Object.fromEntries(known.map((name) => [name, validValue(spec, properties[name], depth + 1)])), {
          requiredKeys: known.filter((name) => required.has(name)),
        });
  const open = schema.additionalProperties !== false && schema.unevaluatedProperties !== false;
  const extra = open && depth < 3 ? fc.dictionary(freeKey, freeJson, { maxKeys: 3 }) : fc.constant({});
  const conditionals = (schema.allOf ?? []).map((entry: any) => resolveRef(spec, entry)).filter((entry: any) => entry?.if && entry?.then);
  return fc.tuple(declared, extra).chain(([own, more]) => {
    const value: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(more)) if (!known.includes(key)) setOwn(value, key, item);
    Object.assign(value, own);
    return applyConditionals(spec, value, properties, conditionals, depth);
  });
}

/**
 * Where an `if` of the schema's allOf holds for the value, the `then` is made to hold too: each
 * field it constrains is generated again from both the property's schema and the `then`'s.
 */
function applyConditionals(
  spec: any,
  value: Record<string, unknown>,
  properties: Record<string, any>,
  conditionals: any[],
  depth: number,
): fc.Arbitrary<Record<string, unknown>> {
  const holding = conditionals.filter((entry) => matchesIf(spec, entry.if, value));
  if (holding.length === 0) return fc.constant(value);
  const constrained: Record<string, fc.Arbitrary<unknown>> = {};
  for (const entry of holding) {
    for (const [name, constraint] of Object.entries<any>(entry.then.properties ?? {})) {
      const merged = mergeSchemas(spec, properties[name] ?? {}, constraint);
      if (value[name] !== undefined || (entry.then.required ?? []).includes(name)) constrained[name] = validValue(spec, merged, depth + 1);
    }
  }
  return fc.record(constrained).map((fields) => ({ ...value, ...fields }));
}

/** Whether a value meets an `if` made of `required` and `const`/`pattern` properties (the forms the specs use). */
function matchesIf(spec: any, condition: any, value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if ((condition.required ?? []).some((name: string) => record[name] === undefined)) return false;
  return Object.entries<any>(condition.properties ?? {}).every(([name, sub]) => {
    const field = record[name];
    if (field === undefined) return true;
    const resolved = resolveRef(spec, sub);
    if ('const' in resolved && field !== resolved.const) return false;
    if (resolved.pattern && !(typeof field === 'string' && new RegExp(resolved.pattern).test(field))) return false;
    if (resolved.type === 'string' && typeof field !== 'string') return false;
    return resolved.properties || resolved.required ? matchesIf(spec, resolved, field) : true;
  });
}

/** The schema both `a` and `b` describe, for the forms the specs combine (types, properties, required). */
function mergeSchemas(spec: any, a: any, b: any): any {
  const left = resolveRef(spec, a) ?? {};
  const right = resolveRef(spec, b) ?? {};
  const merged: any = { ...left, ...right };
  if (left.type && right.type) {
    const types = [left.type].flat().filter((t: string) => [right.type].flat().includes(t));
    merged.type = types.length === 1 ? types[0] : types;
  }
  if (left.required || right.required) merged.required = [...new Set([...(left.required ?? []), ...(right.required ?? [])])];
  if (left.properties || right.properties) {
    merged.properties = { ...left.properties };
    for (const [name, sub] of Object.entries<any>(right.properties ?? {}))
      merged.properties[name] = left.properties?.[name] ? mergeSchemas(spec, left.properties[name], sub) : sub;
  }
  // A nullable object (oneOf [object, null]) merged with object constraints is the object.
  if (left.oneOf && (right.properties || right.required)) {
    const object = left.oneOf.map((branch: any) => resolveRef(spec, branch)).find((branch: any) => branch.type === 'object');
    delete merged.oneOf;
    return mergeSchemas(spec, object, right);
  }
  return merged;
}

/** Sets a key as the object's own, `__proto__` included. */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
}
