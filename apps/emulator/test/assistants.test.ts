// Assistants through the real LangGraph JS SDK's AssistantsClient (every method it has) and
// through our typed client: the graphs' default assistants, create (if_exists), update (versions),
// versions, set latest, delete (delete_threads), search (every filter, sort, select, paging),
// count, the graph, its schemas and subgraphs, and the refusals (404, 409, 422). A recording
// fetch keeps each request and answer, so what the SDK puts on the wire and reads back (the
// X-Pagination-Next header) is asserted, not assumed.
import { createAgentServerClient } from '@agentplane/agent-server';
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from './support/harness.js';
import { isUuid, rawRequest, startTestEmulator } from './support/harness.js';
import type { WireRecord } from './support/sdk-client.js';
import { sdkClient, sdkError } from './support/sdk-client.js';

const GRAPHS = {
  support: { state: { topic: null, escalated: false }, replies: [{ text: 'How can I help?' }] },
  billing: { replies: [{ text: '{{input}}' }] },
};
// The UUID v5 of each graph ID in LangGraph's namespace (Python's uuid.uuid5 computed them).
const DEFAULT_IDS = { support: 'a76bea17-1a15-53a6-bfc6-e12c619f641d', billing: 'cffbf505-ed0c-51bb-89d0-d425c97cee2a' };
const UNKNOWN = '2f9c4e1a-7b3d-4c8e-9a6f-1d2e3c4b5a69';
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let emulator: TestEmulator;
let client: Client;
let clock = Date.parse('2026-11-19T09:00:00.000Z');
const wire: WireRecord[] = [];

const lastWire = (): WireRecord => wire.at(-1)!;

/** A tag unique to one test, so that its searches and counts see only its own assistants. */
const tagged = () => ({ suite: crypto.randomUUID() });

beforeAll(async () => {
  emulator = await startTestEmulator({ graphs: GRAPHS, now: () => clock });
  client = sdkClient(emulator.agentServerUrl, { wire });
});
afterEach(() => {
  expect(emulator.errors, 'the emulator reported contract violations or internal errors').toEqual([]);
});
afterAll(async () => {
  await emulator?.close();
});

describe('default assistants', () => {
  it('exist from start-up, one per graph, with the ID LangGraph derives from the graph ID', async () => {
    const defaults = await client.assistants.search({ metadata: { created_by: 'system' }, sortBy: 'name', sortOrder: 'asc' });
    expect(defaults).toEqual(
      ['billing', 'support'].map((graphId) => ({
        assistant_id: DEFAULT_IDS[graphId as keyof typeof DEFAULT_IDS],
        graph_id: graphId,
        config: {},
        context: {},
        metadata: { created_by: 'system' },
        version: 1,
        name: graphId,
        description: null,
        created_at: '2026-11-19T09:00:00.000Z',
        updated_at: '2026-11-19T09:00:00.000Z',
      })),
    );
  });

  it('is what a graph ID names wherever an assistant is named', async () => {
    const byGraph = await client.assistants.get('support');
    expect(lastWire().path).toBe('/assistants/support');
    expect(byGraph).toEqual(await client.assistants.get(DEFAULT_IDS.support));
    expect(await client.assistants.get(DEFAULT_IDS.support.toUpperCase())).toEqual(byGraph);
    expect((await client.assistants.getVersions('billing')).map((v) => v.version)).toEqual([1]);
    expect(await client.assistants.getGraph('billing')).toEqual(await client.assistants.getGraph(DEFAULT_IDS.billing));
  });

  it('answers 404 for a graph the deployment does not serve, and 422 for text that cannot name an assistant', async () => {
    expect(await sdkError(client.assistants.get('nope'))).toEqual({ status: 404, detail: 'Assistant nope not found.' });
    const malformed = await sdkError(client.assistants.get('not an id!'));
    expect(malformed.status).toBe(422);
    expect(malformed.detail).toEqual([{ loc: ['path', 'assistant_id'], msg: expect.any(String), type: 'union_tag_invalid' }]);
  });
});

