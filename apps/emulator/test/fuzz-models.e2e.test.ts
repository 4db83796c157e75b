// Valid but random requests whose answers are checked against a small reference model (fast-check,
// fixed seed; rerun with FUZZ_SEED=<seed>): search and history filters return exactly the
// matching records, pages have the right size, supersteps give the values their rules say, and a
// deployment answers what was asked. Every answer is also checked against the spec, as in
// fuzz.e2e.test.ts, which holds the emulator to the contract; this file holds it to the semantics.

import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnswerLedger, describeExchange, expectDocumented } from './support/documented-answers.js';
import type { ApiName, RawRequest, RawResponse, TestEmulator } from './support/harness.js';
import { jsonRequest, rawRequest, startTestEmulator } from './support/harness.js';
import { smallJson } from './support/spec-values.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_120);
const propertyOptions = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: false });
const ledger = new AnswerLedger();

let emulator: TestEmulator;
let apiKey: string;

const baseUrl = (api: ApiName) => (api === 'agent-server' ? emulator.agentServerUrl : emulator.controlPlaneUrl);

/** Sends a request (control-plane ones with the default tenant's key) and checks its answer against the spec. */
async function send(api: ApiName, request: RawRequest): Promise<RawResponse> {
  const headers = api === 'control-plane' ? { 'x-api-key': apiKey, ...request.headers } : request.headers;
  const response = await rawRequest(baseUrl(api), { ...request, headers });
  expectDocumented(ledger, api, 'valid', request, response);
  return response;
}

beforeAll(async () => {
  emulator = await startTestEmulator({ revisionStepMs: 20 });
  apiKey = emulator.defaultApiKey!;
});

afterEach(() => {
  expect(emulator.errors.splice(0), 'the emulator reported contract violations or internal errors').toEqual([]);
});

