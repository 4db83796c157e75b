// The generative contract test of the emulator (decision T5): from the bundled specs, for every
// operation, seeded requests (fast-check; the seed is printed, rerun one with FUZZ_SEED=<seed>):
//
// 1. Refused requests: each schema constraint broken one at a time (types, ranges with the next
//    integer out and the extremes such as 1E400 and 18446744073709551616, formats, enums,
//    lengths, patterns, items, unknown and missing fields), integer query parameters in other
//    notations (0x10, 1e1, +5), bodies that are not UTF-8 or not JSON, lone surrogates, numbers
//    that are not finite, wrong content types, bodies, headers and URLs over the limits, deep
//    nesting, wrong credentials, methods a path does not have, broken HTTP framing. Each must be
//    refused with an answer its operation declares, and the database file must be byte for byte
//    the same records afterwards.
// 2. Valid requests: generated from each operation's schemas, against records that exist or not.
//    Each must be accepted, unless a record it names is missing (404), its thread ID is taken
//    (409) or it breaks a rule the spec states and documents with a 422 example (the oracle in
//    support/request-oracle.ts). A refusal the oracle did not predict is a refusal by an unstated
//    rule, and fails.
// 3. Random methods, paths and bodies: answered as the spec declares, whatever they are.
//
// Every answer of every phase is checked by support/documented-answers.ts (its status declared
// for the operation the spec routes it to, its body valid against the declared schema, its
// required headers present) and counted; the figures are printed at the end.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ListedOperation } from '@agentplane/openapi-toolkit';
import { listOperations, resolveRef } from '@agentplane/openapi-toolkit';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Issue } from './support/documented-answers.js';
import { AnswerLedger, describeExchange, expectDocumented, SPECS } from './support/documented-answers.js';
import type { ApiName, RawRequest, RawResponse, TestEmulator } from './support/harness.js';
import { jsonRequest, rawRequest, rawSocketExchange, startTestEmulator } from './support/harness.js';
import type { ParsedRequest } from './support/request-oracle.js';
import { RecordModel, RUN_CREATES, refusalExamples } from './support/request-oracle.js';
import { EXTREME_NUMBERS, invalidValue, jsonScalar, RawNumber, setOwn, smallJson, toJsonText, validValue } from './support/spec-values.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_120);
const propertyOptions = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: false });
const LIMITS = SPECS['agent-server'].spec['x-request-limits'] as { 'body-bytes': number; 'header-bytes': number; 'json-depth': number };

const TENANT = { id: 'fuzz-tenant', apiKey: 'fuzz-key', bearer: 'fuzz-token' };
const CREDENTIALS: Record<string, Record<string, string>> = {
  ApiKeyAuth: { 'x-api-key': TENANT.apiKey },
  TenantIdAuth: { 'x-tenant-id': TENANT.id },
  BearerAuth: { authorization: `Bearer ${TENANT.bearer}` },
};

let emulator: TestEmulator;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-fuzz-'));
const dbFile = path.join(dir, 'fuzz.db');
const ledger = new AnswerLedger();
const model = new RecordModel();
/** Records made before the properties run: real IDs, so that a request's only fault is the fuzzed one. */
const ids: Record<string, string> = {};
/** Secret values of the deployments accepted in phase 2 (each made unique when it was sent). */
const secretValues = new Set<string>();

const baseUrl = (api: ApiName) => (api === 'agent-server' ? emulator.agentServerUrl : emulator.controlPlaneUrl);

/** Sends a request; control-plane requests carry the tenant's API key unless told not to. */
function send(api: ApiName, request: RawRequest, options: { defaultCredential?: boolean } = {}): Promise<RawResponse> {
  const headers = { ...request.headers };
  if (api === 'control-plane' && options.defaultCredential !== false && !Object.keys(headers).some(isCredentialHeader))
    Object.assign(headers, CREDENTIALS.ApiKeyAuth);
  return rawRequest(baseUrl(api), { ...request, headers });
}
const isCredentialHeader = (name: string) => ['x-api-key', 'x-tenant-id', 'authorization'].includes(name.toLowerCase());

