// Property-based fuzzing of both APIs (fast-check, fixed seed: a failure prints the seed and the
// shrunk counterexample; rerun it with FUZZ_SEED=<seed>). Thousands of generated requests, most
// of them invalid: wrong types, missing and extra fields, bad UUIDs in the path and the body,
// out-of-range numbers, bad enums, non-object bodies, invalid JSON, wrong or missing content
// types, deep and huge bodies, bad credentials, random methods and paths. The properties:
//
// - never a 5xx, and never a contract violation reported by the emulator itself;
// - every 4xx is JSON: `{detail: string}`, the sandbox pool's `{detail: {error, message}}`, or an
//   HTTPValidationError (checked with the spec's own schema) whose `loc`s start with
//   body/path/query; an invalid value gets a 422 naming it.
//
// Valid-but-random requests (creates, searches, history reads, deployments) must succeed, and
// their answers are checked against a small reference model: search and history filters return
// exactly the matching records, pages have the right size, supersteps give the right values.
//
// Which operations exist, which fields they take, their types, ranges, formats and enums all come
// from the bundled specs, so a new operation or field is fuzzed without touching this file.

import { listOperations, resolveRef } from '@agentplane/openapi-toolkit';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiName, RawRequest, RawResponse, TestEmulator } from './support/harness.js';
import { jsonRequest, rawRequest, rawSocketExchange, specOf, startTestEmulator } from './support/harness.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_120);
const MAX_BODY = 10 * 1024 * 1024;
const SPECS = { 'agent-server': specOf('agent-server'), 'control-plane': specOf('control-plane') } as const;
type Operation = ReturnType<typeof listOperations>[number];

let emulator: TestEmulator;
let apiKey: string;
const sent: Record<ApiName, number> = { 'agent-server': 0, 'control-plane': 0 };
/** Real IDs, so that a request whose only fault is the fuzzed one reaches its handler. */
const ids: Record<string, string> = {};

const baseUrl = (api: ApiName) => (api === 'agent-server' ? emulator.agentServerUrl : emulator.controlPlaneUrl);

/** Sends a request; control-plane requests carry the default tenant's key unless told not to. */
async function send(api: ApiName, request: RawRequest, options: { defaultCredential?: boolean } = {}): Promise<RawResponse> {
  sent[api]++;
  const withKey = api === 'control-plane' && options.defaultCredential !== false && !('x-api-key' in (request.headers ?? {}));
  return rawRequest(baseUrl(api), { ...request, headers: { ...(withKey ? { 'x-api-key': apiKey } : {}), ...request.headers } });
}

const describeExchange = (request: RawRequest, response: RawResponse) =>
  `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers ?? {})} ${String(request.body ?? '').slice(0, 300)}\n→ ${response.status} ${response.text.slice(0, 500)}`;

/** The property every answer must have, whatever was sent. Returns the validation issues of a 422. */
function expectWellFormed(
  api: ApiName,
  request: RawRequest,
  response: RawResponse,
): { loc: (string | number)[]; type: string; msg: string }[] {
  const where = describeExchange(request, response);
  const { validate } = SPECS[api];
  expect(response.status, where).toBeGreaterThanOrEqual(200);
  expect(response.status, where).toBeLessThan(500);
  if (response.status < 400) return [];
  if (request.method === 'HEAD') {
    expect(response.text, where).toBe('');
    return [];
  }
  expect(response.headers['content-type'], where).toMatch(/^application\/json\b/);
  expect(response.json, where).toBeDefined();
  const body = response.json as { detail: unknown };
  if (response.status === 405) expect(response.headers.allow, where).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
  if (response.status === 422) {
    expect(validate('#/components/schemas/HTTPValidationError', body).errors, where).toBe('');
    const issues = body.detail as { loc: (string | number)[]; type: string; msg: string }[];
    expect(issues.length, where).toBeGreaterThan(0);
    for (const issue of issues) expect(['body', 'path', 'query'], where).toContain(issue.loc[0]);
    return issues;
  }
  if (typeof body.detail === 'object' && body.detail !== null) {
    // Only the sandbox pool's 404 has an object detail.
    expect({ status: response.status, route: request.path.startsWith('/v2/sandboxes/pools/') }, where).toEqual({
      status: 404,
      route: true,
    });
    expect(validate('#/components/schemas/SandboxPoolNotFoundError', body).errors, where).toBe('');
    return [];
  }
  expect(validate('#/components/schemas/ErrorDetail', body).errors, where).toBe('');
  return [];
}

/** A 422 with at least one issue at `prefix` (or below it). */
function expect422At(api: ApiName, request: RawRequest, response: RawResponse, prefix: (string | number)[], type?: string): void {
  const issues = expectWellFormed(api, request, response);
  const where = describeExchange(request, response);
  expect(response.status, where).toBe(422);
  const matching = issues.filter((issue) => prefix.every((part, i) => issue.loc[i] === part) && (!type || issue.type === type));
  expect(matching.length, `${where}\nexpected an issue at ${JSON.stringify(prefix)}${type ? ` of type ${type}` : ''}`).toBeGreaterThan(0);
}

// ---------------------------------------------------------------------------------------------
// What the specs say about each operation.

interface OperationInfo {
  api: ApiName;
  op: Operation;
  pathParams: any[];
  queryParams: any[];
  /** The resolved request body schema, or null. */
  body: { schema: any; required: boolean; example: unknown } | null;
}

function operationsOf(api: ApiName): OperationInfo[] {
  const { spec } = SPECS[api];
  return listOperations(spec).map((op) => {
    const requestBody = op.operation.requestBody ? resolveRef(spec, op.operation.requestBody) : null;
    const media = requestBody?.content?.['application/json'];
    const example = media?.examples ? resolveRef(spec, Object.values(media.examples)[0]).value : {};
    return {
      api,
      op,
      pathParams: op.parameters.filter((p: any) => p.in === 'path'),
      queryParams: op.parameters.filter((p: any) => p.in === 'query'),
      body: requestBody ? { schema: resolveRef(spec, media.schema), required: requestBody.required === true, example } : null,
    };
  });
}

