// The real LangGraph JS SDK (@langchain/langgraph-sdk, pinned) against the emulator: what its
// users call (threads.create / copy / search / get / getState / getHistory) works with the
// requests exactly as the SDK puts them on the wire, and errors surface as the SDK's HTTP errors.
// A recording fetch keeps each request and answer, so the wire forms (`before` as a config
// object, search's `limit`/`offset`) are asserted, not assumed.
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from './support/harness.js';
import { isUuid, startTestEmulator } from './support/harness.js';
import type { WireRecord } from './support/sdk-client.js';
import { sdkClient, sdkError } from './support/sdk-client.js';

let emulator: TestEmulator;
let client: Client;
const wire: WireRecord[] = [];

const lastWire = (): WireRecord => wire.at(-1)!;
const doomedMarker = crypto.randomUUID();

beforeAll(async () => {
  emulator = await startTestEmulator();
  client = sdkClient(emulator.agentServerUrl, { wire });
});
afterEach(() => {
  expect(emulator.errors, 'the emulator reported contract violations or internal errors').toEqual([]);
});
afterAll(async () => {
  await emulator?.close();
});

const human = (content: string, id?: string) => ({ type: 'human', content, ...(id ? { id } : {}) });
const ai = (content: string, id?: string) => ({ type: 'ai', content, ...(id ? { id } : {}) });

/**
 * Five supersteps: the input, `__start__` applying it (as LangGraph does, input goes through the
 * `__start__` channel), an AI answer, the same answer replaced by ID, a human message without ID.
 */
const CONVERSATION = [
  { updates: [{ asNode: '__input__', values: { messages: [human('Weather in Paris?', 'm-1')], topic: 'weather' } }] },
  { updates: [{ asNode: '__start__', values: undefined }] },
  { updates: [{ asNode: 'agent', values: { messages: [ai('Sunny', 'm-2')] } }] },
  { updates: [{ asNode: 'agent', values: { messages: [ai('Sunny, 21 °C', 'm-2')], topic: 'forecast' } }] },
  { updates: [{ asNode: '__start__', values: { messages: [human('Thanks!')] } }] },
];