afterAll(async () => {
  console.log(`fuzz models (seed ${SEED}):\n${ledger.summary()}`);
  await emulator?.close();
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

/**
 * The superstep rules of decision A5, as a model: values replace, messages append or replace by
 * id (stored with LangGraph's default fields); `__input__` values wait in the `__start__` channel
 * until a `__start__` update without values of its own applies them, and any other update drops
 * them. Each state comes with its step: −1 for a first input superstep, else 0, then one more each.
 */
function modelValues(
  supersteps: { updates: { as_node: string; values: Record<string, unknown> | null }[] }[],
): { values: Record<string, unknown>; step: number }[] {
  const apply = (values: Record<string, unknown>, written: Record<string, unknown> | null | undefined) => {
    for (const [key, value] of Object.entries(written ?? {})) {
      if (key !== 'messages') {
        values = ownKeys([...Object.entries(values).filter(([k]) => k !== key), [key, value]]);
        continue;
      }
      const messages = [...((values.messages as any[]) ?? [])];
      for (const sent of [value].flat() as any[]) {
        const message = {
          additional_kwargs: {},
          response_metadata: {},
          ...(sent.type === 'ai' ? { tool_calls: [], invalid_tool_calls: [] } : {}),
          ...sent,
        };
        const at = message.id === undefined ? -1 : messages.findIndex((m) => m.id === message.id);
        if (at >= 0) messages[at] = message;
        else messages.push(message);
      }
      values = ownKeys([...Object.entries(values).filter(([k]) => k !== 'messages'), ['messages', messages]]);
    }
    return values;
  };
  let values: Record<string, unknown> = {};
  let pending: Record<string, unknown> | undefined;
  let step: number | undefined;
  const states: { values: Record<string, unknown>; step: number }[] = [];
  for (const superstep of supersteps) {
    const isInput = superstep.updates.every((u) => u.as_node === '__input__');
    let nextPending: Record<string, unknown> | undefined;
    for (const update of superstep.updates) {
      if (update.as_node === '__input__') nextPending = apply(nextPending ?? {}, update.values);
      else values = apply(values, update.as_node === '__start__' && update.values === null ? pending : update.values);
    }
    pending = nextPending;
    step = step === undefined ? (isInput ? -1 : 0) : step + 1;
    states.push({ values, step });
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
        const last = states.at(-1)?.values ?? {};
        expect(sameJson(withoutAssignedIds(thread.values, last), last), `${where}\nmodel: ${JSON.stringify(last)}`).toBe(true);

        const history = (await send('agent-server', jsonRequest('POST', `/threads/${thread.thread_id}/history`, { limit: 1000 })))
          .json as any[];
        expect(history.length, where).toBe(states.length);
        history.forEach((state, i) => {
          const model = states[states.length - 1 - i]!;
          expect(sameJson(withoutAssignedIds(state.values, model.values), model.values), where).toBe(true);
          expect(state.metadata.step, where).toBe(model.step);
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
          jsonRequest('POST', '/threads', { metadata, supersteps: [{ updates: [{ as_node: '__start__', values }] }] }),
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

  describe('assistant search and count return exactly the matching assistants, in order', () => {
    const suite = crypto.randomUUID();
    type Fixture = {
      assistant_id: string;
      name: string;
      graph_id: string;
      metadata: Record<string, unknown>;
      created_at: string;
      updated_at: string;
    };
    const fixtures: Fixture[] = [];
    // Names that differ by case and beyond ASCII, and share parts: the name filter ignores case as JavaScript does.
    const names = [
      'Alpha',
      'alpha',
      'Beta refunds',
      'ÜBER',
      'über alles',
      'Zeta',
      'zeta',
      'Éclair',
      'refund desk',
      'Omega',
      'beta',
      'Ärger',
    ];
    const parts = ['a', 'ALP', 'eta', 'über', 'ÜB', 'refund', 'Z', 'é', 'ä', 'x', ' '];
    const colors = ['red', 'blue', 'green'];

    beforeAll(async () => {
      for (const [i, name] of names.entries()) {
        const metadata = { suite, color: colors[i % 3]!, size: i % 4, ...(i % 5 === 0 ? { optional: { on: true } } : {}) };
        const created = (await send('agent-server', jsonRequest('POST', '/assistants', { graph_id: 'agent', name, metadata })))
          .json as Fixture;
        fixtures.push(created);
      }
      // Updated in another order than created, so that updated_at sorts differently.
      for (const i of [4, 0, 9]) {
        const updated = (await send('agent-server', jsonRequest('PATCH', `/assistants/${fixtures[i]!.assistant_id}`, {}))).json as Fixture;
        fixtures[i] = updated;
      }
    });

    /** The model's order: the field asked, then creation order, both in the direction asked. */
    const ordered = (matches: Fixture[], sortBy: keyof Fixture, sortOrder: 'asc' | 'desc') => {
      const sign = sortOrder === 'asc' ? 1 : -1;
      return matches
        .map((fixture) => ({ fixture, index: fixtures.indexOf(fixture) }))
        .sort((a, b) => {
          const [x, y] = [String(a.fixture[sortBy]), String(b.fixture[sortBy])];
          return sign * (x < y ? -1 : x > y ? 1 : a.index - b.index);
        })
        .map(({ fixture }) => fixture);
    };

    it('searchAssistants: filters, total, next page, page and order; countAssistants agrees', async () => {
      const arbitrary = fc.record({
        metadata: fc
          .uniqueArray(
            fc.oneof(
              fc.tuple(fc.constant('color'), fc.oneof(fc.constantFrom(...colors), smallJson)),
              fc.tuple(fc.constant('size'), fc.oneof(fc.constantFrom(0, 1, 2, 3), smallJson)),
              fc.tuple(fc.constant('optional'), fc.constantFrom({ on: true }, { on: false }, true)),
              fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.oneof(fc.constant(null), fc.constant({}), smallJson)),
            ),
            { maxLength: 2, selector: ([key]) => key },
          )
          .map(ownKeys),
        graph_id: fc.option(fc.constantFrom('agent', 'other'), { nil: undefined }),
        name: fc.option(fc.constantFrom(...parts), { nil: undefined }),
        limit: fc.integer({ min: 1, max: 14 }),
        offset: fc.integer({ min: 0, max: 13 }),
        sort_by: fc.constantFrom('assistant_id', 'graph_id', 'name', 'created_at', 'updated_at'),
        sort_order: fc.constantFrom('asc', 'desc'),
      });
      await fc.assert(
        fc.asyncProperty(arbitrary, async ({ metadata, graph_id, name, ...page }) => {
          const filters = {
            metadata: ownKeys([['suite', suite], ...Object.entries(metadata)]),
            ...(graph_id ? { graph_id } : {}),
            ...(name ? { name } : {}),
          };
          const request = jsonRequest('POST', '/assistants/search', { ...filters, ...page });
          const response = await send('agent-server', request);
          const where = describeExchange(request, response);
          expect(response.status, where).toBe(200);
          const matches = fixtures.filter(
            (f) =>
              matchesFilter(f.metadata, filters.metadata) &&
              (!graph_id || f.graph_id === graph_id) &&
              (!name || f.name.toLowerCase().includes(name.toLowerCase())),
          );
          const expected = ordered(matches, page.sort_by, page.sort_order).slice(page.offset, page.offset + page.limit);
          expect(
            (response.json as Fixture[]).map((a) => a.name),
            where,
          ).toEqual(expected.map((f) => f.name));
          expect(Number(response.headers['x-pagination-total']), where).toBe(matches.length);
          const next = page.offset + expected.length;
          expect(response.headers['x-pagination-next'], where).toBe(next < matches.length ? String(next) : undefined);
          const counted = await send('agent-server', jsonRequest('POST', '/assistants/count', filters));
          expect(counted.json, describeExchange(jsonRequest('POST', '/assistants/count', filters), counted)).toBe(matches.length);
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

describe('found by fuzzing, pinned', () => {
  it('a history metadata filter on a key the checkpoints lack matches nothing, Object.prototype names included', async () => {
    const thread = (
      await send(
        'agent-server',
        jsonRequest('POST', '/threads', { supersteps: [{ updates: [{ as_node: '__start__', values: { a: 1 } }] }] }),
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
      '{"metadata": {"__proto__": {"m": 1}}, "supersteps": [{"updates": [{"as_node": "__start__", "values": {"__proto__": {"v": 1}, "other": 2}}]}]}';
    const created = await send('agent-server', { method: 'POST', path: '/threads', headers: { 'content-type': 'application/json' }, body });
    expect(created.status).toBe(200);
    expect(created.text).toContain('"metadata":{"__proto__":{"m":1}}');
    const state = await send('agent-server', { method: 'GET', path: `/threads/${(created.json as any).thread_id}/state` });
    expect(state.text).toContain('"values":{"__proto__":{"v":1},"other":2}');
  });
});