const OPERATIONS = [...operationsOf('agent-server'), ...operationsOf('control-plane')];
const WITH_BODY = OPERATIONS.filter((o) => o.body);
const WITH_PATH_PARAMS = OPERATIONS.filter((o) => o.pathParams.length > 0);

function pathOf(info: OperationInfo, overrides: Record<string, string> = {}): string {
  let path = info.op.path;
  for (const parameter of info.pathParams) {
    const value = overrides[parameter.name] ?? ids[parameter.name] ?? String(parameter.example);
    path = path.replace(`{${parameter.name}}`, overrides[parameter.name] !== undefined ? value : encodeURIComponent(value));
  }
  return path;
}

/** A valid body for the operation (its first example), unique where uniqueness matters. */
function validBody(info: OperationInfo): Record<string, unknown> {
  const body = structuredClone(info.body!.example) as Record<string, unknown>;
  if (info.op.operationId === 'createDeployment') body.name = `fuzz-${crypto.randomUUID()}`;
  if (info.op.operationId === 'createThread') delete body.thread_id;
  return body;
}

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';
const JSON_TYPES: JsonType[] = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];

/** The JSON types a schema accepts (through $ref, enum, const, oneOf/anyOf); all when it does not say. */
function acceptedTypes(spec: any, node: any): Set<JsonType> {
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

const jsonScalar = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));
const smallJson = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
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

const notUuid = fc
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

function isUuidFormat(s: string): boolean {
  return /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(s);
}

/**
 * Values the schema refuses (beyond a wrong type): out of range, not integer, bad format, not in
 * the enum, too short or long, not matching the pattern, bad items, unknown nested fields.
 */
function invalidValue(spec: any, node: any, depth = 0, withWrongType = true): fc.Arbitrary<unknown> | null {
  const schema = resolveRef(spec, node);
  const options: fc.Arbitrary<unknown>[] = [];
  const wrongType = withWrongType ? wrongTypeValue(spec, schema) : null;
  if (wrongType) options.push(wrongType);
  const types = acceptedTypes(spec, schema);
  if (types.has('integer') && !types.has('number')) {
    if (typeof schema.minimum === 'number') options.push(fc.integer({ min: -1e9, max: schema.minimum - 1 }), fc.constant(-1e300));
    if (typeof schema.maximum === 'number') options.push(fc.integer({ min: schema.maximum + 1, max: 2 ** 53 }), fc.constant(1e300));
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
function validExampleOf(spec: any, node: any): unknown {
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
// Invalid requests: each case is a request and what its answer must be.

interface Case {
  api: ApiName;
  request: RawRequest;
  /** false: send no credential beyond the request's own headers. */
  defaultCredential?: boolean;
  check(response: RawResponse): void;
}

const pick = <T>(items: T[]) => fc.constantFrom(...items);

/** Every top-level body field of every operation, with the values its schema refuses. */
const FIELD_MUTATIONS = WITH_BODY.flatMap((info) =>
  Object.entries(info.body!.schema.properties ?? {}).flatMap(([name, schema]) => {
    const bad = invalidValue(SPECS[info.api].spec, schema);
    return bad ? [{ info, name, bad }] : [];
  }),
);

/** One top-level field of a valid body replaced by a value its schema refuses. */
const badFieldCase: fc.Arbitrary<Case> = pick(FIELD_MUTATIONS)
  .chain(({ info, name, bad }) => fc.tuple(fc.constant(info), fc.tuple(fc.constant(name), bad)))
  .map(([info, [name, value]]) => {
    const request = jsonRequest(info.op.method.toUpperCase(), pathOf(info), { ...validBody(info), [name]: value });
    return { api: info.api, request, check: (response: RawResponse) => expect422At(info.api, request, response, ['body', name]) };
  });

/** A field the schema does not declare, at the top level. */
const extraFieldCase: fc.Arbitrary<Case> = fc
  .tuple(
    pick(WITH_BODY),
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 20 }),
      pick(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'limit ', 'Metadata', 'threadId', 'ttl', 'select']),
    ),
    smallJson,
  )
  .filter(([info, key]) => !(key in (info.body!.schema.properties ?? {})))
  .map(([info, key, value]) => {
    const body = validBody(info);
    Object.defineProperty(body, key, { value, enumerable: true, configurable: true, writable: true });
    const request = jsonRequest(info.op.method.toUpperCase(), pathOf(info), body);
    return {
      api: info.api,
      request,
      check: (response: RawResponse) => expect422At(info.api, request, response, ['body', key], 'extra_forbidden'),
    };
  });

/** A required field left out, or a required body not sent at all. */
const missingFieldCase: fc.Arbitrary<Case> = pick(WITH_BODY.filter((info) => info.body!.required))
  .chain((info) =>
    fc.tuple(
      fc.constant(info),
      fc.option(pick((info.body!.schema.required as string[] | undefined) ?? ['(whole body)']), { nil: undefined }),
    ),
  )
  .map(([info, field]) => {
    const method = info.op.method.toUpperCase();
    if (field === undefined || field === '(whole body)') {
      const request: RawRequest = { method, path: pathOf(info), headers: { 'content-type': 'application/json' } };
      return { api: info.api, request, check: (response: RawResponse) => expect422At(info.api, request, response, ['body'], 'missing') };
    }
    const body = validBody(info);
    delete body[field];
    const request = jsonRequest(method, pathOf(info), body);
    return {
      api: info.api,
      request,
      check: (response: RawResponse) => expect422At(info.api, request, response, ['body', field], 'missing'),
    };
  });

/** The whole body of the wrong JSON type. */
const notAnObjectCase: fc.Arbitrary<Case> = fc
  .tuple(pick(WITH_BODY), fc.oneof(ofType.array, ofType.string, ofType.integer, ofType.number, ofType.boolean, ofType.null))
  .map(([info, value]) => {
    const request = jsonRequest(info.op.method.toUpperCase(), pathOf(info), value);
    return { api: info.api, request, check: (response: RawResponse) => expect422At(info.api, request, response, ['body']) };
  });