describe('threads.create', () => {
  it('creates an empty idle thread with a fresh ID and {} values', async () => {
    const thread = await client.threads.create();
    expect(lastWire()).toMatchObject({ method: 'POST', path: '/threads', body: { metadata: {} }, status: 200 });
    expect(isUuid(thread.thread_id)).toBe(true);
    expect(thread).toMatchObject({ status: 'idle', metadata: {}, values: {} });
    expect(Date.parse(thread.created_at)).not.toBeNaN();
    expect(thread.updated_at).toBe(thread.created_at);

    const state = await client.threads.getState(thread.thread_id);
    expect(state).toEqual({
      values: {},
      next: [],
      tasks: [],
      metadata: {},
      created_at: null,
      checkpoint: null,
      parent_checkpoint: null,
      checkpoint_id: null,
      parent_checkpoint_id: null,
    });
    expect(await client.threads.getHistory(thread.thread_id)).toEqual([]);
  });

  it('keeps the metadata it is given, graphId included', async () => {
    const metadata = { user: 'alice', tier: 2, tags: ['a', 'b'], nested: { deep: { ok: true } }, nothing: null };
    const thread = await client.threads.create({ metadata, graphId: 'weather-agent' });
    expect(lastWire().body).toEqual({ metadata: { ...metadata, graph_id: 'weather-agent' } });
    expect(thread.metadata).toEqual({ ...metadata, graph_id: 'weather-agent' });
    expect((await client.threads.get(thread.thread_id)).metadata).toEqual({ ...metadata, graph_id: 'weather-agent' });
  });

  it('honours threadId and ifExists: raise (409), do_nothing (the existing thread, unchanged)', async () => {
    const threadId = crypto.randomUUID();
    const created = await client.threads.create({ threadId, metadata: { version: 1 } });
    expect(lastWire().body).toEqual({ thread_id: threadId, metadata: { version: 1 } });
    expect(created.thread_id).toBe(threadId);

    const again = await client.threads.create({ threadId, ifExists: 'do_nothing', metadata: { version: 2 }, supersteps: CONVERSATION });
    expect(lastWire().body).toMatchObject({ thread_id: threadId, if_exists: 'do_nothing' });
    expect(again).toMatchObject({ thread_id: threadId, created_at: created.created_at, metadata: { version: 1 }, values: {} });
    expect(await client.threads.getHistory(threadId)).toEqual([]);

    for (const ifExists of ['raise', undefined] as const) {
      const conflict = await sdkError(client.threads.create({ threadId, ...(ifExists ? { ifExists } : {}) }));
      expect(conflict).toEqual({ status: 409, detail: `Thread with ID ${threadId} already exists.` });
    }
    expect((await client.threads.get(threadId)).metadata).toEqual({ version: 1 });
  });

  it('applies supersteps in order: messages append, replace by ID, and get IDs; one checkpoint each', async () => {
    const thread = await client.threads.create({ graphId: 'chat', supersteps: CONVERSATION });
    expect(lastWire().body.supersteps[0]).toEqual({
      updates: [{ as_node: '__input__', values: { messages: [human('Weather in Paris?', 'm-1')], topic: 'weather' } }],
    });

    const messages = (thread.values as any).messages as any[];
    expect(messages.map((m) => [m.type, m.content])).toEqual([
      ['human', 'Weather in Paris?'],
      ['ai', 'Sunny, 21 °C'],
      ['human', 'Thanks!'],
    ]);
    expect(messages.slice(0, 2).map((m) => m.id)).toEqual(['m-1', 'm-2']);
    expect(messages[2].id).toEqual(expect.any(String));
    expect(messages[2].id).not.toBe('');
    expect((thread.values as any).topic).toBe('forecast');

    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    expect(history).toHaveLength(5);
    expect(history.map((s) => s.metadata?.step)).toEqual([3, 2, 1, 0, -1]);
    expect(history.map((s) => s.metadata?.source)).toEqual(['update', 'update', 'update', 'update', 'input']);
    expect(history.map((s) => ((s.values as any).messages ?? []).length)).toEqual([3, 2, 2, 1, 0]);
    expect(history.map((s) => (s.values as any).topic)).toEqual(['forecast', 'forecast', 'weather', 'weather', undefined]);
    // The input checkpoint holds the state before the input, and the input as its pending task.
    expect(history[4]).toMatchObject({
      values: {},
      next: ['__start__'],
      tasks: [{ name: '__start__', path: ['__pregel_pull', '__start__'] }],
    });
    expect(history[3]).toMatchObject({ next: [], tasks: [] });
    expect(history[0]!.metadata).toMatchObject({
      thread_id: thread.thread_id,
      checkpoint_id: history[0]!.checkpoint.checkpoint_id,
      graph_id: 'chat',
      writes: { __start__: { messages: [human('Thanks!')] } }, // subset: the write as sent, with or without the assigned ID
      parents: {},
    });
    history.forEach((state, i) => {
      expect(state.checkpoint).toEqual({
        thread_id: thread.thread_id,
        checkpoint_ns: '',
        checkpoint_id: (state as any).checkpoint_id,
        checkpoint_map: null,
      });
      const older = history[i + 1];
      expect(state.parent_checkpoint?.checkpoint_id ?? null).toBe(older ? older.checkpoint.checkpoint_id : null);
      if (older) expect(state.checkpoint.checkpoint_id! > older.checkpoint.checkpoint_id!, 'checkpoint IDs are time-ordered').toBe(true);
    });
    expect(history[4]!.parent_checkpoint).toBeNull();
  });

  it('creates nothing when a superstep is invalid, and the 422 names the field', async () => {
    const threadId = crypto.randomUUID();
    const invalid = [
      { updates: [{ asNode: '__input__', values: { messages: [human('ok')] } }] },
      { updates: [{ asNode: 'agent', values: { messages: [{ type: 'robot', content: 'x' }] } }] },
    ];
    const error = await sdkError(client.threads.create({ threadId, supersteps: invalid }));
    expect(error.status).toBe(422);
    expect((error.detail as any[])[0].loc.slice(0, 6)).toEqual(['body', 'supersteps', 1, 'updates', 0, 'values']);
    expect((await sdkError(client.threads.get(threadId))).status).toBe(404);
  });
});