describe('assistants.create', () => {
  it('creates version 1 with the defaults: a time-ordered ID, Untitled, {} config, context and metadata, no description', async () => {
    clock += 1000;
    const created = await client.assistants.create({ graphId: 'support' });
    expect(lastWire().body).toEqual({ graph_id: 'support' });
    expect(created.assistant_id).toMatch(V7);
    expect(created).toEqual({
      assistant_id: created.assistant_id,
      graph_id: 'support',
      config: {},
      context: {},
      metadata: {},
      version: 1,
      name: 'Untitled',
      description: null,
      created_at: new Date(clock).toISOString(),
      updated_at: new Date(clock).toISOString(),
    });
    expect(await client.assistants.get(created.assistant_id)).toEqual(created);
  });

  it('keeps every field the SDK sends', async () => {
    const assistantId = crypto.randomUUID();
    const created = await client.assistants.create({
      graphId: 'billing',
      assistantId,
      name: 'Refunds (EU)',
      description: 'Refund questions of EU customers',
      config: { tags: ['eu'], recursion_limit: 40, configurable: { model: 'gpt-4o-mini' } },
      context: { region: 'eu-west-1' },
      metadata: { team: 'billing', ...tagged() },
      ifExists: 'raise',
    });
    expect(lastWire().body).toMatchObject({ assistant_id: assistantId, if_exists: 'raise', graph_id: 'billing' });
    expect(created).toMatchObject({
      assistant_id: assistantId,
      graph_id: 'billing',
      name: 'Refunds (EU)',
      description: 'Refund questions of EU customers',
      config: { tags: ['eu'], recursion_limit: 40, configurable: { model: 'gpt-4o-mini' } },
      context: { region: 'eu-west-1' },
      metadata: { team: 'billing' },
      version: 1,
    });
    expect(await client.assistants.get(assistantId.toUpperCase())).toEqual(created);
  });

  it('answers 409 for a taken ID, or with ifExists do_nothing the existing assistant unchanged', async () => {
    const assistantId = crypto.randomUUID();
    const created = await client.assistants.create({ graphId: 'support', assistantId, name: 'First' });
    expect(await sdkError(client.assistants.create({ graphId: 'support', assistantId, name: 'Second' }))).toEqual({
      status: 409,
      detail: `Assistant ${assistantId} already exists.`,
    });
    const again = await client.assistants.create({ graphId: 'billing', assistantId, name: 'Third', ifExists: 'do_nothing' });
    expect(again).toEqual(created);
    expect(await client.assistants.getVersions(assistantId)).toHaveLength(1);
  });

  it('refuses a graph the deployment does not serve with 404, creating nothing', async () => {
    const before = await client.assistants.count();
    expect(await sdkError(client.assistants.create({ graphId: 'nope', metadata: tagged() }))).toEqual({
      status: 404,
      detail: 'Graph "nope" not found.',
    });
    expect(await client.assistants.count()).toBe(before);
  });

  it('refuses what the contract does not allow with 422 naming the field, creating nothing', async () => {
    const before = await client.assistants.count();
    const misspelt = await sdkError(client.assistants.create({ graphId: 'support', config: { configurables: {} } as never }));
    expect(misspelt).toEqual({
      status: 422,
      detail: [{ loc: ['body', 'config', 'configurables'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    });
    expect((await sdkError(client.assistants.create({ graphId: 'has space' }))).status).toBe(422);
    expect((await sdkError(client.assistants.create({ graphId: 'support', assistantId: 'x' }))).status).toBe(422);
    expect(await client.assistants.count()).toBe(before);
  });
});

describe('assistants.update, getVersions and setLatest', () => {
  it('makes each update a new current version: metadata merged, other given fields replaced, the rest kept', async () => {
    clock += 1000;
    const start = clock;
    const created = await client.assistants.create({
      graphId: 'support',
      name: 'Refunds',
      description: 'v1',
      config: { configurable: { model: 'a' } },
      context: { region: 'eu' },
      metadata: { team: 'billing', owner: 'ana' },
    });
    clock += 1000;
    const second = await client.assistants.update(created.assistant_id, { metadata: { reviewed: true, owner: 'li' } });
    expect(lastWire()).toMatchObject({ method: 'PATCH', body: { metadata: { reviewed: true, owner: 'li' } } });
    expect(second).toEqual({
      ...created,
      metadata: { team: 'billing', owner: 'li', reviewed: true },
      version: 2,
      updated_at: new Date(clock).toISOString(),
    });
    clock += 1000;
    const third = await client.assistants.update(created.assistant_id, {
      name: 'Refunds (fast)',
      description: 'v3',
      config: { tags: ['fast'] },
      context: { region: 'us' },
    });
    expect(third).toMatchObject({
      name: 'Refunds (fast)',
      description: 'v3',
      config: { tags: ['fast'] },
      context: { region: 'us' },
      metadata: { team: 'billing', owner: 'li', reviewed: true },
      version: 3,
      created_at: new Date(start).toISOString(),
    });
    expect(await client.assistants.get(created.assistant_id)).toEqual(third);

    const versions = await client.assistants.getVersions(created.assistant_id);
    expect(lastWire().body).toEqual({ limit: 10, offset: 0 });
    expect(versions.map((v) => [v.version, v.name, v.description, v.metadata])).toEqual([
      [3, 'Refunds (fast)', 'v3', { team: 'billing', owner: 'li', reviewed: true }],
      [2, 'Refunds', 'v1', { team: 'billing', owner: 'li', reviewed: true }],
      [1, 'Refunds', 'v1', { team: 'billing', owner: 'ana' }],
    ]);
    expect(versions[2]).toEqual({
      assistant_id: created.assistant_id,
      version: 1,
      graph_id: 'support',
      config: { configurable: { model: 'a' } },
      context: { region: 'eu' },
      metadata: { team: 'billing', owner: 'ana' },
      name: 'Refunds',
      description: 'v1',
      created_at: new Date(start).toISOString(),
    });
    const page = async (options: Parameters<Client['assistants']['getVersions']>[1]) =>
      (await client.assistants.getVersions(created.assistant_id, options)).map((v) => v.version);
    expect(await page({ metadata: { reviewed: true } })).toEqual([3, 2]);
    expect(await page({ limit: 1, offset: 1 })).toEqual([2]);
    expect(await page({ metadata: { owner: 'nobody' } })).toEqual([]);
    expect(await page({ offset: 10 })).toEqual([]);
  });

  it('sets any version current again, whole, and numbers the next update after the highest', async () => {
    const created = await client.assistants.create({ graphId: 'support', name: 'One', description: 'first', context: { n: 1 } });
    await client.assistants.update(created.assistant_id, { name: 'Two', description: 'second', context: { n: 2 }, graphId: 'billing' });
    clock += 1000;
    const back = await client.assistants.setLatest(created.assistant_id, 1);
    expect(lastWire().body).toEqual({ version: 1 });
    expect(back).toEqual({ ...created, updated_at: new Date(clock).toISOString() });
    expect(await client.assistants.get(created.assistant_id)).toEqual(back);
    const next = await client.assistants.update(created.assistant_id, { metadata: { after: true } });
    expect([next.version, next.name, next.graph_id, next.context]).toEqual([3, 'One', 'support', { n: 1 }]);
    expect((await client.assistants.getVersions(created.assistant_id)).map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it('updates a default assistant through its graph ID', async () => {
    const before = await client.assistants.get('billing');
    const updated = await client.assistants.update('billing', { config: { configurable: { tone: 'formal' } } });
    expect(updated).toMatchObject({ assistant_id: DEFAULT_IDS.billing, version: before.version + 1, metadata: { created_by: 'system' } });
    await client.assistants.setLatest('billing', before.version);
  });

  it('refuses an unknown assistant, version or graph with 404, changing nothing', async () => {
    const created = await client.assistants.create({ graphId: 'support' });
    expect(await sdkError(client.assistants.update(UNKNOWN, { name: 'x' }))).toEqual({
      status: 404,
      detail: `Assistant ${UNKNOWN} not found.`,
    });
    expect(await sdkError(client.assistants.update(created.assistant_id, { graphId: 'nope' }))).toEqual({
      status: 404,
      detail: 'Graph "nope" not found.',
    });
    expect(await sdkError(client.assistants.setLatest(created.assistant_id, 7))).toEqual({
      status: 404,
      detail: `Assistant ${created.assistant_id} has no version 7.`,
    });
    expect((await sdkError(client.assistants.getVersions(UNKNOWN))).status).toBe(404);
    expect((await sdkError(client.assistants.setLatest(UNKNOWN, 1))).status).toBe(404);
    expect(await client.assistants.get(created.assistant_id)).toEqual(created);
    expect(await client.assistants.getVersions(created.assistant_id)).toHaveLength(1);
  });
});

describe('assistants.delete', () => {
  it('deletes the assistant and its versions; with deleteThreads, the threads whose metadata names it', async () => {
    const doomed = await client.assistants.create({ graphId: 'support' });
    const kept = await client.assistants.create({ graphId: 'support' });
    const own = await client.threads.create({ metadata: { assistant_id: doomed.assistant_id } });
    const other = await client.threads.create({ metadata: { assistant_id: kept.assistant_id } });
    const untagged = await client.threads.create();
    await client.assistants.delete(doomed.assistant_id, { deleteThreads: true });
    expect(lastWire()).toMatchObject({ method: 'DELETE', path: `/assistants/${doomed.assistant_id}?delete_threads=true`, status: 204 });
    expect((await sdkError(client.assistants.get(doomed.assistant_id))).status).toBe(404);
    expect((await sdkError(client.assistants.getVersions(doomed.assistant_id))).status).toBe(404);
    expect((await sdkError(client.assistants.delete(doomed.assistant_id))).status).toBe(404);
    expect((await sdkError(client.threads.get(own.thread_id))).status).toBe(404);
    expect((await client.threads.get(other.thread_id)).thread_id).toBe(other.thread_id);
    expect((await client.threads.get(untagged.thread_id)).thread_id).toBe(untagged.thread_id);
  });

  it('keeps the threads without deleteThreads', async () => {
    const doomed = await client.assistants.create({ graphId: 'support' });
    const own = await client.threads.create({ metadata: { assistant_id: doomed.assistant_id } });
    await client.assistants.delete(doomed.assistant_id);
    expect(lastWire().path).toBe(`/assistants/${doomed.assistant_id}?delete_threads=false`);
    expect((await client.threads.get(own.thread_id)).thread_id).toBe(own.thread_id);
  });

  it('deletes a default assistant by its graph ID: the graph ID then names nothing', async () => {
    const emulatorOfItsOwn = await startTestEmulator({ graphs: GRAPHS });
    try {
      const own = sdkClient(emulatorOfItsOwn.agentServerUrl, { wire });
      await own.assistants.delete('support');
      expect((await sdkError(own.assistants.get('support'))).status).toBe(404);
      expect((await sdkError(own.assistants.getGraph('support'))).status).toBe(404);
      expect((await own.assistants.search()).map((a) => a.graph_id)).toEqual(['billing']);
      expect(emulatorOfItsOwn.errors).toEqual([]);
    } finally {
      await emulatorOfItsOwn.close();
    }
  });
});

describe('assistants.search and count', () => {
  /** Four assistants of one suite, created a second apart: names, graphs and metadata to filter and sort by. */
  async function four() {
    const suite = tagged();
    const made = [];
    for (const [name, graphId, kind] of [
      ['Zeta', 'support', 'a'],
      ['alpha', 'billing', 'b'],
      ['Über refunds', 'support', 'a'],
      ['Beta', 'billing', 'a'],
    ] as const) {
      clock += 1000;
      made.push(await client.assistants.create({ graphId, name, metadata: { ...suite, kind } }));
    }
    return { suite, made };
  }
  const names = (assistants: { name: string }[]) => assistants.map((a) => a.name);

  it('filters by metadata, graph ID and a part of the name ignoring case, newest first by default', async () => {
    const { suite } = await four();
    expect(names(await client.assistants.search({ metadata: suite }))).toEqual(['Beta', 'Über refunds', 'alpha', 'Zeta']);
    expect(lastWire().body).toEqual({ metadata: suite, limit: 10, offset: 0 });
    expect(names(await client.assistants.search({ metadata: { ...suite, kind: 'a' } }))).toEqual(['Beta', 'Über refunds', 'Zeta']);
    expect(names(await client.assistants.search({ metadata: suite, graphId: 'billing' }))).toEqual(['Beta', 'alpha']);
    expect(names(await client.assistants.search({ metadata: suite, name: 'ETA' }))).toEqual(['Beta', 'Zeta']);
    expect(names(await client.assistants.search({ metadata: suite, name: 'über' }))).toEqual(['Über refunds']);
    expect(names(await client.assistants.search({ metadata: suite, name: 'nothing like it' }))).toEqual([]);
    expect(await client.assistants.count({ metadata: suite })).toBe(4);
    expect(lastWire().body).toEqual({ metadata: suite });
    expect(await client.assistants.count({ metadata: { ...suite, kind: 'a' } })).toBe(3);
    expect(await client.assistants.count({ metadata: suite, graphId: 'support' })).toBe(2);
    expect(await client.assistants.count({ metadata: suite, name: 'eta' })).toBe(2);
    expect(await client.assistants.count({ graphId: 'support', name: 'ÜBER', metadata: suite })).toBe(1);
  });

  it('sorts by every field, both ways', async () => {
    const { suite, made } = await four();
    // Updated in another order than created: Zeta last.
    clock += 1000;
    await client.assistants.update(made[1]!.assistant_id, {});
    clock += 1000;
    await client.assistants.update(made[0]!.assistant_id, {});
    const sorted = async (sortBy: 'assistant_id' | 'graph_id' | 'name' | 'created_at' | 'updated_at', sortOrder: 'asc' | 'desc') =>
      names(await client.assistants.search({ metadata: suite, sortBy, sortOrder }));
    expect(await sorted('created_at', 'asc')).toEqual(['Zeta', 'alpha', 'Über refunds', 'Beta']);
    expect(await sorted('created_at', 'desc')).toEqual(['Beta', 'Über refunds', 'alpha', 'Zeta']);
    expect(lastWire().body).toMatchObject({ sort_by: 'created_at', sort_order: 'desc' });
    expect(await sorted('updated_at', 'desc')).toEqual(['Zeta', 'alpha', 'Beta', 'Über refunds']);
    // By code point: upper case before lower case, then letters beyond ASCII.
    expect(await sorted('name', 'asc')).toEqual(['Beta', 'Zeta', 'alpha', 'Über refunds']);
    expect(await sorted('name', 'desc')).toEqual(['Über refunds', 'alpha', 'Zeta', 'Beta']);
    // Equal graph IDs keep their creation order.
    expect(await sorted('graph_id', 'asc')).toEqual(['alpha', 'Beta', 'Zeta', 'Über refunds']);
    const byId = [...made].sort((a, b) => (a.assistant_id < b.assistant_id ? -1 : 1)).map((a) => a.name);
    expect(await sorted('assistant_id', 'asc')).toEqual(byId);
    expect(await sorted('assistant_id', 'desc')).toEqual([...byId].reverse());
  });

  it('pages with limit and offset, and says where the next page starts while matches remain', async () => {
    const { suite } = await four();
    const page = (limit: number, offset: number) =>
      client.assistants.search({ metadata: suite, limit, offset, sortBy: 'created_at', sortOrder: 'asc', includePagination: true });
    const first = await page(3, 0);
    expect([names(first.assistants), first.next]).toEqual([['Zeta', 'alpha', 'Über refunds'], '3']);
    expect(lastWire().headers.get('x-pagination-total')).toBe('4');
    const last = await page(3, 3);
    expect([names(last.assistants), last.next]).toEqual([['Beta'], null]);
    expect(lastWire().headers.get('x-pagination-total')).toBe('4');
    expect(await page(4, 0)).toMatchObject({ next: null });
    expect(await page(2, 10)).toEqual({ assistants: [], next: null });
  });

  it('answers the selected optional fields, and the identifying ones always', async () => {
    const { suite } = await four();
    const [one] = await client.assistants.search({ metadata: { ...suite, kind: 'b' }, select: ['assistant_id', 'name', 'description'] });
    expect(lastWire().body.select).toEqual(['assistant_id', 'name', 'description']);
    const identifying = ['assistant_id', 'graph_id', 'name', 'version', 'created_at', 'updated_at', 'metadata'];
    expect(Object.keys(one!).sort()).toEqual([...identifying, 'description'].sort());
    const [all] = await client.assistants.search({ metadata: { ...suite, kind: 'b' } });
    expect(Object.keys(all!).sort()).toEqual([...identifying, 'description', 'config', 'context'].sort());
  });

  it('refuses a sort field or a limit out of the contract with 422', async () => {
    expect((await sdkError(client.assistants.search({ sortBy: 'version' as never }))).detail).toEqual([
      {
        loc: ['body', 'sort_by'],
        msg: "Input should be 'assistant_id', 'graph_id', 'name', 'created_at' or 'updated_at'",
        type: 'enum',
      },
    ]);
    expect((await sdkError(client.assistants.search({ limit: 0 }))).status).toBe(422);
  });
});

describe('the graph, its schemas and subgraphs', () => {
  it('draws the ReAct agent, with or without xray', async () => {
    const graph = await client.assistants.getGraph('support');
    expect(graph).toEqual({
      nodes: [
        { id: '__start__', type: 'schema', data: { $schema: 'https://json-schema.org/draft/2020-12/schema' } },
        { id: 'agent', type: 'runnable', data: { id: ['langgraph', 'RunnableCallable'], name: 'agent' } },
        { id: 'tools', type: 'runnable', data: { id: ['langgraph', 'RunnableCallable'], name: 'tools' } },
        { id: '__end__', type: 'schema', data: { $schema: 'https://json-schema.org/draft/2020-12/schema' } },
      ],
      edges: [
        { source: '__start__', target: 'agent', conditional: false },
        { source: 'tools', target: 'agent', conditional: false },
        { source: 'agent', target: 'tools', conditional: true },
        { source: 'agent', target: '__end__', conditional: true },
      ],
    });
    expect(await client.assistants.getGraph('support', { xray: true })).toEqual(graph);
    expect(lastWire().path).toBe('/assistants/support/graph?xray=true');
    expect(await client.assistants.getGraph(DEFAULT_IDS.support, { xray: 2 })).toEqual(graph);
    expect(lastWire().path).toBe(`/assistants/${DEFAULT_IDS.support}/graph?xray=2`);
  });

  it("gives the state's schema: messages and the graph's declared keys with their defaults", async () => {
    const schemas = await client.assistants.getSchemas('support');
    expect(schemas.graph_id).toBe('support');
    const state = schemas.state_schema as { properties: Record<string, { items?: { properties: object } }> };
    expect(Object.keys(state.properties)).toEqual(['messages', 'topic', 'escalated']);
    expect(state.properties).toMatchObject({
      messages: { type: 'array', default: [] },
      topic: { default: null },
      escalated: { default: false },
    });
    expect(Object.keys(state.properties.messages!.items!.properties)).toEqual([
      'type',
      'content',
      'id',
      'name',
      'tool_calls',
      'tool_call_id',
    ]);
    expect(schemas.input_schema).toEqual(state);
    expect(schemas.output_schema).toEqual(state);
    expect(schemas.config_schema).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' });
    expect(schemas.context_schema).toEqual(schemas.config_schema);
    const billing = await client.assistants.getSchemas('billing');
    expect(Object.keys((billing.state_schema as { properties: object }).properties)).toEqual(['messages']);
  });

  it('has no subgraphs, in any namespace, recursing or not', async () => {
    expect(await client.assistants.getSubgraphs('support')).toEqual({});
    expect(await client.assistants.getSubgraphs('support', { recurse: true })).toEqual({});
    expect(lastWire().path).toBe('/assistants/support/subgraphs?recurse=true');
    expect(await client.assistants.getSubgraphs('support', { namespace: 'researcher', recurse: false })).toEqual({});
    expect(lastWire().path).toBe('/assistants/support/subgraphs/researcher?recurse=false');
  });

  it("follows the assistant's current graph, and answers 404 for an unknown assistant", async () => {
    const created = await client.assistants.create({ graphId: 'support' });
    await client.assistants.update(created.assistant_id, { graphId: 'billing' });
    expect((await client.assistants.getSchemas(created.assistant_id)).graph_id).toBe('billing');
    for (const call of [
      client.assistants.getGraph(UNKNOWN),
      client.assistants.getSchemas(UNKNOWN),
      client.assistants.getSubgraphs(UNKNOWN),
      client.assistants.getSubgraphs(UNKNOWN, { namespace: 'x' }),
    ]) {
      expect(await sdkError(call)).toEqual({ status: 404, detail: `Assistant ${UNKNOWN} not found.` });
    }
    expect((await sdkError(client.assistants.getGraph('support', { xray: 'maybe' as never }))).status).toBe(422);
  });
});

describe('our typed client', () => {
  it('creates, reads, updates, lists versions, sets the latest, searches, counts and deletes', async () => {
    const agent = createAgentServerClient({ baseUrl: emulator.agentServerUrl, retry: false });
    const metadata = tagged();
    const created = await agent.POST('/assistants', { body: { graph_id: 'support', name: 'Typed', metadata } });
    expect(created.response.status).toBe(200);
    const id = created.data!.assistant_id;
    const path = { assistant_id: id };
    expect((await agent.GET('/assistants/{assistant_id}', { params: { path } })).data).toEqual(created.data);
    const updated = await agent.PATCH('/assistants/{assistant_id}', { params: { path }, body: { name: 'Typed 2' } });
    expect(updated.data).toMatchObject({ name: 'Typed 2', version: 2 });
    const versions = await agent.POST('/assistants/{assistant_id}/versions', { params: { path }, body: {} });
    expect(versions.data?.map((v) => v.version)).toEqual([2, 1]);
    const latest = await agent.POST('/assistants/{assistant_id}/latest', { params: { path }, body: { version: 1 } });
    expect(latest.data).toMatchObject({ name: 'Typed', version: 1 });
    const search = await agent.POST('/assistants/search', { body: { metadata, limit: 1 } });
    expect(search.data?.map((a) => a.assistant_id)).toEqual([id]);
    expect(search.response.headers.get('x-pagination-total')).toBe('1');
    expect(search.response.headers.get('x-pagination-next')).toBeNull();
    expect((await agent.POST('/assistants/count', { body: { metadata } })).data).toBe(1);
    expect((await agent.GET('/assistants/{assistant_id}/graph', { params: { path, query: { xray: 'true' } } })).data?.nodes).toHaveLength(
      4,
    );
    expect((await agent.GET('/assistants/{assistant_id}/schemas', { params: { path } })).data?.graph_id).toBe('support');
    expect((await agent.GET('/assistants/{assistant_id}/subgraphs', { params: { path } })).data).toEqual({});
    const deleted = await agent.DELETE('/assistants/{assistant_id}', { params: { path, query: { delete_threads: true } } });
    expect(deleted.response.status).toBe(204);
    const gone = await agent.GET('/assistants/{assistant_id}', { params: { path } });
    expect([gone.response.status, gone.error]).toEqual([404, { detail: `Assistant ${id} not found.` }]);
  });

  it('answers GET /ok and GET /info', async () => {
    const agent = createAgentServerClient({ baseUrl: emulator.agentServerUrl, retry: false });
    expect((await agent.GET('/ok')).data).toEqual({ ok: true });
    const info = await agent.GET('/info');
    expect(info.data).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      flags: {
        assistants: true,
        crons: true,
        langsmith: false,
        langsmith_tracing_replicas: false,
        strict_resume: true,
        stream_namespaces: true,
      },
    });
  });
});

describe('raw requests', () => {
  it('reads a graph ID that is not served as nothing, and refuses xray and delete_threads outside the contract', async () => {
    const get = (path: string) => rawRequest(emulator.agentServerUrl, { method: 'GET', path });
    expect((await get('/assistants/search')).status).toBe(405);
    expect((await get('/assistants/unknown-graph/graph')).status).toBe(404);
    const xray = await get('/assistants/support/graph?xray=yes');
    expect([xray.status, (xray.json as { detail: { loc: unknown }[] }).detail[0]!.loc]).toEqual([422, ['query', 'xray']]);
    const del = await rawRequest(emulator.agentServerUrl, { method: 'DELETE', path: '/assistants/support?delete_threads=yes' });
    expect([del.status, (del.json as { detail: { loc: unknown }[] }).detail[0]!.loc]).toEqual([422, ['query', 'delete_threads']]);
    expect(isUuid((await client.assistants.get('support')).assistant_id)).toBe(true);
  });
});