const brokenJson = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 60 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
    smallJson.chain((v) => {
      const text = JSON.stringify(v);
      return fc.oneof(
        fc.nat(Math.max(0, text.length - 1)).map((n) => text.slice(0, n)),
        fc.constantFrom(`${text}x`, `${text},`, `\ufeff${text}`, `${text}}`, `{${text}`),
      );
    }),
    fc.constantFrom(
      '{',
      '{"a":}',
      "{'a': 1}",
      '{"a": 1,}',
      '[1,]',
      'NaN',
      '{"limit": NaN}',
      '{"limit": Infinity}',
      '{"a": undefined}',
      '// comment\n{}',
      '{"a": "\u0000"}x',
      '\u0000',
      '{"a":1}{"b":2}',
      'tru',
      '"unterminated',
      '{"a": 01}',
      '{"a": .5}',
      '{"a": 1e}',
    ),
  )
  .filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return text.length > 0;
    }
  });

const invalidJsonCase: fc.Arbitrary<Case> = fc.tuple(pick(WITH_BODY), brokenJson).map(([info, text]) => {
  const request: RawRequest = {
    method: info.op.method.toUpperCase(),
    path: pathOf(info),
    headers: { 'content-type': 'application/json' },
    body: text,
  };
  return { api: info.api, request, check: (response: RawResponse) => expect422At(info.api, request, response, ['body'], 'json_invalid') };
});