describe('threads.get, getState, getHistory', () => {
  let threadId: string;
  let history: Awaited<ReturnType<Client['threads']['getHistory']>>;

  beforeAll(async () => {
    threadId = (await client.threads.create({ metadata: { purpose: 'reads' }, supersteps: CONVERSATION })).thread_id;
    history = await client.threads.getHistory(threadId, { limit: 10 });
  });

  it('get answers the thread without values, with config', async () => {
    const thread = await client.threads.get(threadId);
    expect(lastWire()).toMatchObject({ method: 'GET', path: `/threads/${threadId}`, status: 200 });
    expect(thread).toMatchObject({ thread_id: threadId, status: 'idle', metadata: { purpose: 'reads' }, config: {} });
    expect(thread).not.toHaveProperty('values');
  });

  it('getState answers the latest checkpoint, and the state at a checkpoint taken from the history', async () => {
    const current = await client.threads.getState(threadId);
    expect(current).toEqual(history[0]);

    for (const state of history) {
      const checkpointId = state.checkpoint.checkpoint_id!;
      const atCheckpoint = await client.threads.getState(threadId, checkpointId);
      expect(lastWire()).toMatchObject({ method: 'GET', path: `/threads/${threadId}/state/${checkpointId}`, status: 200 });
      expect(atCheckpoint).toEqual(state);
    }
    const subgraphs = await client.threads.getState(threadId, undefined, { subgraphs: true });
    expect(lastWire().path).toBe(`/threads/${threadId}/state?subgraphs=true`);
    expect(subgraphs).toEqual(history[0]);
  });

  it('getHistory: limit, newest first', async () => {
    const two = await client.threads.getHistory(threadId, { limit: 2 });
    expect(lastWire().body).toEqual({ limit: 2 });
    expect(two).toEqual(history.slice(0, 2));
    expect(await client.threads.getHistory(threadId)).toEqual(history); // the SDK's default limit is 10
    expect(lastWire().body).toEqual({ limit: 10 });
  });

  it('getHistory: `before` as the SDK sends it (a config object) pages through the history', async () => {
    const pages: (typeof history)[] = [];
    let before: { configurable: Record<string, unknown> } | undefined;
    for (;;) {
      const page = await client.threads.getHistory(threadId, { limit: 3, ...(before ? { before } : {}) });
      if (before)
        expect(lastWire().body).toEqual({ limit: 3, before: { configurable: { checkpoint_id: before.configurable.checkpoint_id } } });
      if (page.length === 0) break;
      pages.push(page);
      before = { configurable: { checkpoint_id: page.at(-1)!.checkpoint.checkpoint_id } };
    }
    expect(pages.map((p) => p.length)).toEqual([3, 2]);
    expect(pages.flat()).toEqual(history);

    // A state's `checkpoint` object as the configurable, as apps pass it along.
    const older = await client.threads.getHistory(threadId, { limit: 10, before: { configurable: { ...history[1]!.checkpoint } } });
    expect(lastWire().body.before).toEqual({
      configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: history[1]!.checkpoint.checkpoint_id, checkpoint_map: null },
    });
    expect(older).toEqual(history.slice(2));
  });

  it('getHistory: metadata filter', async () => {
    const inputs = await client.threads.getHistory(threadId, { metadata: { source: 'input' } });
    expect(lastWire().body).toEqual({ limit: 10, metadata: { source: 'input' } });
    expect(inputs).toEqual([history[4]]);
    expect(await client.threads.getHistory(threadId, { metadata: { step: 1 } })).toEqual([history[2]]);
    expect(await client.threads.getHistory(threadId, { metadata: { writes: { agent: { messages: [ai('Sunny', 'm-2')] } } } })).toEqual([
      history[2],
    ]);
    expect(await client.threads.getHistory(threadId, { metadata: { source: 'loop' } })).toEqual([]);
  });
});

describe('threads.copy', () => {
  it('copies metadata, values and the whole history under a new ID', async () => {
    const original = await client.threads.create({ metadata: { owner: 'copy-test' }, supersteps: CONVERSATION });
    const copy = await client.threads.copy(original.thread_id);
    expect(lastWire()).toMatchObject({ method: 'POST', path: `/threads/${original.thread_id}/copy`, body: undefined, status: 200 });
    expect(isUuid(copy.thread_id)).toBe(true);
    expect(copy.thread_id).not.toBe(original.thread_id);
    // The copy's metadata: the original's, marked with the copy's own ID (as the LangGraph servers
    // mark copies), which a metadata search finds.
    expect(copy).toMatchObject({ status: 'idle', metadata: { owner: 'copy-test', thread_id: copy.thread_id }, values: original.values });
    expect(original.metadata).not.toHaveProperty('thread_id');
    expect((await client.threads.search({ metadata: { thread_id: copy.thread_id } })).map((t) => t.thread_id)).toEqual([copy.thread_id]);
    const copyOfCopy = await client.threads.copy(copy.thread_id);
    expect(copyOfCopy.metadata).toEqual({ owner: 'copy-test', thread_id: copyOfCopy.thread_id });
    expect(await client.threads.count({ metadata: { thread_id: copy.thread_id } })).toBe(1);

    const originalHistory = await client.threads.getHistory(original.thread_id, { limit: 100 });
    const copyHistory = await client.threads.getHistory(copy.thread_id, { limit: 100 });
    const comparable = (states: typeof originalHistory) =>
      states.map((s) => ({
        values: s.values,
        step: s.metadata?.step,
        source: s.metadata?.source,
        writes: s.metadata?.writes,
        created_at: s.created_at,
      }));
    expect(copyHistory).toHaveLength(5);
    expect(comparable(copyHistory)).toEqual(comparable(originalHistory));
    for (const state of copyHistory) {
      expect(state.checkpoint.thread_id).toBe(copy.thread_id);
      expect(state.metadata?.thread_id).toBe(copy.thread_id);
    }
    expect((await client.threads.getState(copy.thread_id)).values).toEqual(original.values);
    // The original is untouched.
    expect(await client.threads.getHistory(original.thread_id, { limit: 100 })).toEqual(originalHistory);
  });

  it('copies an empty thread', async () => {
    const original = await client.threads.create({ metadata: { empty: true } });
    const copy = await client.threads.copy(original.thread_id);
    expect(copy).toMatchObject({ metadata: { empty: true }, values: {}, status: 'idle' });
    expect(await client.threads.getHistory(copy.thread_id)).toEqual([]);
  });
});