/** Every stored record, one line per row in key order: what a refused request must leave alone. */
function storedRecords(): string {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return tables
      .map((table) => {
        const rows = db
          .prepare(`SELECT * FROM "${table}"`)
          .all()
          .map((row) => JSON.stringify(row));
        return `${table}: ${rows.length}\n${rows.sort().join('\n')}`;
      })
      .join('\n');
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The operations, as the specs declare them.

interface OperationInfo {
  [fc.toStringMethod]: () => string;
  api: ApiName;
  op: ListedOperation;
  pathParams: any[];
  queryParams: any[];
  /**
   * The resolved request body schema, its JSON pointer for the validator, and its first example;
   * `fields` is the object whose fields the cases below vary: the body, or for a body that is a
   * list (a batch), its first item, at `loc`.
   */
  body: {
    schema: any;
    pointer: string;
    required: boolean;
    example: unknown;
    fields: { schema: any; loc: (string | number)[]; inList: boolean };
  } | null;
}

function operationsOf(api: ApiName): OperationInfo[] {
  const { spec } = SPECS[api];
  return listOperations(spec).map((op): OperationInfo => {
    const requestBody = op.operation.requestBody ? resolveRef(spec, op.operation.requestBody) : null;
    const media = requestBody?.content?.['application/json'];
    const example = media?.examples ? resolveRef(spec, Object.values(media.examples)[0]).value : {};
    return {
      // A counterexample names the operation, not its whole spec.
      [fc.toStringMethod]: () => `${api} ${op.operationId}`,
      api,
      op,
      pathParams: op.parameters.filter((p: any) => p.in === 'path'),
      queryParams: op.parameters.filter((p: any) => p.in === 'query'),
      body: requestBody
        ? bodyInfo(spec, media, `${op.pointer}/requestBody/content/application~1json/schema`, requestBody.required === true, example)
        : null,
    };
  });
}

/** An operation's body as the cases see it; `at` is where its schema is in the spec, for one written in place. */
function bodyInfo(spec: any, media: any, at: string, required: boolean, example: unknown): NonNullable<OperationInfo['body']> {
  const schema = resolveRef(spec, media.schema);
  const inList = schema.type === 'array';
  return {
    schema,
    pointer: media.schema.$ref ?? at,
    required,
    example,
    fields: { schema: inList ? resolveRef(spec, schema.items) : schema, loc: inList ? ['body', 0] : ['body'], inList },
  };
}

/**
 * Whether an operation answers a stream of events. Those are left out: this test reads whole JSON
 * answers, and a thread's stream lasts as long as the thread. Their requests go through the same
 * validation as the run operations fuzzed here (the same RunCreate body, the same path and query
 * reading); their answers are held by the contract test, run-streams.test.ts, the stream
 * reliability test and the differential suite.
 */
const streams = (info: OperationInfo) =>
  Object.values<any>(info.op.operation.responses ?? {}).some(
    (response) => resolveRef(SPECS[info.api].spec, response)?.content?.['text/event-stream'],
  );

/** Every operation the specs declare, the streams included: what a path's declared methods are. */
const DECLARED = [...operationsOf('agent-server'), ...operationsOf('control-plane')];
const OPERATIONS = DECLARED.filter((info) => !streams(info));
const WITH_BODY = OPERATIONS.filter((o) => o.body);
const WITHOUT_BODY = OPERATIONS.filter((o) => !o.body);
const WITH_PATH_PARAMS = OPERATIONS.filter((o) => o.pathParams.length > 0);
const pick = <T>(items: T[]) => fc.constantFrom(...items);
const methodOf = (info: OperationInfo) => info.op.method.toUpperCase();

/** The operation's path with real IDs (or the given raw segments). */
function pathOf(info: OperationInfo, overrides: Record<string, string> = {}): string {
  let route = info.op.path;
  for (const parameter of info.pathParams) {
    const value = overrides[parameter.name] ?? encodeURIComponent(ids[parameter.name] ?? String(parameter.example));
    route = route.replace(`{${parameter.name}}`, value);
  }
  return route;
}

/** The fields of a valid body for the operation (its first example; of a list, its first item), unique where uniqueness matters. */
function validBody(info: OperationInfo): Record<string, unknown> {
  const example = info.body!.fields.inList ? (info.body!.example as unknown[])[0] : info.body!.example;
  const body = structuredClone(example) as Record<string, unknown>;
  if (info.op.operationId === 'createDeployment') body.name = `fuzz-${crypto.randomUUID()}`;
  if (info.op.operationId === 'createThread') delete body.thread_id;
  return body;
}

/** A request with a JSON body written as given (RawNumbers as their text). */
function withJsonBody(info: OperationInfo, body: unknown, path = pathOf(info)): RawRequest {
  return { method: methodOf(info), path, headers: { 'content-type': 'application/json' }, body: toJsonText(body) };
}

/** A request whose body has these fields: the body itself, or the one item of a list body. */
function withFields(info: OperationInfo, fields: Record<string, unknown>, path = pathOf(info)): RawRequest {
  return withJsonBody(info, info.body!.fields.inList ? [fields] : fields, path);
}

/** The JSON text of a body with these fields (see withFields). */
const fieldsText = (info: OperationInfo, fields: Record<string, unknown>): string =>
  toJsonText(info.body!.fields.inList ? [fields] : fields);

/** Where a field of the body is, for the issues that name it. */
const fieldLoc = (info: OperationInfo, ...rest: (string | number)[]) => [...info.body!.fields.loc, ...rest];

// ---------------------------------------------------------------------------------------------
// Phase 1: refused requests.

interface Case {
  api: ApiName;
  request: RawRequest;
  /** false: send no credential beyond the request's own headers. */
  defaultCredential?: boolean;
  /** What the answer must be, beyond being documented and a 4xx. */
  check(response: RawResponse, issues: Issue[]): void;
}

const status = (expected: number | number[]) => (response: RawResponse) =>
  expect([expected].flat(), `status ${response.status}`).toContain(response.status);

/** A 422 with an issue at `prefix` (or below it), of `type` when given. */
const issueAt =
  (prefix: (string | number)[], type?: string) =>
  (response: RawResponse, issues: Issue[]): void => {
    expect(response.status).toBe(422);
    const matching = issues.filter((issue) => prefix.every((part, i) => issue.loc[i] === part) && (!type || issue.type === type));
    expect(matching.length, `expected an issue at ${JSON.stringify(prefix)}${type ? ` of type ${type}` : ''}`).toBeGreaterThan(0);
  };

async function runRefused(c: Case): Promise<void> {
  const response = await send(c.api, c.request, { defaultCredential: c.defaultCredential });
  const issues = expectDocumented(ledger, c.api, 'invalid', c.request, response);
  const where = describeExchange(c.request, response);
  if (response.status < 400) ledger.acceptedInvalid++;
  expect(response.status, `an invalid request was accepted\n${where}`).toBeGreaterThanOrEqual(400);
  try {
    c.check(response, issues);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${where}`);
  }
}

/** Every top-level body field of every operation, with the values its schema refuses. */
const FIELD_MUTATIONS = WITH_BODY.flatMap((info) =>
  Object.entries(info.body!.fields.schema.properties ?? {}).flatMap(([name, schema]) => {
    const bad = invalidValue(SPECS[info.api].spec, schema);
    return bad ? [{ info, name, bad }] : [];
  }),
);

/** One top-level field of a valid body replaced by a value its schema refuses. */
const badFieldCase: fc.Arbitrary<Case> = pick(FIELD_MUTATIONS)
  .chain(({ info, name, bad }) => fc.tuple(fc.constant(info), fc.constant(name), bad))
  .map(([info, name, value]) => ({
    api: info.api,
    request: withFields(info, { ...validBody(info), [name]: value }),
    check: issueAt(fieldLoc(info, name)),
  }));

/**
 * The bodies whose schema is open (`additionalProperties: true`): the protocol's command envelope,
 * which the protocol declares extensible. A field they do not declare is ignored, not refused:
 * phase 2 sends them such fields as valid requests.
 */
const isOpenBody = (info: OperationInfo) => info.body!.fields.schema.additionalProperties === true;

/** A key no schema declares, ordinary or one that trips naive object handling. */
const undeclaredKey = fc.oneof(
  fc.string({ minLength: 1, maxLength: 20 }),
  pick(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'limit ', 'Metadata', 'threadId', 'ttl', 'select']),
);

/** A field the schema does not declare, at the top level of a closed body. */
const extraFieldCase: fc.Arbitrary<Case> = fc
  .tuple(pick(WITH_BODY.filter((info) => !isOpenBody(info))), undeclaredKey, smallJson)
  .filter(([info, key]) => !(key in (info.body!.fields.schema.properties ?? {})))
  .map(([info, key, value]) => {
    const body = validBody(info);
    setOwn(body, key, value);
    return { api: info.api, request: withFields(info, body), check: issueAt(fieldLoc(info, key), 'extra_forbidden') };
  });

/** A required field left out, or a required body not sent at all. */
const missingFieldCase: fc.Arbitrary<Case> = pick(WITH_BODY.filter((info) => info.body!.required))
  .chain((info) =>
    fc.tuple(
      fc.constant(info),
      fc.option(pick((info.body!.fields.schema.required as string[] | undefined) ?? ['(whole body)']), { nil: undefined }),
    ),
  )
  .map(([info, field]) => {
    if (field === undefined || field === '(whole body)') {
      const request: RawRequest = { method: methodOf(info), path: pathOf(info), headers: { 'content-type': 'application/json' } };
      return { api: info.api, request, check: issueAt(['body'], 'missing') };
    }
    const body = validBody(info);
    delete body[field];
    return { api: info.api, request: withFields(info, body), check: issueAt(fieldLoc(info, field), 'missing') };
  });

/** The whole body of the wrong JSON type. */
const notAnObjectCase: fc.Arbitrary<Case> = fc
  .tuple(
    pick(WITH_BODY),
    fc.oneof(
      fc.array(jsonScalar, { maxLength: 3 }),
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    ),
  )
  .map(([info, value]) => ({ api: info.api, request: withJsonBody(info, value), check: issueAt(['body']) }));

const brokenJson = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 60 }),
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
      '{"a":1}{"b":2}',
      'tru',
      '"unterminated',
      '{"a": 01}',
      '{"a": .5}',
      '{"a": 1e}',
      '{"a": 0x10}',
    ),
  )
  .filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return text.trim().length > 0;
    }
  });

const invalidJsonCase: fc.Arbitrary<Case> = fc.tuple(pick(WITH_BODY), brokenJson).map(([info, text]) => ({
  api: info.api,
  request: { method: methodOf(info), path: pathOf(info), headers: { 'content-type': 'application/json' }, body: text },
  check: issueAt(['body'], 'json_invalid'),
}));

/** Byte sequences that are never UTF-8: a lone continuation byte, overlong forms, surrogates, truncations, bytes past U+10FFFF. */
const invalidUtf8 = fc.constantFrom(
  [0x80],
  [0xbf],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf0, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xff],
  [0xfe, 0xff],
  [0xe2, 0x82],
  [0xc3],
  [0xe9],
);

/** A valid body with bytes that are not UTF-8 put into one of its strings (or anywhere): 400. */
const invalidUtf8Case: fc.Arbitrary<Case> = fc.tuple(pick(WITH_BODY), invalidUtf8, fc.nat()).map(([info, bytes, at]) => {
  const text = Buffer.from(fieldsText(info, validBody(info)));
  const quotes = [...text.entries()].filter(([, byte]) => byte === 0x22).map(([i]) => i);
  const position = quotes.length ? quotes[at % quotes.length]! + 1 : at % (text.length + 1);
  const body = Buffer.concat([text.subarray(0, position), Buffer.from(bytes), text.subarray(position)]);
  return {
    api: info.api,
    request: { method: methodOf(info), path: pathOf(info), headers: { 'content-type': 'application/json' }, body },
    check: (response: RawResponse) => {
      expect(response.status).toBe(400);
      expect((response.json as { detail: string }).detail).toMatch(/^Request body is not valid UTF-8 \(invalid sequence at byte \d+: /);
    },
  };
});

/** The top-level fields that take free-form JSON (metadata, values), where any value but the encoding's own faults is accepted. */
const FREE_FORM_FIELDS = WITH_BODY.flatMap((info) =>
  Object.entries<any>(info.body!.fields.schema.properties ?? {})
    .filter(([, schema]) => {
      const resolved = resolveRef(SPECS[info.api].spec, schema);
      return resolved.type === 'object' && resolved.additionalProperties !== false;
    })
    .map(([name]) => ({ info, name })),
);

/** A number that is not finite (1E400), or a lone surrogate in a string or a key, inside a free-form field: a 422 at that value. */
const unstorableValueCase: fc.Arbitrary<Case> = fc
  .tuple(
    pick(FREE_FORM_FIELDS),
    fc.oneof(
      fc.constantFrom('1E400', '-1E400', '1e999', `1${'0'.repeat(400)}`).map((text) => ({ kind: 'finite_number', json: text, key: 'x' })),
      fc
        .constantFrom('\\ud800', '\\udfff', 'a\\ud83d', '\\ude00b')
        .map((surrogate) => ({ kind: 'string_unicode', json: `"${surrogate}"`, key: 'x' })),
      fc.constantFrom('\\ud800', 'k\\udc00').map((surrogate) => ({ kind: 'string_unicode', json: '1', key: surrogate })),
    ),
  )
  .map(([{ info, name }, { kind, json, key }]) => {
    const placeholder = '__unstorable__';
    const text = fieldsText(info, { ...validBody(info), [name]: { [placeholder]: 0 } }).replace(`"${placeholder}":0`, `"${key}": ${json}`);
    const request: RawRequest = { method: methodOf(info), path: pathOf(info), headers: { 'content-type': 'application/json' }, body: text };
    return { api: info.api, request, check: issueAt(fieldLoc(info, name), kind) };
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

/** The media types besides application/json whose JSON bodies an API reads (its `x-json-media-types`). */
const jsonMediaTypesOf = (api: ApiName): string[] => SPECS[api].spec['x-json-media-types'] ?? [];

const contentTypeCase: fc.Arbitrary<Case> = fc
  .tuple(pick(WITH_BODY), contentTypes)
  .filter(([info, type]) => type === undefined || !jsonMediaTypesOf(info.api).includes(type.split(';')[0]!.trim().toLowerCase()))
  .map(([info, type]) => ({
    api: info.api,
    request: {
      method: methodOf(info),
      path: pathOf(info),
      headers: type === undefined ? {} : ({ 'content-type': type } as Record<string, string>),
      body: fieldsText(info, validBody(info)),
    },
    check: status(415),
  }));

/** A path parameter that is not a valid value: 422 naming it, or 404/405 when it no longer routes. */
const badPathParamCase: fc.Arbitrary<Case> = pick(WITH_PATH_PARAMS)
  .chain((info) =>
    pick(info.pathParams).chain((parameter: any) => {
      const { spec, validate } = SPECS[info.api];
      const bad = fc.oneof(
        (invalidValue(spec, parameter.schema) ?? fc.string())
          .filter((v) => typeof v !== 'object' || v === null)
          .map(String)
          // A value of the wrong type, as text, is text a free-form string parameter (a subgraph namespace) accepts.
          .filter((text) => !validate(parameter.schema, text).valid),
        fc.constantFrom('%FF', '%C0%80', '%ED%A0%80', 'ok%FE'),
      );
      return fc.tuple(fc.constant(info), fc.constant(parameter.name as string), bad, fc.boolean());
    }),
  )
  .map(([info, name, value, encode]) => {
    // Raw: the value as is, with only what HTTP cannot carry escaped (a `/` stays a separator).
    const escaped = /^(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-F]{2})*$/i.test(value) && value.includes('%');
    const segment = escaped
      ? value
      : encode
        ? encodeURIComponent(value)
        : value.replace(/[^!$&'()*+,;=:@/A-Za-z0-9._~%-]/g, encodeURIComponent);
    const request: RawRequest = info.body
      ? withFields(info, validBody(info), pathOf(info, { [name]: segment }))
      : { method: methodOf(info), path: pathOf(info, { [name]: segment }) };
    return {
      api: info.api,
      request,
      check: (response: RawResponse, issues: Issue[]) => {
        expect([404, 405, 422]).toContain(response.status);
        if (response.status === 422) expect(issues.some((i) => i.loc[0] === 'path' && i.loc[1] === name)).toBe(true);
      },
    };
  });

/** Query text a parameter's schema refuses: other notations of numbers, out of range, not in the enum, too long, not UTF-8. */
function badQueryText(spec: any, node: any): fc.Arbitrary<string> | null {
  const schema = resolveRef(spec, node);
  const letters = fc.stringMatching(/^[a-z]{1,10}$/);
  const notUtf8 = fc.constantFrom('%FF', '%C0%AF', '%ED%A0%80');
  const types = [schema.type].flat();
  if (types.includes('boolean'))
    return fc
      .oneof(letters, notUtf8, fc.constantFrom('yes', 'no', '01', '2', 'TRUE', 'True', ' true', 'null', '[]'))
      .filter((v) => v !== 'true' && v !== 'false');
  if (types.includes('integer')) {
    const options: fc.Arbitrary<string>[] = [
      letters,
      notUtf8,
      // Other notations of a number the schema would accept.
      fc.constantFrom(
        '0x10',
        '0X1',
        '1e1',
        '1E1',
        '%2B5',
        '%205',
        '5%20',
        '5.0',
        '1.5',
        '--1',
        '0b1',
        '0o7',
        '1_0',
        'Infinity',
        'NaN',
        '',
        '[]',
        'null',
      ),
    ];
    if (typeof schema.minimum === 'number') options.push(fc.integer({ min: -1e6, max: schema.minimum - 1 }).map(String));
    if (typeof schema.maximum === 'number')
      options.push(
        fc.constantFrom(
          String(BigInt(schema.maximum) + 1n),
          ...EXTREME_NUMBERS.filter((n) => /^\d+$/.test(n) && Number(n) > schema.maximum),
        ),
      );
    options.push(fc.constantFrom('1E400', '1e308', '-1E400'));
    return fc.oneof(...options);
  }
  if (schema.enum) return fc.oneof(letters, notUtf8, fc.constantFrom('', ' ', 'deployed')).filter((v) => !schema.enum.includes(v));
  if (typeof schema.maxLength === 'number')
    return fc.oneof(
      notUtf8,
      fc.integer({ min: schema.maxLength + 1, max: schema.maxLength + 50 }).map((n) => 'q'.repeat(n)),
    );
  return notUtf8;
}

const QUERY_MUTATIONS = OPERATIONS.flatMap((info) =>
  info.queryParams.flatMap((parameter: any) => {
    const bad = badQueryText(SPECS[info.api].spec, parameter.schema);
    return bad ? [{ info, name: parameter.name as string, bad }] : [];
  }),
);

/** A query parameter with text its schema refuses (`limit=0x10`, `subgraphs=maybe`, `offset=1E400`), written as given. */
const badQueryCase: fc.Arbitrary<Case> = pick(QUERY_MUTATIONS)
  .chain(({ info, name, bad }) => fc.tuple(fc.constant(info), fc.constant(name), bad))
  .map(([info, name, text]) => {
    const target = `${pathOf(info)}?${name}=${text.replace(/[^%A-Za-z0-9._~!$'()*,;:@/?+-]/g, encodeURIComponent)}`;
    const request: RawRequest = info.body ? withFields(info, validBody(info), target) : { method: methodOf(info), path: target };
    return { api: info.api, request, check: issueAt(['query', name]) };
  });

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'PURGE', 'LINK', 'SEARCH'];

/** A method the path does not declare: 405 with an Allow header listing the declared ones (checked by the referee). */
const wrongMethodCase: fc.Arbitrary<Case> = fc
  .tuple(pick(OPERATIONS), pick(METHODS))
  // Declared by any operation of the path, a stream's too (POST /threads/{thread_id}/stream/events
  // streams; GET on it is the WebSocket's).
  .filter(([info, method]) => !DECLARED.some((o) => o.api === info.api && o.op.path === info.op.path && methodOf(o) === method))
  // GET /threads/search reaches getThread (`search` is a thread ID there), as the spec routes it.
  .filter(([info, method]) => !(info.op.path === '/threads/search' && method === 'GET'))
  .map(([info, method]) => ({ api: info.api, request: { method, path: pathOf(info) }, check: status(405) }));

/** Control plane without a valid credential: 401 {detail} before anything else is looked at. */
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
  .filter(([, headers]) => !Object.values(headers).some((v) => [TENANT.apiKey, `Bearer ${TENANT.bearer}`, TENANT.id].includes(v)))
  .map(([info, given, withBadBody]) => {
    const headers = given as Record<string, string>;
    const request: RawRequest = { method: methodOf(info), path: pathOf(info), headers: { ...headers } };
    if (info.body)
      Object.assign(request, {
        headers: { ...headers, 'content-type': 'application/json' },
        body: withBadBody ? '{"not": valid' : fieldsText(info, validBody(info)),
      });
    return { api: 'control-plane' as const, request, defaultCredential: false, check: status(401) };
  });

/** Nesting past the limit, as the whole body or inside a free-form field: 422 json_too_deep. */
const tooDeepCase: fc.Arbitrary<Case> = fc
  .tuple(
    pick(WITH_BODY),
    fc.oneof(fc.integer({ min: LIMITS['json-depth'] + 1, max: 200 }), fc.integer({ min: 200, max: 10_000 })),
    fc.constantFrom('object', 'array'),
    fc.boolean(),
  )
  .map(([info, depth, kind, wrapped]) => {
    const nested = (n: number) => (kind === 'object' ? `${'{"a":'.repeat(n)}1${'}'.repeat(n)}` : `${'['.repeat(n)}${']'.repeat(n)}`);
    const free = FREE_FORM_FIELDS.find((f) => f.info === info);
    const body =
      wrapped && free
        ? fieldsText(info, { ...validBody(info), [free.name]: { deep: 0 } }).replace('"deep":0', `"deep": ${nested(depth)}`)
        : nested(depth);
    return {
      api: info.api,
      request: { method: methodOf(info), path: pathOf(info), headers: { 'content-type': 'application/json' }, body },
      check: issueAt(['body'], 'json_too_deep'),
    };
  });

/** Headers or a URL past the header limit: 431 {detail}, answered before routing. */
const oversizedHeadCase: fc.Arbitrary<Case> = fc
  .tuple(
    pick(OPERATIONS),
    fc.constantFrom('header', 'many-headers', 'query', 'path'),
    fc.integer({ min: 1, max: 4 * LIMITS['header-bytes'] }),
  )
  .map(([info, where, extra]) => {
    const size = LIMITS['header-bytes'] + extra;
    const request: RawRequest = info.body ? withFields(info, validBody(info)) : { method: methodOf(info), path: pathOf(info) };
    if (where === 'header') request.headers = { ...request.headers, 'x-padding': 'h'.repeat(size) };
    if (where === 'many-headers')
      request.headers = {
        ...request.headers,
        ...Object.fromEntries(Array.from({ length: Math.ceil(size / 90) + 1 }, (_, i) => [`x-h${i}`, 'v'.repeat(90)])),
      };
    if (where === 'query') request.path = `${request.path}?padding=${'q'.repeat(size)}`;
    if (where === 'path') request.path = `${request.path}/${'p'.repeat(size)}`;
    return { api: info.api, request, check: status(431) };
  });

/** The body of the operation at or past the limit: 413 (the operations without a body do not read it). */
function bodyTooLarge(info: OperationInfo, chunked: boolean): RawRequest {
  const free = FREE_FORM_FIELDS.find((f) => f.info === info)?.name ?? 'padding';
  const text = fieldsText(info, { ...validBody(info), [free]: { blob: 0 } }).replace(
    '"blob":0',
    `"blob": "${'x'.repeat(LIMITS['body-bytes'])}"`,
  );
  return { method: methodOf(info), path: pathOf(info), headers: { 'content-type': 'application/json' }, body: text, chunked };
}

// ---------------------------------------------------------------------------------------------
// Phase 2: valid requests.

/** A generated valid request, resolved against the model's records only when it is sent. */
/** The cron operations that name an assistant, and those that take a time zone. */
const CRON_CREATES = new Set(['createCron', 'createThreadCron']);
const CRON_WRITES = new Set([...CRON_CREATES, 'updateCron']);
const KNOWN_TIME_ZONES = ['UTC', 'Europe/Lisbon', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'];

interface ValidTemplate {
  info: OperationInfo;
  /** Per path parameter: an existing record (by index) or a missing one, and how a UUID is written. */
  pathChoices: Record<string, { existing: boolean; index: number; form: 'plain' | 'upper' | 'urn'; missing: string }>;
  query: Record<string, unknown>;
  body: unknown;
  /** For createThread: reuse an existing thread ID (by index) instead of the generated one. */
  reuseThread: number | null;
  /** For the operations that create runs: name an assistant the emulator has (by index) instead of the generated name. */
  knownAssistant: number | null;
  /** For the cron creates and updateCron: a time zone the IANA database has instead of the generated name, or none. */
  knownTimeZone: string | null;
  /** For createAssistant: reuse an existing assistant ID (by index) instead of the generated one, or none. */
  reuseAssistant: number | null;
  /** For createAssistant and updateAssistant: a graph the deployment serves (by index) instead of the generated graph_id. */
  servedGraph: number | null;
  security: string | null;
  charset: boolean;
}

function validTemplate(info: OperationInfo): fc.Arbitrary<ValidTemplate> {
  const { spec, validate } = SPECS[info.api];
  const pathChoices = fc.record(
    Object.fromEntries(
      info.pathParams.map((parameter: any) => [
        parameter.name,
        fc.record({
          existing: fc.boolean(),
          index: fc.nat(),
          form: fc.constantFrom('plain', 'plain', 'plain', 'upper', 'urn'),
          missing:
            resolveRef(spec, parameter.schema).format === 'uuid' ? fc.uuid() : (validValue(spec, parameter.schema) as fc.Arbitrary<string>),
        }),
      ]),
    ),
  ) as fc.Arbitrary<ValidTemplate['pathChoices']>;
  const query = fc.record(
    Object.fromEntries(info.queryParams.map((parameter: any) => [parameter.name, validValue(spec, parameter.schema)])),
    { requiredKeys: info.queryParams.filter((p: any) => p.required).map((p: any) => p.name as string) as never[] },
  );
  const body = info.body
    ? (info.body.required
        ? validValue(spec, info.body.schema)
        : fc.option(validValue(spec, info.body.schema), { nil: undefined, freq: 5 })
      ).filter((value) => value === undefined || validate(info.body!.pointer, value).valid)
    : fc.constant(undefined);
  // Any of the operation's security alternatives; the agent server of this test requires no key,
  // so its requests go without one (`{}`).
  const securities =
    info.api === 'agent-server'
      ? [null]
      : (info.op.operation.security ?? spec.security ?? []).map((requirement: object) => Object.keys(requirement)[0] ?? null);
  return fc.record({
    info: fc.constant(info),
    pathChoices,
    query,
    body,
    reuseThread: info.op.operationId === 'createThread' ? fc.option(fc.nat(), { nil: null, freq: 3 }) : fc.constant(null),
    knownAssistant:
      RUN_CREATES.has(info.op.operationId) || CRON_CREATES.has(info.op.operationId)
        ? fc.option(fc.nat(), { nil: null, freq: 2 })
        : fc.constant(null),
    // A generated time zone name is almost never one the IANA database has: most crons name one that is.
    knownTimeZone: CRON_WRITES.has(info.op.operationId)
      ? fc.option(fc.constantFrom(...KNOWN_TIME_ZONES), { nil: null, freq: 4 })
      : fc.constant(null),
    reuseAssistant: info.op.operationId === 'createAssistant' ? fc.option(fc.nat(), { nil: null, freq: 3 }) : fc.constant(null),
    // A generated graph_id is almost never one the deployment serves: most creates and updates name one that is.
    servedGraph: ['createAssistant', 'updateAssistant'].includes(info.op.operationId)
      ? fc.option(fc.nat(), { nil: null, freq: 4 })
      : fc.constant(null),
    security: fc.constantFrom(...securities),
    charset: fc.boolean(),
  });
}

const asUuidForm = (id: string, form: string) => (form === 'upper' ? id.toUpperCase() : form === 'urn' ? `urn:uuid:${id}` : id);
const nth = <T>(items: Iterable<T>, index: number): T | undefined => {
  const list = [...items];
  return list.length ? list[index % list.length] : undefined;
};

/** The request a template stands for, with the records the model holds now. */
function resolveTemplate(template: ValidTemplate): { request: RawRequest; parsed: ParsedRequest } {
  const { info } = template;
  const values: Record<string, string> = {};
  for (const [name, choice] of Object.entries(template.pathChoices)) {
    let existing: string | undefined;
    if (name === 'thread_id') existing = nth(model.threads.keys(), choice.index);
    if (name === 'checkpoint_id')
      existing =
        nth(model.threads.get(values.thread_id?.replace(/^urn:uuid:/i, '').toLowerCase() ?? '') ?? [], choice.index) ?? ids.checkpoint_id;
    if (name === 'deployment_id') existing = nth(model.deployments.keys(), choice.index);
    if (name === 'revision_id')
      existing =
        nth(model.deployments.get(values.deployment_id?.replace(/^urn:uuid:/i, '').toLowerCase() ?? '')?.revisions ?? [], choice.index) ??
        ids.revision_id;
    if (name === 'provider_id') existing = nth(model.providers, choice.index);
    // A join waits for its run to end: it names only runs that have.
    if (name === 'run_id')
      existing = nth(model.runsOf(canonicalId(values.thread_id ?? ''), { ended: info.op.operationId === 'joinRun' }), choice.index);
    if (name === 'name') existing = nth(model.pools, choice.index);
    if (name === 'cron_id') existing = nth(model.crons.keys(), choice.index);
    // An assistant by its ID, or a served graph's ID naming its default assistant.
    if (name === 'assistant_id') existing = nth([...model.assistants.keys(), ...model.graphs.keys()], choice.index);
    const isUuid =
      resolveRef(SPECS[info.api].spec, info.pathParams.find((p) => p.name === name).schema).format === 'uuid' ||
      (name === 'assistant_id' && existing !== undefined && model.assistants.has(existing));
    values[name] = choice.existing && existing ? (isUuid ? asUuidForm(existing, choice.form) : existing) : choice.missing;
  }
  let body = template.body;
  // Each secret value made unique, so that finding it in the database file can only mean it was stored.
  if (Array.isArray((body as { secrets?: unknown })?.secrets))
    body = {
      ...(body as object),
      secrets: (body as { secrets: { name: string; value: string }[] }).secrets.map((s) => ({
        ...s,
        value: `${s.value}:${crypto.randomUUID()}`,
      })),
    };
  if (template.reuseThread !== null && model.threads.size > 0)
    body = { ...(body as object), thread_id: nth(model.threads.keys(), template.reuseThread) };
  if (RUN_CREATES.has(info.op.operationId)) body = runnable(info.op.operationId, body, template, values.thread_id);
  if (CRON_CREATES.has(info.op.operationId) && template.knownAssistant !== null)
    body = { ...(body as object), assistant_id: nth([...model.graphs.keys(), ...model.assistants.keys()], template.knownAssistant) };
  if (template.knownTimeZone !== null && typeof (body as { timezone?: unknown })?.timezone === 'string')
    body = { ...(body as object), timezone: template.knownTimeZone };
  if (template.reuseAssistant !== null && model.assistants.size > 0)
    body = { ...(body as object), assistant_id: nth(model.assistants.keys(), template.reuseAssistant) };
  if (template.servedGraph !== null && model.graphs.size > 0)
    body = { ...(body as object), graph_id: nth(model.graphs.keys(), template.servedGraph) };
  // Form style, exploded (a query parameter's default in OpenAPI, and what the spec's "given once
  // per name" says): an array is its name once per item, and an empty array is no parameter at all.
  const query = Object.entries(template.query)
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((item) => `${name}=${encodeURIComponent(String(item))}`))
    .join('&');
  const target = `${pathOf(info, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, encodeURIComponent(v)])))}${query ? `?${query}` : ''}`;
  const headers: Record<string, string> = { ...(template.security ? CREDENTIALS[template.security] : {}) };
  const request: RawRequest = { method: methodOf(info), path: target, headers };
  if (body !== undefined) {
    headers['content-type'] = template.charset ? 'application/json; charset=utf-8' : 'application/json';
    request.body = JSON.stringify(body);
  }
  return {
    request,
    parsed: {
      api: info.api,
      operation: info.op,
      path: values,
      query: template.query,
      body: body === undefined ? undefined : JSON.parse(request.body as string),
    },
  };
}

const MAX_AFTER_SECONDS = SPECS['agent-server'].spec.components.schemas.RunAfterSeconds.maximum as number;
const canonicalId = (id: string) => id.replace(/^urn:uuid:/i, '').toLowerCase();

/**
 * A run body the test can see through: the assistant the template chose, and no run that starts
 * while the test runs. A background run waiting for its `after_seconds` is moved a day out, so that
 * nothing changes behind the record model's back; a waited run that could only end when another
 * one does (a delay, or enqueued behind a run in flight) would never answer, so it starts now or
 * interrupts what is in flight.
 */
function runnable(operationId: string, body: any, template: ValidTemplate, threadId: string | undefined): any {
  const waits = operationId === 'waitRun' || operationId === 'waitStatelessRun';
  const busy = threadId !== undefined && model.isBusy(canonicalId(threadId));
  const adjust = (item: any) => {
    const run = { ...item };
    if (template.knownAssistant !== null)
      run.assistant_id = nth([...model.graphs.keys(), ...model.assistants.keys()], template.knownAssistant);
    if (waits) {
      delete run.after_seconds;
      if (busy && run.multitask_strategy === 'enqueue') run.multitask_strategy = 'interrupt';
    }
    // A batch item may give it by the SDK's name too.
    for (const name of ['after_seconds', 'afterSeconds'])
      if (!waits && run[name] > 0) run[name] = Math.min(run[name] + 86_400, MAX_AFTER_SECONDS);
    return run;
  };
  return Array.isArray(body) ? body.map(adjust) : adjust(body);
}

async function runValid(template: ValidTemplate): Promise<void> {
  const { request, parsed } = resolveTemplate(template);
  const prediction = model.predict(parsed);
  const response = await send(template.info.api, request, { defaultCredential: false });
  const issues = expectDocumented(ledger, template.info.api, 'valid', request, response);
  const where = `${describeExchange(request, response)}\npredicted: ${JSON.stringify(prediction)}`;
  if (response.status === 422 && !('refusals' in prediction))
    expect.fail(`a valid request was refused by a rule the spec does not state\n${where}`);
  expect(response.status, where).toBe(prediction.status);
  if ('refusals' in prediction) {
    const examples = refusalExamples(template.info.api, template.info.op);
    for (const refusal of prediction.refusals) {
      const documented = examples.get(refusal.example);
      expect(
        documented,
        `the rule behind ${refusal.example} has no 422 example of that name in ${template.info.op.operationId}\n${where}`,
      ).toBeDefined();
      if (refusal.prefixOnly) continue;
      const answered = issues.find((issue) => JSON.stringify(issue.loc) === JSON.stringify(refusal.loc));
      expect(answered, `no issue at ${JSON.stringify(refusal.loc)}\n${where}`).toBeDefined();
      expect(answered!.type, where).toBe(documented![0]!.type);
    }
    for (const issue of issues) {
      const explained = prediction.refusals.some((r) =>
        r.prefixOnly ? r.loc.every((part, i) => issue.loc[i] === part) : JSON.stringify(r.loc) === JSON.stringify(issue.loc),
      );
      expect(explained, `the issue at ${JSON.stringify(issue.loc)} is no stated rule\n${where}`).toBe(true);
    }
  }
  model.apply(parsed, response.status, response.json);
  if (response.status < 300)
    for (const secret of (parsed.body as { secrets?: { value: string }[] } | undefined)?.secrets ?? []) secretValues.add(secret.value);
}

// ---------------------------------------------------------------------------------------------
// Phase 3: anything.

/** Any method on any path (random, or a known route bent out of shape), with or without a body. */
const randomRouteCase = fc
  .tuple(
    pick<ApiName>(['agent-server', 'control-plane']),
    pick(METHODS),
    fc.oneof(
      fc.webPath(),
      fc
        .tuple(
          pick(OPERATIONS),
          fc.webSegment(),
          fc.constantFrom('/', '', '//', '/..', '/./', '?', '?x=1&x=2', '#frag', '%', '%2F', '%00', '%FF'),
        )
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
    fc.option(
      fc.oneof(
        smallJson,
        fc.integer({ min: 1, max: 120 }).map((n) => new RawNumber(`${'['.repeat(n)}${']'.repeat(n)}`)),
      ),
      { nil: undefined },
    ),
  )
  .map(([api, method, route, body]) => {
    const request: RawRequest = { method, path: route === '' || (!route.startsWith('/') && route !== '*') ? `/${route}` : route };
    if (body !== undefined && method !== 'GET' && method !== 'HEAD')
      Object.assign(request, { headers: { 'content-type': 'application/json' }, body: toJsonText(body) });
    return { api, request };
  });

// ---------------------------------------------------------------------------------------------

const FROZEN_NOW = Date.now();

beforeAll(async () => {
  emulator = await startTestEmulator({
    db: dbFile,
    revisionStepMs: 20,
    // A stopped clock: a thread created with a ttl must not expire halfway through the run, or
    // the record model (which has no clock) would expect it still there.
    now: () => FROZEN_NOW,
    config: {
      tenants: [
        {
          id: TENANT.id,
          api_keys: [TENANT.apiKey],
          bearer_tokens: [TENANT.bearer],
          oauth_providers: [
            {
              provider_id: 'github',
              name: 'GitHub',
              client_id: 'Iv1.fuzz',
              auth_url: 'https://github.com/login/oauth/authorize',
              token_url: 'https://github.com/login/oauth/access_token',
            },
          ],
          sandbox_pools: [{ name: 'python-pool', template_name: 'python-3-12', replicas: 2 }],
        },
      ],
    },
  });
  model.providers.add('github');
  model.pools.add('python-pool');
  ids.provider_id = 'github';
  ids.name = 'python-pool';

  const thread = (
    await send(
      'agent-server',
      jsonRequest('POST', '/threads', {
        supersteps: [{ updates: [{ as_node: '__input__', values: { a: 1 } }] }, { updates: [{ as_node: 'agent', values: { b: 2 } }] }],
      }),
    )
  ).json as any;
  ids.thread_id = thread.thread_id;
  // The default graph, agent, and its default assistant (the UUID v5 of its ID, as LangGraph derives it).
  model.serveGraph('agent', 'fe096781-5601-53d2-b2f6-0d3403f7e9ca');
  const assistant = (await send('agent-server', jsonRequest('POST', '/assistants', { graph_id: 'agent', name: 'fuzz' }))).json as any;
  model.assistants.set(assistant.assistant_id, { graphId: 'agent', versions: new Map([[1, 'agent']]) });
  ids.assistant_id = assistant.assistant_id;
  const history = (await send('agent-server', jsonRequest('POST', `/threads/${thread.thread_id}/history`, {}))).json as any[];
  ids.checkpoint_id = history[0].checkpoint_id;
  model.threads.set(thread.thread_id, new Set(history.map((state) => state.checkpoint_id)));

  for (const body of [
    { name: 'fuzz-container', source: 'external_container', source_revision_config: { image_uri: 'registry.example/agent:1' } },
    {
      name: 'fuzz-git',
      source: 'git_host',
      source_config: { repo_url: 'https://github.com/acme/agent', build_on_push: true },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    },
  ]) {
    const deployment = (await send('control-plane', jsonRequest('POST', '/v2/deployments', body))).json as any;
    model.deployments.set(deployment.id, { deployment, revisions: new Set([deployment.latest_revision_id]) });
    ids.deployment_id ??= deployment.id;
    ids.revision_id ??= deployment.latest_revision_id;
  }
});

afterEach(() => {
  // Each test answers for what the emulator reported while it ran (contract violations, crashes).
  expect(emulator.errors.splice(0), 'the emulator reported contract violations or internal errors').toEqual([]);
});

afterAll(async () => {
  console.log(`fuzz (seed ${SEED}; rerun with FUZZ_SEED=${SEED}):\n${ledger.summary()}`);
  await emulator?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('phase 1: invalid requests are refused as declared, and change no stored record', () => {
  let before = '';
  beforeAll(() => {
    before = storedRecords();
  });

  const property = (name: string, arbitrary: fc.Arbitrary<Case>, numRuns: number) =>
    it(name, async () => {
      await fc.assert(fc.asyncProperty(arbitrary, runRefused), propertyOptions(numRuns));
    });

  property(
    'a top-level field its schema refuses (type, range and extremes, format, enum, length, pattern, items, nested fields)',
    badFieldCase,
    6000,
  );
  property('an undeclared field', extraFieldCase, 1200);
  property('a required field missing, or no body at all', missingFieldCase, 700);
  property('a body that is not an object', notAnObjectCase, 700);
  property('a body that is not JSON', invalidJsonCase, 1500);
  property('a body that is not UTF-8: 400', invalidUtf8Case, 1500);
  property('a number that is not finite, or a lone surrogate, in a free-form field', unstorableValueCase, 1200);
  property('a wrong or missing content type: 415', contentTypeCase, 1000);
  property('a bad path parameter (bad UUIDs, patterns, lengths, escapes that are not UTF-8)', badPathParamCase, 2000);
  property('a bad query parameter (0x10, 1e1, +5, 5.0, out of range, 1E400, not in the enum, too long, not UTF-8)', badQueryCase, 2000);
  property('a method the path does not declare: 405 with Allow', wrongMethodCase, 800);
  property('control plane without a valid credential: 401, even with a bad body', badCredentialCase, 1000);
  property('nesting past the limit: 422 json_too_deep', tooDeepCase, 150);
  property('headers, a query or a path past the header limit: 431', oversizedHeadCase, 150);

  it.each([
    ['with Content-Length', false],
    ['chunked, without Content-Length', true],
  ])('a body over the limit is refused with 413 by every operation that takes one (%s)', async (_name, chunked) => {
    for (const info of WITH_BODY) await runRefused({ api: info.api, request: bodyTooLarge(info, chunked), check: status(413) });
  });

  it('requests node refuses to parse get a declared JSON answer (400, 405 or 431), not a bare or missing one', async () => {
    const host = new URL(emulator.agentServerUrl).host;
    const exchanges = {
      'unknown method': `FROB /threads HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`,
      CONNECT: `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      'Content-Length not a number': `POST /threads HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`,
      'two different Content-Lengths': `POST /threads HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      'a space in the target': `GET /threads/a b HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      'a control character in a header': `GET /threads HTTP/1.1\r\nHost: ${host}\r\nX-Bad: a\u0001b\r\n\r\n`,
      'HTTP/2.0 on HTTP/1 framing': `GET /threads HTTP/2.0\r\nHost: ${host}\r\n\r\n`,
    };
    for (const [name, bytes] of Object.entries(exchanges)) {
      const answer = await rawSocketExchange(emulator.agentServerUrl, bytes);
      ledger.record({ api: 'agent-server', operation: '(no operation)', kind: 'invalid', status: answer.status ?? 0 });
      expect([400, 405, 431], `${name}: ${answer.raw}`).toContain(answer.status);
      expect(answer.headers['content-type'], name).toMatch(/^application\/json/);
      expect(SPECS['agent-server'].validate('#/components/schemas/ErrorDetail', JSON.parse(answer.body)).errors, name).toBe('');
      if (answer.status === 405) expect(answer.headers, name).toHaveProperty('allow');
    }
  });

  it('left every stored record as it was', () => {
    expect(storedRecords()).toBe(before);
  });
});

describe('phase 2: valid requests are accepted, unless a record is missing or a stated rule applies', () => {
  // Deletes last, so that the operations before them find records to act on.
  for (const info of [...OPERATIONS].sort((a, b) => Number(a.op.method === 'delete') - Number(b.op.method === 'delete'))) {
    it(`${info.op.operationId}`, async () => {
      await fc.assert(fc.asyncProperty(validTemplate(info), runValid), propertyOptions(info.body ? 600 : 300));
    });
  }

  // An open body (the protocol's command envelope) ignores a field it does not declare: the
  // request is as valid as without it, so the oracle predicts it as any valid request of the
  // operation (not the 422 extra_forbidden of a closed body, which phase 1 checks).
  for (const info of WITH_BODY.filter(isOpenBody)) {
    it(`${info.op.operationId}: an undeclared field is ignored (its body is open)`, async () => {
      const withUndeclared = fc
        .tuple(validTemplate(info), undeclaredKey, smallJson)
        .filter(([, key]) => !(key in (info.body!.fields.schema.properties ?? {})))
        .map(([template, key, value]) => {
          const body = { ...(template.body as Record<string, unknown>) };
          setOwn(body, key, value);
          return { ...template, body };
        });
      await fc.assert(fc.asyncProperty(withUndeclared, runValid), propertyOptions(300));
    });
  }

  it('a body at the size limit is accepted; the operations without a body ignore any body', async () => {
    const info = OPERATIONS.find((o) => o.op.operationId === 'createThread')!;
    const request = withJsonBody(info, { metadata: { blob: '' } });
    request.body = (request.body as string).replace(
      '"blob":""',
      `"blob":"${'x'.repeat(LIMITS['body-bytes'] - (request.body as string).length)}"`,
    );
    expect(Buffer.byteLength(request.body as string)).toBe(LIMITS['body-bytes']);
    const accepted = await send('agent-server', request);
    expectDocumented(ledger, 'agent-server', 'edge', request, accepted);
    expect(accepted.status).toBe(200);
    model.threads.set((accepted.json as any).thread_id, new Set());
    for (const other of WITHOUT_BODY.filter((o) => o.op.method === 'get')) {
      // With its required query parameters (a log's `type`), at their examples.
      const required = other.queryParams
        .filter((parameter: any) => parameter.required)
        .map((parameter: any) => `${parameter.name}=${encodeURIComponent(String(parameter.example))}`);
      const ignored: RawRequest = {
        method: methodOf(other),
        path: `${pathOf(other)}${required.length > 0 ? `?${required.join('&')}` : ''}`,
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(LIMITS['body-bytes'] + 1),
      };
      const response = await send(other.api, ignored);
      expectDocumented(ledger, other.api, 'edge', ignored, response);
      // A WebSocket's GET (an operation answering 101) without `Upgrade: websocket` is the 426 the
      // spec documents for it, body or not; the others answer as without a body.
      const served = '101' in other.op.operation.responses ? [426] : [200, 204, 404];
      expect(served, other.op.operationId).toContain(response.status);
    }
  });
});

describe('phase 3: random methods, paths and bodies are answered as declared', () => {
  it('never a 5xx, never an undeclared answer', async () => {
    await fc.assert(
      fc.asyncProperty(randomRouteCase, async ({ api, request }) => {
        const response = await send(api, request);
        expectDocumented(ledger, api, 'random', request, response);
      }),
      propertyOptions(2500),
    );
  });
});

describe('found by fuzzing, pinned', () => {
  it('query integers in another notation are a 422 naming the parameter, not read as a number', async () => {
    for (const [route, name] of [
      ['/v2/deployments', 'limit'],
      ['/v2/deployments', 'offset'],
      [`/v2/deployments/${ids.deployment_id}/revisions`, 'limit'],
      [`/v2/deployments/${ids.deployment_id}/revisions`, 'offset'],
    ]) {
      for (const text of ['0x10', '1e1', '%2B5', '5.0']) {
        const request: RawRequest = { method: 'GET', path: `${route}?${name}=${text}` };
        const response = await send('control-plane', request);
        issueAt(['query', name!], 'int_parsing')(response, expectDocumented(ledger, 'control-plane', 'edge', request, response));
      }
    }
  });

  it('no secret value sent to an accepted create or update is in the database file or its WAL', () => {
    expect(secretValues.size, 'phase 2 sent secrets').toBeGreaterThan(100);
    const bytes = Buffer.concat([dbFile, `${dbFile}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
    const found = [...secretValues].filter((value) => bytes.includes(Buffer.from(value)));
    expect(found).toEqual([]);
  });

  it('extreme offsets are a 422 naming the field, never a 500 or a null', async () => {
    for (const offset of ['9223372036854775807', '1e308', '1E400', '18446744073709551616']) {
      const request: RawRequest = {
        method: 'POST',
        path: '/threads/search',
        headers: { 'content-type': 'application/json' },
        body: `{"offset": ${offset}}`,
      };
      const response = await send('agent-server', request);
      issueAt(['body', 'offset'])(response, expectDocumented(ledger, 'agent-server', 'edge', request, response));
      const listRequest: RawRequest = { method: 'GET', path: `/v2/deployments?offset=${offset}` };
      const listed = await send('control-plane', listRequest);
      issueAt(['query', 'offset'])(listed, expectDocumented(ledger, 'control-plane', 'edge', listRequest, listed));
    }
  });

  it('a request path starting with // is an ordinary 404, not a 500', async () => {
    for (const route of ['//', '////', '//x:y/threads', '//[/threads']) {
      for (const api of ['agent-server', 'control-plane'] as const) {
        const request: RawRequest = { method: 'GET', path: route };
        const response = await send(api, request);
        expectDocumented(ledger, api, 'edge', request, response);
        expect(response.status, describeExchange(request, response)).toBe(404);
      }
    }
  });
});