const contentTypes = fc
  .oneof(
    fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/jsonx',
      'json',
      'application/*',
      '*/*',
      'application/merge-patch+json',
      'application/problem+json',
      'text/json',
      'application/x-ndjson',
      ';',
      'application/json-patch+json',
    ),
    fc.stringMatching(/^[!#-~]{1,40}$/),
    fc.constant(undefined),
  )
  .filter((type) => type === undefined || type.split(';')[0]!.trim().toLowerCase() !== 'application/json');

const contentTypeCase: fc.Arbitrary<Case> = fc.tuple(pick(WITH_BODY), contentTypes).map(([info, type]) => {
  const request: RawRequest = {
    method: info.op.method.toUpperCase(),
    path: pathOf(info),
    headers: type === undefined ? {} : { 'content-type': type },
    body: JSON.stringify(validBody(info)),
  };
  return {
    api: info.api,
    request,
    check: (response: RawResponse) => {
      expectWellFormed(info.api, request, response);
      expect(response.status, describeExchange(request, response)).toBe(415);
    },
  };
});

/** A path parameter that is not a valid value: 422 naming it, or 404 when it no longer routes. */
const badPathParamCase: fc.Arbitrary<Case> = pick(WITH_PATH_PARAMS)
  .chain((info) =>
    pick(info.pathParams).chain((parameter: any) => {
      const { spec } = SPECS[info.api];
      const bad = (invalidValue(spec, parameter.schema) ?? fc.string()).filter((v) => typeof v !== 'object' || v === null);
      return fc.tuple(fc.constant(info), fc.constant(parameter.name as string), bad.map(String), fc.boolean());
    }),
  )
  .map(([info, name, value, encode]) => {
    // Raw: the value as is, with only what HTTP cannot carry escaped (a `/` stays a separator).
    const segment = encode ? encodeURIComponent(value) : value.replace(/[^!$&'()*+,;=:@/A-Za-z0-9._~%-]/g, encodeURIComponent);
    const request: RawRequest = { method: info.op.method.toUpperCase(), path: pathOf(info, { [name]: segment }) };
    if (info.body) Object.assign(request, jsonRequest(request.method, request.path, validBody(info)));
    return {
      api: info.api,
      request,
      check: (response: RawResponse) => {
        const issues = expectWellFormed(info.api, request, response);
        const where = describeExchange(request, response);
        expect([404, 405, 422], where).toContain(response.status);
        if (response.status === 422)
          expect(
            issues.some((i) => i.loc[0] === 'path' && i.loc[1] === name),
            where,
          ).toBe(true);
      },
    };
  });

/**
 * Text a query parameter's schema refuses, even after the coercion query strings get (`"5"` is an
 * integer, so only text that is no number at all, or out of range, is bad): null when it takes any text.
 */
function badQueryText(spec: any, node: any): fc.Arbitrary<string> | null {
  const schema = resolveRef(spec, node);
  const letters = fc.stringMatching(/^[a-z]{1,10}$/);
  const types = acceptedTypes(spec, schema);
  if (types.has('boolean'))
    return fc.oneof(letters, fc.constantFrom('yes', 'no', '2', 'TRUE ', 'null', '[]')).filter((v) => v !== 'true' && v !== 'false');
  if (types.has('integer')) {
    const options: fc.Arbitrary<string>[] = [letters, fc.constantFrom('1.5', '--1', '[]', '{}', 'null')];
    if (typeof schema.minimum === 'number') options.push(fc.integer({ min: -1e6, max: schema.minimum - 1 }).map(String));
    if (typeof schema.maximum === 'number') options.push(fc.integer({ min: schema.maximum + 1, max: 2 ** 40 }).map(String));
    return fc.oneof(...options);
  }
  if (schema.enum) return fc.oneof(letters, fc.constantFrom('', ' ', 'deployed')).filter((v) => !schema.enum.includes(v));
  if (typeof schema.maxLength === 'number')
    return fc.integer({ min: schema.maxLength + 1, max: schema.maxLength + 50 }).map((n) => 'q'.repeat(n));
  return null;
}

const QUERY_MUTATIONS = OPERATIONS.flatMap((info) =>
  info.queryParams.flatMap((parameter: any) => {
    const bad = badQueryText(SPECS[info.api].spec, parameter.schema);
    return bad ? [{ info, name: parameter.name as string, bad }] : [];
  }),
);

/** A query parameter with text its schema refuses (`subgraphs=maybe`, `limit=0`). */
const badQueryCase: fc.Arbitrary<Case> = pick(QUERY_MUTATIONS)
  .chain(({ info, name, bad }) => fc.tuple(fc.constant(info), fc.constant(name), bad))
  .map(([info, name, value]) => {
    const request: RawRequest = { method: info.op.method.toUpperCase(), path: `${pathOf(info)}?${name}=${encodeURIComponent(value)}` };
    return { api: info.api, request, check: (response: RawResponse) => expect422At(info.api, request, response, ['query', name]) };
  });

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'PURGE', 'LINK', 'SEARCH'];

/** The methods the spec declares for a concrete path (through every template that matches it). */
const declaredMethods = (api: ApiName, path: string) =>
  OPERATIONS.filter((o) => o.api === api && new RegExp(`^${o.op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path)).map((o) =>
    o.op.method.toUpperCase(),
  );

/** A method the path does not declare: 405 with an Allow header listing the declared ones. */
const wrongMethodCase: fc.Arbitrary<Case> = fc
  .tuple(pick(OPERATIONS), pick(METHODS))
  .filter(([info, method]) => !declaredMethods(info.api, pathOf(info)).includes(method))
  .map(([info, method]) => {
    const request: RawRequest = { method, path: pathOf(info) };
    return {
      api: info.api,
      request,
      check: (response: RawResponse) => {
        expectWellFormed(info.api, request, response);
        expect(response.status, describeExchange(request, response)).toBe(405);
        expect(response.headers.allow!.split(', ').sort()).toEqual([...new Set(declaredMethods(info.api, request.path))].sort());
      },
    };
  });

/** Any method on any path (random, or a known route bent out of shape): well-formed, never a 5xx. */
const randomRouteCase: fc.Arbitrary<Case> = fc
  .tuple(
    pick<ApiName>(['agent-server', 'control-plane']),
    pick(METHODS),
    fc.oneof(
      fc.webPath(),
      fc
        .tuple(pick(OPERATIONS), fc.webSegment(), fc.constantFrom('/', '', '//', '/..', '/./', '?', '?x=1&x=2', '#frag', '%', '%2F', '%00'))
        .map(([info, segment, tail]) => `${pathOf(info)}${tail}${segment}`),
      fc.constantFrom(
        '/',
        '//threads',
        '/threads/',
        '/threads//search',
        '/v2',
        '/v2/',
        '/v2/deployments/',
        '/V2/deployments',
        '/THREADS',
        '/threads/search/',
        '*',
        '/threads%2Fsearch',
        '/threads/%2e%2e/search',
        '/v2/sandboxes/pools/',
        '/v2/auth/providers/',
      ),
    ),
    fc.option(smallJson, { nil: undefined }),
  )
  .map(([api, method, path, body]) => {
    const request: RawRequest = { method, path: path === '' || (!path.startsWith('/') && path !== '*') ? `/${path}` : path };
    if (body !== undefined && method !== 'GET' && method !== 'HEAD') Object.assign(request, jsonRequest(method, request.path, body));
    return { api, request, check: (response: RawResponse) => void expectWellFormed(api, request, response) };
  });

/** Control plane without a valid credential: 401 `{detail}` before anything else is looked at. */
const badCredentialCase: fc.Arbitrary<Case> = fc
  .tuple(
    pick(OPERATIONS.filter((o) => o.api === 'control-plane')),
    fc.oneof(
      fc.constant({}),
      fc.stringMatching(/^[!-~]{1,40}$/).map((key) => ({ 'x-api-key': key })),
      fc.constant({ 'x-api-key': '' }),
      fc.stringMatching(/^[!-~]{1,40}$/).map((token) => ({ authorization: `Bearer ${token}` })),
      fc.stringMatching(/^[!-~]{1,20}$/).map((tenant) => ({ 'x-tenant-id': tenant })),
      fc.constantFrom({ authorization: 'Basic dXNlcjpwYXNz' }, { authorization: 'Bearer' }, { authorization: 'bearer  ' }),
    ),
    fc.boolean(),
  )
  .filter(([, headers]) => !Object.values(headers).some((v) => v === apiKey || v === `Bearer ${apiKey}` || v === 'default'))
  .map(([info, headers, withBadBody]) => {
    const request: RawRequest = { method: info.op.method.toUpperCase(), path: pathOf(info), headers: { ...headers } };
    if (info.body)
      Object.assign(request, {
        headers: { ...headers, 'content-type': 'application/json' },
        body: withBadBody ? '{"not": valid' : JSON.stringify(validBody(info)),
      });
    return {
      api: 'control-plane' as const,
      request,
      defaultCredential: false,
      check: (response: RawResponse) => {
        expectWellFormed('control-plane', request, response);
        expect(response.status, describeExchange(request, response)).toBe(401);
      },
    };
  });

const propertyOptions = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: false });

async function runCase(c: Case): Promise<void> {
  c.check(await send(c.api, c.request, { defaultCredential: c.defaultCredential }));
}

beforeAll(async () => {
  emulator = await startTestEmulator({ revisionStepMs: 20 });
  apiKey = emulator.defaultApiKey!;
  const thread = (
    await send(
      'agent-server',
      jsonRequest('POST', '/threads', {
        supersteps: [{ updates: [{ as_node: '__input__', values: { a: 1 } }] }, { updates: [{ as_node: 'agent', values: { b: 2 } }] }],
      }),
    )
  ).json as any;
  ids.thread_id = thread.thread_id;
  const history = (await send('agent-server', jsonRequest('POST', `/threads/${thread.thread_id}/history`, {}))).json as any[];
  ids.checkpoint_id = history[0].checkpoint_id;
  const deployment = (
    await send(
      'control-plane',
      jsonRequest('POST', '/v2/deployments', {
        name: 'fuzz-base',
        source: 'external_container',
        source_revision_config: { image_uri: 'registry.example/agent:1' },
      }),
    )
  ).json as any;
  ids.deployment_id = deployment.id;
  ids.revision_id = deployment.latest_revision_id;
});

afterEach(() => {
  // Each test answers for what the emulator reported while it ran (contract violations, crashes).
  expect(emulator.errors.splice(0), 'the emulator reported contract violations or internal errors').toEqual([]);
});

afterAll(async () => {
  const total = sent['agent-server'] + sent['control-plane'];
  console.log(`fuzz: ${total} requests (agent server ${sent['agent-server']}, control plane ${sent['control-plane']}), seed ${SEED}`);
  await emulator?.close();
});

describe('invalid requests: never a 5xx, only documented 4xx shapes, and the 422 names the field', () => {
  const property = (name: string, arbitrary: fc.Arbitrary<Case>, numRuns: number) =>
    it(name, async () => {
      await fc.assert(fc.asyncProperty(arbitrary, runCase), propertyOptions(numRuns));
    });

  property(
    'a top-level field with a value its schema refuses (type, range, format, enum, length, pattern, items, nested fields)',
    badFieldCase,
    900,
  );
  property('an undeclared field', extraFieldCase, 300);
  property('a required field missing, or no body at all', missingFieldCase, 150);
  property('a body that is not an object', notAnObjectCase, 150);
  property('invalid JSON', invalidJsonCase, 300);
  property('a wrong or missing content type', contentTypeCase, 200);
  property('a bad path parameter (bad UUIDs, patterns, lengths, encodings)', badPathParamCase, 400);
  property('a bad query parameter (not a number, out of range, not in the enum, too long)', badQueryCase, 150);
  property('a method the path does not declare', wrongMethodCase, 150);
  property('random methods on random and mangled paths', randomRouteCase, 400);

  property('control plane without a valid credential: 401 {detail}, even with a bad body', badCredentialCase, 200);

  it('deeply nested bodies (up to 10,000 levels) are refused with a 422, or accepted, never a crash', async () => {
    const nested = (depth: number, kind: 'object' | 'array') =>
      kind === 'object' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const arbitrary = fc.tuple(
      pick(WITH_BODY),
      fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 200, max: 10_000 }), fc.constant(10_000)),
      pick<'object' | 'array'>(['object', 'array']),
      fc.boolean(),
    );
    await fc.assert(
      fc.asyncProperty(arbitrary, async ([info, depth, kind, wrapped]) => {
        // Either the whole body, or inside a free-form field (metadata) where depth is the only fault.
        const body =
          wrapped && info.op.operationId === 'createThread' ? `{"metadata": {"deep": ${nested(depth, kind)}}}` : nested(depth, kind);
        const request: RawRequest = {
          method: info.op.method.toUpperCase(),
          path: pathOf(info),
          headers: { 'content-type': 'application/json' },
          body,
        };
        const response = await send(info.api, request);
        expectWellFormed(info.api, request, response);
        if (depth >= 1000) expect422At(info.api, request, response, ['body']);
      }),
      propertyOptions(40),
    );
  });

  it.each([
    ['with Content-Length', false],
    ['chunked, without Content-Length', true],
  ])('a body over 10 MiB is refused with 413 {detail} (%s), on both APIs', async (_name, chunked) => {
    const huge = `{"metadata": {"blob": "${'x'.repeat(MAX_BODY)}"}}`;
    for (const [api, path] of [
      ['agent-server', '/threads'],
      ['control-plane', '/v2/deployments'],
    ] as const) {
      const request: RawRequest = { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: huge, chunked };
      const response = await send(api, request);
      expectWellFormed(api, request, response);
      expect(response.status).toBe(413);
    }
    // The server is still answering after it refused them.
    expect((await send('agent-server', jsonRequest('POST', '/threads/search', { limit: 1 }))).status).toBe(200);
  });

  it('requests node refuses to parse (unknown method, broken framing) get a JSON 4xx, not a bare or missing answer', async () => {
    const host = new URL(emulator.agentServerUrl).host;
    const exchanges = {
      'unknown method': `FROB /threads HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`,
      CONNECT: `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      'Content-Length not a number': `POST /threads HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`,
      'two different Content-Lengths': `POST /threads HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    };
    const answers: Record<string, unknown> = {};
    for (const [name, bytes] of Object.entries(exchanges)) {
      sent['agent-server']++;
      const answer = await rawSocketExchange(emulator.agentServerUrl, bytes);
      let json: unknown;
      try {
        json = JSON.parse(answer.body);
      } catch {
        json = undefined;
      }
      answers[name] = {
        answer:
          answer.status === undefined ? 'none (connection closed)' : answer.status >= 400 && answer.status < 500 ? '4xx' : answer.status,
        json: /^application\/json/.test(answer.headers['content-type'] ?? '') && typeof (json as { detail?: unknown })?.detail === 'string',
      };
    }
    console.log(JSON.stringify(answers));
    expect(answers).toEqual(Object.fromEntries(Object.keys(exchanges).map((name) => [name, { answer: '4xx', json: true }])));
  });
});

// ---------------------------------------------------------------------------------------------
// Valid but random requests, with a reference model of the answer.

/** Deep equality of JSON values, object key order aside. */
function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): string =>
    v === null || typeof v !== 'object'
      ? JSON.stringify(v)
      : Array.isArray(v)
        ? `[${v.map(canonical).join(',')}]`
        : `{${Object.keys(v)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
            .join(',')}}`;
  return canonical(a) === canonical(b);
}

/** Whether every key of the filter is an own key of the record with a deep-equal value. */
const matchesFilter = (record: Record<string, unknown>, filter: Record<string, unknown>) =>
  Object.keys(filter).every((key) => Object.hasOwn(record, key) && sameJson(record[key], filter[key]));

/** An object literal that may have keys such as `__proto__` as its own keys. */
const ownKeys = (entries: [string, unknown][]) => {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
  return object;
};

const PROTOTYPE_KEYS = ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty'];

const messageArb = fc.record(
  {
    type: fc.constantFrom('human', 'ai'),
    content: fc.string({ maxLength: 20 }),
    id: fc.constantFrom('m-1', 'm-2', 'm-3', '5f1e2d3c-4b5a-4697-8a1b-2c3d4e5f6a7b'),
  },
  { requiredKeys: ['type', 'content'] },
);
const valuesArb = fc
  .record(
    {
      plain: fc
        .uniqueArray(
          fc.tuple(
            fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTOTYPE_KEYS)).filter((k) => k !== 'messages'),
            smallJson,
          ),
          { maxLength: 3, selector: ([k]) => k },
        )
        .map(ownKeys),
      messages: fc.option(fc.oneof(fc.array(messageArb, { maxLength: 3 }), messageArb), { nil: undefined }),
    },
    { requiredKeys: ['plain'] },
  )
  .map(({ plain, messages }) =>
    ownKeys([...Object.entries(plain), ...(messages === undefined ? [] : [['messages', messages] as [string, unknown]])]),
  );
const updateArb = fc.record({
  as_node: fc.oneof(fc.constantFrom('__input__', '__start__', 'agent', 'tools'), fc.string({ minLength: 1, maxLength: 10 })),
  values: fc.option(valuesArb, { nil: null }),
});
const superstepsArb = fc.array(fc.record({ updates: fc.array(updateArb, { minLength: 1, maxLength: 3 }) }), { maxLength: 4 });

/** The superstep rules of decision A5, as a model: values replace, messages append or replace by id. */
function modelValues(supersteps: { updates: { as_node: string; values: Record<string, unknown> | null }[] }[]): Record<string, unknown>[] {
  let values: Record<string, unknown> = {};
  const states: Record<string, unknown>[] = [];
  for (const superstep of supersteps) {
    for (const update of superstep.updates) {
      for (const [key, value] of Object.entries(update.values ?? {})) {
        if (key !== 'messages') {
          values = ownKeys([...Object.entries(values).filter(([k]) => k !== key), [key, value]]);
          continue;
        }
        const messages = [...((values.messages as any[]) ?? [])];
        for (const message of [value].flat() as any[]) {
          const at = message.id === undefined ? -1 : messages.findIndex((m) => m.id === message.id);
          if (at >= 0) messages[at] = message;
          else messages.push(message);
        }
        values = ownKeys([...Object.entries(values).filter(([k]) => k !== 'messages'), ['messages', messages]]);
      }
    }
    states.push(values);
  }
  return states;
}

/** Values with the server-assigned message IDs taken out, for comparison with the model. */
const withoutAssignedIds = (values: Record<string, unknown>, model: Record<string, unknown>) => {
  if (!Array.isArray(values.messages)) return values;
  const modelMessages = (model.messages as any[]) ?? [];
  return {
    ...values,
    messages: values.messages.map((m: any, i: number) => {
      if (modelMessages[i]?.id !== undefined) return m;
      const { id: _assigned, ...rest } = m;
      return rest;
    }),
  };
};

describe('valid but random requests: accepted, and answered as the model says', () => {
  it('createThread with random metadata and supersteps: values and history follow the superstep rules', async () => {
    const arbitrary = fc.record(
      {
        metadata: fc.dictionary(
          fc.string({ maxLength: 10 }).filter((k) => k !== 'graph_id'),
          smallJson,
          { maxKeys: 4 },
        ),
        supersteps: superstepsArb,
        thread_id: fc.uuid(),
        if_exists: fc.constantFrom('raise', 'do_nothing'),
      },
      { requiredKeys: [] },
    );
    // fast-check repeats small UUIDs on purpose: a repeat must answer as if_exists says.
    const first = new Map<string, any>();
    await fc.assert(
      fc.asyncProperty(arbitrary, async (body) => {
        const request = jsonRequest('POST', '/threads', body);
        const response = await send('agent-server', request);
        const where = describeExchange(request, response);
        expectWellFormed('agent-server', request, response);
        const existing = body.thread_id ? first.get(body.thread_id) : undefined;
        if (existing) {
          if (body.if_exists === 'do_nothing') expect(response.json, where).toEqual(existing);
          else expect(response.status, where).toBe(409);
          return;
        }
        expect(response.status, where).toBe(200);
        const thread = response.json as any;
        if (body.thread_id) first.set(body.thread_id, thread);
        if (body.thread_id) expect(thread.thread_id, where).toBe(body.thread_id.toLowerCase());
        expect(sameJson(thread.metadata, body.metadata ?? {}), where).toBe(true);
        const states = modelValues((body.supersteps ?? []) as any);
        const last = states.at(-1) ?? {};
        expect(sameJson(withoutAssignedIds(thread.values, last), last), `${where}\nmodel: ${JSON.stringify(last)}`).toBe(true);

        const history = (await send('agent-server', jsonRequest('POST', `/threads/${thread.thread_id}/history`, { limit: 1000 })))
          .json as any[];
        expect(history.length, where).toBe(states.length);
        history.forEach((state, i) => {
          const model = states[states.length - 1 - i]!;
          expect(sameJson(withoutAssignedIds(state.values, model), model), where).toBe(true);
          expect(state.metadata.step, where).toBe(states.length - 2 - i);
        });
      }),
      propertyOptions(150),
    );
  });

  describe('filters return exactly the matching records', () => {
    const suite = crypto.randomUUID();
    const fixtures: { thread_id: string; metadata: Record<string, unknown>; values: Record<string, unknown> }[] = [];
    let historyThread = '';
    let fullHistory: any[] = [];

    const colors = ['red', 'blue', 'green'];
    const tags = [['a'], ['a', 'b'], ['b', 'a'], []];
    const nested = [{ x: 1 }, { x: 1, y: [1, 2] }, { y: [1, 2], x: 1 }, { x: null }];

    beforeAll(async () => {
      for (let i = 0; i < 12; i++) {
        const metadata = {
          suite,
          color: colors[i % 3]!,
          size: i % 4,
          tags: tags[i % 4]!,
          nested: nested[(i >> 1) % 4]!,
          ...(i % 5 === 0 ? { optional: true } : {}),
        };
        const values = { topic: colors[(i + 1) % 3]!, count: i % 2 };
        const response = await send(
          'agent-server',
          jsonRequest('POST', '/threads', { metadata, supersteps: [{ updates: [{ as_node: '__input__', values }] }] }),
        );
        fixtures.push({ thread_id: (response.json as any).thread_id, metadata, values });
      }
      const supersteps = ['__input__', 'agent', 'tools', 'agent', '__start__', 'agent', 'tools'].map((node, i) => ({
        updates: [{ as_node: node, values: { turn: i, node } }],
      }));
      const thread = (await send('agent-server', jsonRequest('POST', '/threads', { metadata: { graph_id: 'fuzz-graph' }, supersteps })))
        .json as any;
      historyThread = thread.thread_id;
      fullHistory = (await send('agent-server', jsonRequest('POST', `/threads/${historyThread}/history`, { limit: 1000 }))).json as any[];
      expect(fullHistory).toHaveLength(7);
    });

    const filterValue = <T>(pool: T[]) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: smallJson });
    const filterEntries = (pools: Record<string, unknown[]>) =>
      fc
        .uniqueArray(
          fc.oneof(
            {
              weight: 6,
              arbitrary: fc.constantFrom(...Object.keys(pools)).chain((key) => fc.tuple(fc.constant(key), filterValue(pools[key]!))),
            },
            { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.oneof(fc.constant(null), fc.constant({}), smallJson)) },
            { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), smallJson) },
          ),
          { maxLength: 3, selector: ([key]) => key },
        )
        .map(ownKeys);

    it('searchThreads: metadata and values filters, total, page size and order', async () => {
      const arbitrary = fc.record({
        metadata: filterEntries({ color: colors, size: [0, 1, 2, 3], tags, nested, optional: [true, false] }),
        values: fc.option(filterEntries({ topic: colors, count: [0, 1] }), { nil: undefined }),
        limit: fc.integer({ min: 1, max: 15 }),
        offset: fc.integer({ min: 0, max: 14 }),
        sort_by: fc.constantFrom('thread_id', 'created_at', 'updated_at', 'status'),
        sort_order: fc.constantFrom('asc', 'desc'),
      });
      await fc.assert(
        fc.asyncProperty(arbitrary, async ({ metadata, values, ...page }) => {
          const body = { metadata: ownKeys([['suite', suite], ...Object.entries(metadata)]), ...(values ? { values } : {}), ...page };
          const request = jsonRequest('POST', '/threads/search', body);
          const response = await send('agent-server', request);
          const where = describeExchange(request, response);
          expectWellFormed('agent-server', request, response);
          expect(response.status, where).toBe(200);
          const expected = fixtures.filter((f) => matchesFilter(f.metadata, body.metadata) && (!values || matchesFilter(f.values, values)));
          expect(Number(response.headers['x-pagination-total']), where).toBe(expected.length);
          const found = response.json as any[];
          expect(found.length, where).toBe(Math.max(0, Math.min(page.limit, expected.length - page.offset)));
          for (const thread of found)
            expect(
              expected.map((f) => f.thread_id),
              where,
            ).toContain(thread.thread_id);
          if (page.sort_by === 'thread_id') {
            const order = found.map((t) => t.thread_id);
            expect(order, where).toEqual([...order].sort((a, b) => (page.sort_order === 'asc' ? a.localeCompare(b) : b.localeCompare(a))));
          }
        }),
        propertyOptions(250),
      );
    });

    it('getThreadHistory: metadata filter, before in its three forms, limit', async () => {
      const checkpointIds = fullHistory.map((s) => s.checkpoint_id as string);
      const beforeArb = fc.option(
        fc
          .tuple(fc.oneof(fc.constantFrom(...checkpointIds), fc.uuid()), fc.constantFrom('id', 'object', 'config'))
          .map(([id, form]) => ({ id, form })),
        { nil: undefined },
      );
      const arbitrary = fc.record({
        metadata: fc.option(
          filterEntries({
            source: ['input', 'update', 'loop'],
            step: [-1, 0, 1, 2, 5],
            graph_id: ['fuzz-graph', ''],
            parents: [{}],
            thread_id: [historyThread],
          }),
          { nil: undefined },
        ),
        before: beforeArb,
        limit: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(arbitrary, async ({ metadata, before, limit }) => {
          const beforeValue =
            before &&
            (before.form === 'id'
              ? before.id
              : before.form === 'object'
                ? { checkpoint_id: before.id }
                : { configurable: { checkpoint_id: before.id, thread_id: historyThread } });
          const body = { ...(metadata ? { metadata } : {}), ...(beforeValue ? { before: beforeValue } : {}), ...(limit ? { limit } : {}) };
          const request = jsonRequest('POST', `/threads/${historyThread}/history`, body);
          const response = await send('agent-server', request);
          const where = describeExchange(request, response);
          expectWellFormed('agent-server', request, response);
          expect(response.status, where).toBe(200);
          const expected = fullHistory
            .filter((s) => !before || s.checkpoint_id < before.id.toLowerCase())
            .filter((s) => !metadata || matchesFilter(s.metadata, metadata))
            .slice(0, limit ?? 10);
          expect(
            (response.json as any[]).map((s) => s.checkpoint_id),
            where,
          ).toEqual(expected.map((s) => s.checkpoint_id));
        }),
        propertyOptions(250),
      );
    });
  });

  it('createDeployment and updateDeployment with random valid bodies: 201/200 with what was asked', async () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
    // Both scales given, min <= max: valid whatever the deployment type's defaults are.
    const resourceSpec = fc
      .record(
        {
          scales: fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 100 })),
          cpu: fc.integer({ min: 1, max: 64 }),
          memory_mb: fc.integer({ min: 256, max: 262144 }),
        },
        { requiredKeys: ['scales'] },
      )
      .map(({ scales: [a, b], ...rest }) => ({ min_scale: Math.min(a, b), max_scale: Math.max(a, b, 1), ...rest }));
    const sourceConfig = fc.record(
      {
        integration_id: fc.option(fc.uuid(), { nil: null }),
        deployment_type: fc.constantFrom('dev_free', 'dev', 'prod'),
        custom_url: fc.option(fc.webUrl(), { nil: null }),
        resource_spec: fc.option(resourceSpec, { nil: null }),
      },
      { requiredKeys: [] },
    );
    const secrets = fc.uniqueArray(fc.record({ name: fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,15}$/), value: fc.string({ maxLength: 20 }) }), {
      maxLength: 4,
      selector: (s) => s.name,
    });
    const create = fc.oneof(
      fc.record({
        source: fc.constant('git_host' as const),
        source_config: fc
          .tuple(sourceConfig, fc.webUrl(), fc.boolean())
          .map(([c, repo_url, build_on_push]) => ({ ...c, repo_url, build_on_push })),
        source_revision_config: fc.record({
          repo_ref: fc.constantFrom('main', 'refs/heads/dev', 'feature/x'),
          graph_config_path: fc.constantFrom('langgraph.json', 'apps/agent/langgraph.json'),
        }),
        secrets,
      }),
      fc.record({
        source: fc.constant('external_container' as const),
        source_config: sourceConfig,
        source_revision_config: fc.record({ image_uri: fc.stringMatching(/^registry\.example\/[a-z]{1,8}:[0-9]{1,3}$/) }),
        secrets,
      }),
    );
    const update = fc.record(
      {
        source_config: sourceConfig,
        source_revision_config: fc.record(
          { image_uri: fc.option(fc.constant('registry.example/next:2'), { nil: null }) },
          { requiredKeys: [] },
        ),
        secrets,
      },
      { requiredKeys: [] },
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(name, create, update, async (baseName, body, patch) => {
        const createRequest = jsonRequest('POST', '/v2/deployments', { name: `${baseName}-${++n}`.slice(-63), ...body });
        const created = await send('control-plane', createRequest);
        const where = describeExchange(createRequest, created);
        expectWellFormed('control-plane', createRequest, created);
        expect(created.status, where).toBe(201);
        const deployment = created.json as any;
        expect(deployment.source, where).toBe(body.source);
        expect(deployment.secrets, where).toEqual(body.secrets.map((s) => ({ name: s.name })));
        expect(deployment.source_config.deployment_type, where).toBe(body.source_config.deployment_type ?? 'dev');
        if (body.source === 'external_container') {
          expect(deployment.source_revision_config.image_uri, where).toBe(body.source_revision_config.image_uri);
          const patchRequest = jsonRequest('PATCH', `/v2/deployments/${deployment.id}`, patch);
          const patched = await send('control-plane', patchRequest);
          const patchWhere = describeExchange(patchRequest, patched);
          expectWellFormed('control-plane', patchRequest, patched);
          expect(patched.status, patchWhere).toBe(200);
          const after = patched.json as any;
          expect(after.latest_revision_id !== deployment.latest_revision_id, patchWhere).toBe(!!patch.source_revision_config?.image_uri);
          if (patch.secrets) expect(after.secrets, patchWhere).toEqual(patch.secrets.map((s) => ({ name: s.name })));
          const revision = await send('control-plane', {
            method: 'GET',
            path: `/v2/deployments/${deployment.id}/revisions/${after.latest_revision_id}`,
          });
          expect(revision.status).toBe(200);
        }
      }),
      propertyOptions(150),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// What the properties above found, pinned as plain examples (the properties find them too, with
// the fixed seed; these name them).

describe('found by fuzzing', () => {
  it('a request path starting with // is an ordinary 404, not a 500', async () => {
    for (const path of ['//', '////', '//x:y/threads', '//[/threads']) {
      for (const api of ['agent-server', 'control-plane'] as const) {
        const request: RawRequest = { method: 'GET', path };
        const response = await send(api, request);
        expectWellFormed(api, request, response);
        expect(response.status, describeExchange(request, response)).toBe(404);
      }
    }
  });

  it('a history metadata filter on a key the checkpoints lack matches nothing, Object.prototype names included', async () => {
    const thread = (
      await send(
        'agent-server',
        jsonRequest('POST', '/threads', { supersteps: [{ updates: [{ as_node: '__input__', values: { a: 1 } }] }] }),
      )
    ).json as any;
    const found: Record<string, number> = {};
    for (const filter of [
      '{"constructor": null}',
      '{"toString": null}',
      '{"hasOwnProperty": null}',
      '{"__proto__": {}}',
      '{"not_a_key": null}',
    ]) {
      const response = await send('agent-server', {
        method: 'POST',
        path: `/threads/${thread.thread_id}/history`,
        headers: { 'content-type': 'application/json' },
        body: `{"metadata": ${filter}}`,
      });
      expect(response.status).toBe(200);
      found[filter] = (response.json as unknown[]).length;
    }
    expect(found).toEqual({
      '{"constructor": null}': 0,
      '{"toString": null}': 0,
      '{"hasOwnProperty": null}': 0,
      '{"__proto__": {}}': 0,
      '{"not_a_key": null}': 0,
    });
  });

  it('a state key named __proto__ in a superstep is kept like any other key (as metadata keeps it)', async () => {
    const body =
      '{"metadata": {"__proto__": {"m": 1}}, "supersteps": [{"updates": [{"as_node": "__input__", "values": {"__proto__": {"v": 1}, "other": 2}}]}]}';
    const created = await send('agent-server', { method: 'POST', path: '/threads', headers: { 'content-type': 'application/json' }, body });
    expect(created.status).toBe(200);
    expect(created.text).toContain('"metadata":{"__proto__":{"m":1}}');
    const state = await send('agent-server', { method: 'GET', path: `/threads/${(created.json as any).thread_id}/state` });
    expect(state.text).toContain('"values":{"__proto__":{"v":1},"other":2}');
  });
});