describe('threads.search', () => {
  const suite = crypto.randomUUID();
  let created: Awaited<ReturnType<Client['threads']['create']>>[] = [];
  const total = () => Number(lastWire().headers.get('x-pagination-total'));

  beforeAll(async () => {
    created = [];
    // One at a time: creation order is the created_at order (ties broken by insertion order).
    for (let i = 0; i < 7; i++) created.push(await client.threads.create({ metadata: { suite, i, color: i % 3 === 0 ? 'red' : 'blue' } }));
  });

  it('filters on metadata (deep-equal per key) and reports the exact total', async () => {
    const all = await client.threads.search({ metadata: { suite } });
    expect(lastWire().body).toEqual({ metadata: { suite }, limit: 10, offset: 0 });
    expect(total()).toBe(7);
    // Default order: created_at desc.
    expect(all.map((t) => t.metadata?.i)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    for (const thread of all) expect(thread).not.toHaveProperty('values');

    const red = await client.threads.search({ metadata: { suite, color: 'red' } });
    expect(red.map((t) => t.metadata?.i)).toEqual([6, 3, 0]);
    expect(total()).toBe(3);
    expect(await client.threads.search({ metadata: { suite, color: 'green' } })).toEqual([]);
    expect(total()).toBe(0);
  });

  it('filters on status and ids', async () => {
    expect((await client.threads.search({ metadata: { suite }, status: 'idle' })).length).toBe(7);
    expect(await client.threads.search({ metadata: { suite }, status: 'busy' })).toEqual([]);
    const ids = [created[1]!.thread_id, created[4]!.thread_id];
    const found = await client.threads.search({ ids, sortBy: 'created_at', sortOrder: 'asc' });
    expect(found.map((t) => t.thread_id)).toEqual(ids);
  });

  it('pages with limit/offset and sorts by sortBy/sortOrder', async () => {
    const page = await client.threads.search({ metadata: { suite }, limit: 2, offset: 1, sortBy: 'created_at', sortOrder: 'asc' });
    expect(lastWire().body).toEqual({ metadata: { suite }, limit: 2, offset: 1, sort_by: 'created_at', sort_order: 'asc' });
    expect(page.map((t) => t.metadata?.i)).toEqual([1, 2]);
    expect(total()).toBe(7);

    const beyond = await client.threads.search({ metadata: { suite }, limit: 5, offset: 5 });
    expect(beyond.map((t) => t.metadata?.i)).toEqual([1, 0]);
    expect(await client.threads.search({ metadata: { suite }, offset: 7 })).toEqual([]);
    expect(total()).toBe(7);

    const byIdAsc = await client.threads.search({ metadata: { suite }, sortBy: 'thread_id', sortOrder: 'asc' });
    expect(byIdAsc.map((t) => t.thread_id)).toEqual(created.map((t) => t.thread_id).sort());
    const byIdDesc = await client.threads.search({ metadata: { suite }, sortBy: 'thread_id', sortOrder: 'desc' });
    expect(byIdDesc.map((t) => t.thread_id)).toEqual(
      created
        .map((t) => t.thread_id)
        .sort()
        .reverse(),
    );
    const byUpdated = await client.threads.search({ metadata: { suite }, sortBy: 'updated_at', sortOrder: 'asc', limit: 3 });
    expect(byUpdated.map((t) => t.metadata?.i)).toEqual([0, 1, 2]);
  });

  it('filters on state values', async () => {
    const marker = crypto.randomUUID();
    const thread = await client.threads.create({ supersteps: [{ updates: [{ asNode: 'agent', values: { marker, topic: 'x' } }] }] });
    const found = await client.threads.search({ values: { marker } });
    expect(found.map((t) => t.thread_id)).toEqual([thread.thread_id]);
  });
});

describe('errors through the SDK', () => {
  it('404 for a missing thread on every read and on copy', async () => {
    const missing = crypto.randomUUID();
    const expected = { status: 404, detail: `Thread with ID ${missing} not found.` };
    expect(await sdkError(client.threads.get(missing))).toEqual(expected);
    expect(await sdkError(client.threads.getState(missing))).toEqual(expected);
    expect(await sdkError(client.threads.getHistory(missing))).toEqual(expected);
    expect(await sdkError(client.threads.copy(missing))).toEqual(expected);
  });

  it('404 for an unknown checkpoint of an existing thread', async () => {
    const thread = await client.threads.create({ supersteps: CONVERSATION.slice(0, 1) });
    const unknown = '1f0c9e4e-2b7a-6d3e-9c5a-6f1d2e3b4a59';
    const error = await sdkError(client.threads.getState(thread.thread_id, unknown));
    expect(error).toEqual({ status: 404, detail: `Checkpoint ${unknown} not found for thread ${thread.thread_id}.` });
  });

  it('422 for a malformed ID, naming the path parameter', async () => {
    const error = await sdkError(client.threads.get('not-a-uuid'));
    expect(error.status).toBe(422);
    expect(error.detail).toEqual([{ loc: ['path', 'thread_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }]);
  });
});

describe('the rest of ThreadsClient: update, delete, prune, count, updateState, patchState, getState(checkpoint object)', () => {
  it('search refuses the SDK’s state_updated_at sort, as the interface lists four; each thread still carries it', async () => {
    const suite = crypto.randomUUID();
    const first = await client.threads.create({ metadata: { suite } });
    const second = await client.threads.create({ metadata: { suite } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await client.threads.updateState(first.thread_id, { values: { touched: true }, asNode: 'agent' });
    const refused = await sdkError(client.threads.search({ metadata: { suite }, sortBy: 'state_updated_at', sortOrder: 'desc' }));
    expect(refused.status).toBe(422);
    expect(refused.detail).toEqual([expect.objectContaining({ loc: ['body', 'sort_by'], type: 'enum' })]);
    const [latest, earlier] = await client.threads.search({ metadata: { suite }, sortBy: 'updated_at', sortOrder: 'desc' });
    expect(latest!.state_updated_at! > earlier!.state_updated_at!).toBe(true);
    const byCreation = await client.threads.search({ metadata: { suite }, sortBy: 'created_at', sortOrder: 'desc' });
    expect(byCreation.map((t) => t.thread_id)).toEqual([second.thread_id, first.thread_id]);
  });

  it('update merges metadata and answers the thread; returnMinimal sends Prefer: return=minimal and gets nothing', async () => {
    const thread = await client.threads.create({ metadata: { owner: 'ana', tier: 1 } });
    const updated = await client.threads.update(thread.thread_id, { metadata: { tier: 2, vip: true } });
    expect(lastWire()).toMatchObject({
      method: 'PATCH',
      path: `/threads/${thread.thread_id}`,
      body: { metadata: { tier: 2, vip: true } },
      status: 200,
    });
    expect(updated.metadata).toEqual({ owner: 'ana', tier: 2, vip: true });
    expect(updated.updated_at >= thread.updated_at).toBe(true);
    const minimal = await client.threads.update(thread.thread_id, { metadata: { note: 'x' }, returnMinimal: true });
    expect(minimal).toBeUndefined();
    expect(lastWire()).toMatchObject({ status: 204 });
    expect(lastWire().headers.get('preference-applied')).toBe('return=minimal');
    expect((await client.threads.get(thread.thread_id)).metadata).toEqual({ owner: 'ana', tier: 2, vip: true, note: 'x' });
    expect((await sdkError(client.threads.update(crypto.randomUUID(), { metadata: {} }))).status).toBe(404);
  });

  it('delete removes the thread everywhere; a second delete is a 404', async () => {
    const thread = await client.threads.create({ metadata: { doomed: doomedMarker }, supersteps: CONVERSATION });
    await client.threads.delete(thread.thread_id);
    expect(lastWire()).toMatchObject({ method: 'DELETE', status: 204 });
    for (const call of [
      () => client.threads.get(thread.thread_id),
      () => client.threads.getState(thread.thread_id),
      () => client.threads.getHistory(thread.thread_id),
      () => client.threads.copy(thread.thread_id),
      () => client.threads.delete(thread.thread_id),
    ]) {
      expect((await sdkError(call())).status).toBe(404);
    }
    expect(await client.threads.search({ metadata: { doomed: doomedMarker } })).toEqual([]);
    expect(await client.threads.count({ metadata: { doomed: doomedMarker } })).toBe(0);
  });

  it('count counts what search finds, by metadata, values and status', async () => {
    const suite = crypto.randomUUID();
    for (let i = 0; i < 3; i++) {
      await client.threads.create({
        metadata: { suite, even: i % 2 === 0 },
        supersteps: [{ updates: [{ asNode: 'agent', values: { i } }] }],
      });
    }
    expect(await client.threads.count({ metadata: { suite } })).toBe(3);
    expect(lastWire()).toMatchObject({ method: 'POST', path: '/threads/count', body: { metadata: { suite } }, status: 200 });
    expect(await client.threads.count({ metadata: { suite, even: true } })).toBe(2);
    expect(await client.threads.count({ metadata: { suite }, values: { i: 1 } })).toBe(1);
    expect(await client.threads.count({ metadata: { suite }, status: 'busy' })).toBe(0);
  });

  it('prune deletes threads, or keeps only their latest checkpoint; unknown IDs are skipped', async () => {
    const gone = await client.threads.create({ supersteps: CONVERSATION });
    const trimmed = await client.threads.create({ supersteps: CONVERSATION });
    const latest = await client.threads.getState(trimmed.thread_id);
    expect(await client.threads.prune([gone.thread_id, crypto.randomUUID()])).toEqual({ pruned_count: 1 });
    expect(lastWire().body).toMatchObject({ thread_ids: [gone.thread_id, expect.any(String)], strategy: 'delete' });
    expect((await sdkError(client.threads.get(gone.thread_id))).status).toBe(404);
    expect(await client.threads.prune([trimmed.thread_id], { strategy: 'keep_latest' })).toEqual({ pruned_count: 1 });
    const history = await client.threads.getHistory(trimmed.thread_id, { limit: 100 });
    expect(history).toHaveLength(1);
    expect(history[0]).toEqual({ ...latest, parent_checkpoint: null, parent_checkpoint_id: null });
  });

  it('getState with a checkpoint object (POST /state/checkpoint) answers that checkpoint', async () => {
    const thread = await client.threads.create({ supersteps: CONVERSATION });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    const state = await client.threads.getState(thread.thread_id, history[2]!.checkpoint);
    expect(lastWire()).toMatchObject({ method: 'POST', path: `/threads/${thread.thread_id}/state/checkpoint`, status: 200 });
    expect(state).toEqual(history[2]);
    const unknown = { ...history[2]!.checkpoint, checkpoint_id: '1f0c6d2e-3a47-6e10-8001-000000000000' };
    expect((await sdkError(client.threads.getState(thread.thread_id, unknown))).status).toBe(404);
  });

  it('updateState writes one checkpoint as a node, parented on the latest; or forks from an older one', async () => {
    const thread = await client.threads.create({ graphId: 'chat', supersteps: CONVERSATION });
    const before = await client.threads.getState(thread.thread_id);
    const result = await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: 'tool', content: 'sunny, 21C', tool_call_id: 'call_1', status: 'success', artifact: { temp: 21 } }] },
      asNode: 'tools',
    });
    expect(lastWire()).toMatchObject({ method: 'POST', path: `/threads/${thread.thread_id}/state`, body: { as_node: 'tools' } });
    const after = await client.threads.getState(thread.thread_id);
    expect(result).toEqual({
      checkpoint: { thread_id: thread.thread_id, checkpoint_ns: '', checkpoint_id: after.checkpoint.checkpoint_id },
    });
    expect(after.parent_checkpoint?.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    expect(after.metadata).toMatchObject({ source: 'update', step: (before.metadata?.step as number) + 1, graph_id: 'chat' });
    expect(((after.values as any).messages as any[]).at(-1)).toMatchObject({
      type: 'tool',
      tool_call_id: 'call_1',
      status: 'success',
      artifact: { temp: 21 },
    });

    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    const older = history.at(-2)!; // the first __start__ checkpoint
    await client.threads.updateState(thread.thread_id, {
      values: { topic: 'forked' },
      checkpointId: older.checkpoint.checkpoint_id!,
      asNode: 'agent',
    });
    const fork = await client.threads.getState(thread.thread_id);
    expect(fork.parent_checkpoint?.checkpoint_id).toBe(older.checkpoint.checkpoint_id);
    expect(fork.values).toEqual({ ...older.values, topic: 'forked' });
    expect(fork.metadata?.step).toBe((older.metadata?.step as number) + 1);
    expect((await client.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
    const unknown = await sdkError(
      client.threads.updateState(thread.thread_id, { values: {}, checkpointId: '1f0c6d2e-3a47-6e10-8001-000000000000' }),
    );
    expect(unknown.status).toBe(404);
  });

  it('messages: tool, system and content blocks are stored; remove deletes by id, __remove_all__ clears', async () => {
    const thread = await client.threads.create({
      supersteps: [
        {
          updates: [{ asNode: '__start__', values: { messages: [{ type: 'system', content: 'Be brief.', id: 's1' }, human('hi', 'h1')] } }],
        },
        {
          updates: [
            {
              asNode: 'agent',
              values: {
                messages: [
                  {
                    type: 'ai',
                    id: 'a1',
                    content: [
                      { type: 'text', text: 'Let me check.' },
                      { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
                    ],
                    tool_calls: [{ id: 'call_1', name: 'weather', args: { city: 'Paris' } }],
                  },
                ],
              },
            },
          ],
        },
        { updates: [{ asNode: 'tools', values: { messages: [{ type: 'tool', content: 'sunny', tool_call_id: 'call_1', id: 't1' }] } }] },
        {
          updates: [
            {
              asNode: 'agent',
              values: {
                messages: [
                  { type: 'remove', id: 'h1' },
                  { type: 'remove', id: 'never-there' },
                ],
              },
            },
          ],
        },
      ],
    });
    const messages = (thread.values as any).messages as any[];
    expect(messages.map((m) => [m.type, m.id])).toEqual([
      ['system', 's1'],
      ['ai', 'a1'],
      ['tool', 't1'],
    ]);
    expect(messages[1]).toMatchObject({
      tool_calls: [{ id: 'call_1' }],
      invalid_tool_calls: [],
      additional_kwargs: {},
      response_metadata: {},
    });
    expect(messages[1].content[1]).toEqual({ type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } });
    await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: 'remove', id: '__remove_all__' }, human('fresh', 'f1')] },
      asNode: 'agent',
    });
    expect(((await client.threads.getState(thread.thread_id)).values as any).messages.map((m: any) => m.id)).toEqual(['f1']);
  });

  it('a superstep command applies its update; goto (which needs a graph) is a 422 naming it', async () => {
    const thread = await client.threads.create({
      supersteps: [
        { updates: [{ asNode: 'agent', values: { ignored: true }, command: { update: { topic: 'cmd', messages: [ai('done', 'a9')] } } }] },
      ],
    });
    expect(thread.values).toMatchObject({ topic: 'cmd', messages: [{ id: 'a9', type: 'ai' }] });
    expect(thread.values).not.toHaveProperty('ignored');
    const refused = await sdkError(
      client.threads.create({ supersteps: [{ updates: [{ asNode: 'agent', values: {}, command: { goto: 'tools' } }] }] }),
    );
    expect(refused.status).toBe(422);
    expect(refused.detail).toEqual([
      { loc: ['body', 'supersteps', 0, 'updates', 0, 'command', 'goto'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it("a command's update as [channel, value] pairs: applied in order; a `messages` value must be messages", async () => {
    const pairs = (update: [string, unknown][]) =>
      client.threads.create({ supersteps: [{ updates: [{ asNode: 'agent', values: undefined, command: { update } }] }] });
    const thread = await pairs([
      ['messages', ai('first', 'p1')],
      ['topic', null],
      ['messages', [ai('second', 'p2')]],
    ]);
    expect(thread.values).toMatchObject({ topic: null, messages: [{ id: 'p1' }, { id: 'p2' }] });
    for (const notMessages of [null, 'hi', 42]) {
      const refused = await sdkError(pairs([['messages', notMessages]]));
      expect(refused.status).toBe(422);
      expect(refused.detail).toEqual([
        {
          loc: ['body', 'supersteps', 0, 'updates', 0, 'command', 'update', 0, 1],
          msg: 'Input does not match any of the accepted forms',
          type: 'union_tag_invalid',
        },
      ]);
    }
  });

  it('patchState merges metadata into the latest checkpoint without creating one', async () => {
    const thread = await client.threads.create({ supersteps: CONVERSATION });
    const before = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    await client.threads.patchState(thread.thread_id, { reviewed: true });
    expect(lastWire()).toMatchObject({
      method: 'PATCH',
      path: `/threads/${thread.thread_id}/state`,
      body: { metadata: { reviewed: true } },
      status: 204,
    });
    const after = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    expect(after).toHaveLength(before.length);
    expect(after[0]!.metadata).toEqual({ ...before[0]!.metadata, reviewed: true });
    expect(after.slice(1)).toEqual(before.slice(1));
    const empty = await client.threads.create();
    expect((await sdkError(client.threads.patchState(empty.thread_id, { x: 1 }))).status).toBe(404);
  });

  it('getHistory with a checkpoint answers that one checkpoint', async () => {
    const thread = await client.threads.create({ supersteps: CONVERSATION });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    const one = await client.threads.getHistory(thread.thread_id, { checkpoint: { checkpoint_id: history[3]!.checkpoint.checkpoint_id! } });
    expect(one).toEqual([history[3]]);
    expect(await client.threads.getHistory(thread.thread_id, { checkpoint: { checkpoint_ns: 'child:1' } })).toEqual([]);
  });

  it('search: select picks optional fields (never values), extract picks values by path', async () => {
    const suite = crypto.randomUUID();
    const thread = await client.threads.create({ metadata: { suite }, supersteps: CONVERSATION });
    const [picked] = await client.threads.search({ metadata: { suite }, select: ['thread_id', 'values'] });
    // The Thread's required fields are always answered; select leaves out config, and a search
    // answers no values, selected or not (the thread interface).
    const { config: _config, state_updated_at: _stateUpdatedAt, ...identity } = await client.threads.get(thread.thread_id);
    expect(picked).toEqual(identity);
    // context and interrupts, which the SDK may select, are fields these threads do not have.
    const [sparse] = await client.threads.search({ metadata: { suite }, select: ['state_updated_at', 'context', 'interrupts'] });
    expect(sparse).toEqual({ ...identity, state_updated_at: expect.any(String) });
    const [extracted] = await client.threads.search({
      metadata: { suite },
      extract: { last: 'values.messages[-1].content', first_id: 'values.messages[0].id', nothing: 'values.nope.deeper' },
    });
    expect(extracted).toMatchObject({ thread_id: thread.thread_id, extracted: { last: 'Thanks!', first_id: 'm-1', nothing: null } });
    expect(extracted).not.toHaveProperty('values');
  });
});

describe('ttl', () => {
  let clock = Date.now();
  let timed: TestEmulator;
  let timedClient: Client;
  beforeAll(async () => {
    timed = await startTestEmulator({ now: () => clock });
    timedClient = sdkClient(timed.agentServerUrl, { wire });
  });
  afterAll(async () => {
    await timed?.close();
  });

  it('a thread goes when its ttl runs out: every read 404s, search and count never return it; update restarts the clock', async () => {
    const suite = crypto.randomUUID();
    const short = await timedClient.threads.create({ metadata: { suite }, ttl: 5, supersteps: CONVERSATION });
    expect(lastWire().body.ttl).toEqual({ ttl: 5, strategy: 'delete' });
    const kept = await timedClient.threads.create({ metadata: { suite }, ttl: { ttl: 5 } });
    const forever = await timedClient.threads.create({ metadata: { suite } });
    clock += 4 * 60_000;
    await timedClient.threads.update(kept.thread_id, { ttl: 5 });
    clock += 2 * 60_000;
    expect((await sdkError(timedClient.threads.get(short.thread_id))).status).toBe(404);
    expect((await sdkError(timedClient.threads.getHistory(short.thread_id))).status).toBe(404);
    const found = (await timedClient.threads.search({ metadata: { suite } })).map((t) => t.thread_id).sort();
    expect(found).toEqual([kept.thread_id, forever.thread_id].sort());
    expect(await timedClient.threads.count({ metadata: { suite } })).toBe(2);
    clock += 4 * 60_000;
    expect(await timedClient.threads.count({ metadata: { suite } })).toBe(1);
    expect(timed.errors).toEqual([]);
  });
});

describe('an agent server that requires an API key', () => {
  let secured: TestEmulator;
  beforeAll(async () => {
    secured = await startTestEmulator({ config: { agent_server: { api_keys: ['sdk-key'] } } });
  });
  afterAll(async () => {
    expect(secured.errors).toEqual([]);
    await secured?.close();
  });

  it('accepts the SDK apiKey (sent as x-api-key) and refuses a missing or wrong one with 401', async () => {
    const thread = await sdkClient(secured.agentServerUrl, { apiKey: 'sdk-key', wire }).threads.create({ metadata: { secured: true } });
    expect(thread.metadata).toEqual({ secured: true });
    expect((await sdkError(sdkClient(secured.agentServerUrl, { wire }).threads.get(thread.thread_id))).status).toBe(401);
    expect((await sdkError(sdkClient(secured.agentServerUrl, { apiKey: 'wrong', wire }).threads.get(thread.thread_id))).status).toBe(401);
  });
});
