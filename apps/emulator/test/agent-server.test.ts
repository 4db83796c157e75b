// The agent server's semantics (decisions A4–A9), through the real typed client: supersteps, if_exists,
// copy, search, state, state at a checkpoint and history. Every answer is also checked against
// the spec by the emulator itself (the fixture fails a test on any violation).
import type { Superstep, ThreadState } from '@agentplane/agent-server';
import { describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.js';

const f = useEmulator();

const human = (content: string, id?: string) => ({ type: 'human' as const, content, ...(id ? { id } : {}) });
const ai = (content: string, id?: string) => ({ type: 'ai' as const, content, ...(id ? { id } : {}) });
const conversation: Superstep[] = [
  { updates: [{ values: {}, as_node: '__input__' }] },
  { updates: [{ values: { messages: [human('My order arrived damaged.')] }, as_node: '__start__' }] },
  { updates: [{ values: { messages: [ai('Sorry! Replacement RR-2291 is on its way.')], ticket: 'RR-2291' }, as_node: 'call_model' }] },
];

async function createThread(body: Parameters<typeof f.agent.POST<'/threads'>>[1]['body'] = {}) {
  const { data, error, response } = await f.agent.POST('/threads', { body });
  if (!data) throw new Error(`create failed: ${response.status} ${JSON.stringify(error)}`);
  return data;
}
async function history(threadId: string, body: Record<string, unknown> = {}) {
  const { data } = await f.agent.POST('/threads/{thread_id}/history', { params: { path: { thread_id: threadId } }, body });
  return data!;
}

describe('createThread', () => {
  it('creates an empty idle thread with a fresh ID, values {} and no checkpoint', async () => {
    const thread = await createThread({});
    expect(thread).toMatchObject({ status: 'idle', metadata: {}, values: {} });
    expect(thread.created_at).toBe(thread.updated_at);
    const { data: state } = await f.agent.GET('/threads/{thread_id}/state', { params: { path: { thread_id: thread.thread_id } } });
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
    expect(await history(thread.thread_id)).toEqual([]);
  });

  it('applies supersteps: one checkpoint each, source/step/writes/parents, messages appended with IDs', async () => {
    const thread = await createThread({ metadata: { graph_id: 'support', user: 'u1' }, supersteps: conversation });
    const messages = thread.values!.messages!;
    expect(messages.map((m) => [m.type, m.content])).toEqual([
      ['human', 'My order arrived damaged.'],
      ['ai', 'Sorry! Replacement RR-2291 is on its way.'],
    ]);
    expect(messages.every((m) => typeof m.id === 'string' && m.id.length > 0)).toBe(true);
    expect(thread.values!.ticket).toBe('RR-2291');

    const states = await history(thread.thread_id);
    expect(states).toHaveLength(3);
    expect(states.map((s) => [s.metadata.source, s.metadata.step])).toEqual([
      ['update', 1],
      ['update', 0],
      ['input', -1],
    ]);
    expect(states[0]!.metadata).toMatchObject({
      thread_id: thread.thread_id,
      checkpoint_id: states[0]!.checkpoint_id,
      graph_id: 'support',
      parents: {},
    });
    expect(states[0]!.metadata.writes).toEqual({ call_model: conversation[2]!.updates[0]!.values });
    expect(states[2]!.metadata.writes).toEqual({ __input__: {} });
    // Parent links chain the checkpoints; the first has none.
    expect(states[0]!.parent_checkpoint_id).toBe(states[1]!.checkpoint_id);
    expect(states[1]!.parent_checkpoint).toEqual({
      checkpoint_id: states[2]!.checkpoint_id,
      thread_id: thread.thread_id,
      checkpoint_ns: '',
      checkpoint_map: null,
    });
    expect(states[2]!.parent_checkpoint).toBeNull();
    expect(states[2]!.values).toEqual({});
    expect(states[0]!.values).toEqual(thread.values);
    // Checkpoint IDs are time-ordered: newest first is descending ID order.
    const ids = states.map((s) => s.checkpoint_id!);
    expect([...ids].sort().reverse()).toEqual(ids);
  });

  it('replaces a message whose id exists and keeps other keys by last write', async () => {
    const thread = await createThread({
      supersteps: [
        { updates: [{ values: { messages: [human('first', 'm1'), ai('draft', 'm2')], mood: 'calm' }, as_node: '__start__' }] },
        {
          updates: [
            { values: { messages: [ai('final', 'm2')], mood: 'happy' }, as_node: 'call_model' },
            { values: null, as_node: 'noop' },
          ],
        },
      ],
    });
    expect(thread.values!.messages!.map((m) => [m.id, m.content])).toEqual([
      ['m1', 'first'],
      ['m2', 'final'],
    ]);
    expect(thread.values!.mood).toBe('happy');
    const [latest] = await history(thread.thread_id, { limit: 1 });
    expect(latest!.metadata.writes).toEqual({ call_model: { messages: [ai('final', 'm2')], mood: 'happy' }, noop: null });
  });

  it('appends messages without id and finds the ones with an id, however they alternate in one update', async () => {
    const thread = await createThread({
      supersteps: [{ updates: [{ values: { messages: [human('first', 'm1'), ai('draft', 'm2')] }, as_node: '__start__' }] }],
    });
    const unnamed = (content: string) => ({ type: 'ai' as const, content });
    const path = { thread_id: thread.thread_id };
    const updated = await f.agent.POST('/threads/{thread_id}/state', {
      params: { path },
      body: {
        as_node: 'agent',
        values: { messages: [unnamed('one'), ai('final', 'm2'), unnamed('two'), ai('new', 'm3'), ai('newer', 'm3'), unnamed('three')] },
      },
    });
    expect(updated.response.status).toBe(200);
    const { data: state } = await f.agent.GET('/threads/{thread_id}/state', { params: { path } });
    const messages = (state!.values as { messages: { id: string; content: string }[] }).messages;
    expect(messages.map((m) => m.content)).toEqual(['first', 'final', 'one', 'two', 'newer', 'three']);
    expect(messages.map((m) => m.id).slice(0, 2)).toEqual(['m1', 'm2']);
    expect(messages[4]!.id).toBe('m3');
    // Every message made without an id got its own.
    expect(new Set(messages.map((m) => m.id)).size).toBe(6);
  });

  it('is atomic: an invalid superstep anywhere creates nothing', async () => {
    const threadId = crypto.randomUUID();
    const { response, error } = await f.agent.POST('/threads', {
      body: {
        thread_id: threadId,
        supersteps: [...conversation, { updates: [{ values: { messages: [{ type: 'robot', content: 'beep' } as never] }, as_node: 'x' }] }],
      },
    });
    expect(response.status).toBe(422);
    expect(JSON.stringify(error)).toContain('"supersteps",3,"updates",0,"values","messages",0');
    const missingAsNode = await f.agent.POST('/threads', {
      body: { thread_id: threadId, supersteps: [{ updates: [{ values: {} } as never] }] },
    });
    expect(missingAsNode.response.status).toBe(422);
    expect(missingAsNode.error).toEqual({
      detail: [{ loc: ['body', 'supersteps', 0, 'updates', 0, 'as_node'], msg: 'Field required', type: 'missing' }],
    });
    expect((await f.agent.GET('/threads/{thread_id}', { params: { path: { thread_id: threadId } } })).response.status).toBe(404);
  });

  it('if_exists: raise answers 409 (the default); do_nothing answers the existing thread unchanged', async () => {
    const original = await createThread({ metadata: { v: 1 }, supersteps: conversation });
    const again = await f.agent.POST('/threads', { body: { thread_id: original.thread_id, metadata: { v: 2 } } });
    expect(again.response.status).toBe(409);
    expect(again.error).toEqual({ detail: `Thread with ID ${original.thread_id} already exists.` });
    const kept = await createThread({
      thread_id: original.thread_id.toUpperCase(),
      metadata: { v: 3 },
      if_exists: 'do_nothing',
      supersteps: [conversation[0]!],
    });
    expect(kept).toEqual(original);
    expect(await history(original.thread_id)).toHaveLength(3);
  });
});

describe('copyThread', () => {
  it('copies metadata, values and every checkpoint into an independent idle thread', async () => {
    const original = await createThread({ metadata: { graph_id: 'support', owner: 'ana' }, supersteps: conversation });
    const { data: copy, response } = await f.agent.POST('/threads/{thread_id}/copy', {
      params: { path: { thread_id: original.thread_id } },
    });
    expect(response.status).toBe(200);
    expect(copy!.thread_id).not.toBe(original.thread_id);
    expect(copy).toMatchObject({ status: 'idle', metadata: original.metadata, values: original.values, config: {} });

    const withoutThreadId = (states: ThreadState[]) =>
      states.map((s) => ({
        ...s,
        metadata: { ...s.metadata, thread_id: undefined },
        checkpoint: { ...s.checkpoint!, thread_id: undefined },
        parent_checkpoint: s.parent_checkpoint && { ...s.parent_checkpoint, thread_id: undefined },
      }));
    const [originalHistory, copyHistory] = await Promise.all([history(original.thread_id), history(copy!.thread_id)]);
    expect(withoutThreadId(copyHistory)).toEqual(withoutThreadId(originalHistory));
    expect(copyHistory.every((s) => s.metadata.thread_id === copy!.thread_id && s.checkpoint!.thread_id === copy!.thread_id)).toBe(true);
    // The copy's checkpoints are readable under the copy's ID.
    const at = await f.agent.GET('/threads/{thread_id}/state/{checkpoint_id}', {
      params: { path: { thread_id: copy!.thread_id, checkpoint_id: copyHistory[1]!.checkpoint_id! } },
    });
    expect(at.data!.values).toEqual(originalHistory[1]!.values);
  });

  it('accepts no body, an empty body and {}, refuses fields, and 404s a missing thread', async () => {
    const original = await createThread({});
    const url = `${f.emulator.agentServerUrl}/threads/${original.thread_id}/copy`;
    expect((await fetch(url, { method: 'POST' })).status).toBe(200);
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' })).status).toBe(200);
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    const withField = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"thread_id":"x"}' });
    expect(withField.status).toBe(422);
    expect(await withField.json()).toEqual({
      detail: [{ loc: ['body', 'thread_id'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    });
    const missing = crypto.randomUUID();
    const gone = await f.agent.POST('/threads/{thread_id}/copy', { params: { path: { thread_id: missing } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toEqual({ detail: `Thread with ID ${missing} not found.` });
  });
});

describe('searchThreads', () => {
  const run = crypto.randomUUID();
  const created: { thread_id: string; created_at: string }[] = [];
  it('seeds threads for the search cases', async () => {
    for (let i = 0; i < 12; i++) {
      created.push(
        await createThread({
          metadata: { run, parity: i % 2 === 0 ? 'even' : 'odd', tags: { n: i % 3 } },
          supersteps: i < 4 ? [{ updates: [{ values: { stage: i % 2 }, as_node: 'n' }] }] : undefined,
        }),
      );
    }
  });

  const search = async (body: Record<string, unknown>) => {
    const { data, response } = await f.agent.POST('/threads/search', { body: { metadata: { run }, ...body } });
    return { threads: data!, total: Number(response.headers.get('X-Pagination-Total')) };
  };

  it('defaults: 10 newest first, config present, values absent, exact total', async () => {
    const { threads, total } = await search({});
    expect(total).toBe(12);
    expect(threads.map((t) => t.thread_id)).toEqual(
      created
        .slice(-10)
        .reverse()
        .map((t) => t.thread_id),
    );
    expect(threads.every((t) => t.values === undefined && t.config !== undefined)).toBe(true);
  });

  it('filters by metadata (deep equality per key), values, ids and status', async () => {
    expect((await search({ metadata: { run, parity: 'even' } })).total).toBe(6);
    expect((await search({ metadata: { run, tags: { n: 1 } } })).total).toBe(4);
    expect((await search({ metadata: { run, tags: { n: '1' } } })).total).toBe(0);
    expect((await search({ metadata: { run, parity: 'even', tags: { n: 0 } } })).total).toBe(2);
    expect((await search({ values: { stage: 1 } })).total).toBe(2);
    const ids = [created[0]!.thread_id, created[5]!.thread_id.toUpperCase(), crypto.randomUUID()];
    const byIds = await search({ ids });
    expect(byIds.threads.map((t) => t.thread_id).sort()).toEqual([created[0]!.thread_id, created[5]!.thread_id].sort());
    expect((await search({ status: 'idle' })).total).toBe(12);
    expect((await search({ status: 'busy' })).total).toBe(0);
  });

  it('pages with limit/offset in every sort order', async () => {
    for (const sort_by of ['thread_id', 'status', 'created_at', 'updated_at'] as const) {
      for (const sort_order of ['asc', 'desc'] as const) {
        const all = await search({ sort_by, sort_order, limit: 100 });
        const keys = all.threads.map((t) => t[sort_by]);
        const sorted = [...keys].sort();
        expect(keys).toEqual(sort_order === 'asc' ? sorted : sorted.reverse());
        const pages = [];
        for (let offset = 0; offset < 12; offset += 5) pages.push(...(await search({ sort_by, sort_order, limit: 5, offset })).threads);
        expect(pages.map((t) => t.thread_id)).toEqual(all.threads.map((t) => t.thread_id));
      }
    }
    const past = await search({ offset: 50 });
    expect(past).toEqual({ threads: [], total: 12 });
  });

  it('refuses an out-of-range limit and a misspelt filter with 422 naming the field', async () => {
    const { error, response } = await f.agent.POST('/threads/search', { body: { limit: 1001, metdata: {} } as never });
    expect(response.status).toBe(422);
    expect(error!.detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'limit'], msg: 'Input should be less than or equal to 1000', type: 'less_than_equal' },
        { loc: ['body', 'metdata'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ]),
    );
  });
});

describe('state and history', () => {
  it('reads the current state and the state at each checkpoint; 404s unknown ones', async () => {
    const thread = await createThread({ supersteps: conversation });
    const states = await history(thread.thread_id);
    const { data: current } = await f.agent.GET('/threads/{thread_id}/state', {
      params: { path: { thread_id: thread.thread_id }, query: { subgraphs: true } },
    });
    expect(current).toEqual(states[0]);
    for (const state of states) {
      const { data } = await f.agent.GET('/threads/{thread_id}/state/{checkpoint_id}', {
        params: { path: { thread_id: thread.thread_id, checkpoint_id: state.checkpoint_id! } },
      });
      expect(data).toEqual(state);
    }
    const unknown = '1f0c6d2e-3a47-6e10-8001-9d7e0f1a2b3c';
    const missing = await f.agent.GET('/threads/{thread_id}/state/{checkpoint_id}', {
      params: { path: { thread_id: thread.thread_id, checkpoint_id: unknown } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ detail: `Checkpoint ${unknown} not found for thread ${thread.thread_id}.` });
  });

  it('history: newest first, limit, before in all three forms, metadata filter', async () => {
    const steps: Superstep[] = Array.from({ length: 25 }, (_, i) => ({
      updates: [{ values: { i }, as_node: i % 5 === 0 ? '__input__' : 'worker' }],
    }));
    const thread = await createThread({ supersteps: steps });
    const all = await history(thread.thread_id, { limit: 1000 });
    // Superstep i is step i - 1 (the first is an input, step −1); input values never reach the state.
    expect(all.map((s) => s.metadata.step)).toEqual(Array.from({ length: 25 }, (_, i) => 23 - i));
    expect(await history(thread.thread_id)).toEqual(all.slice(0, 10));

    const pivot = all[9]!;
    const older = all.slice(10, 13);
    for (const before of [
      pivot.checkpoint_id,
      pivot.checkpoint,
      { checkpoint_id: pivot.checkpoint_id },
      { configurable: { checkpoint_id: pivot.checkpoint_id, thread_id: thread.thread_id, checkpoint_ns: '' } },
    ]) {
      expect(await history(thread.thread_id, { limit: 3, before })).toEqual(older);
    }
    const inputs = await history(thread.thread_id, { limit: 1000, metadata: { source: 'input' } });
    expect(inputs.map((s) => s.metadata.step)).toEqual([19, 14, 9, 4, -1]);
    expect(await history(thread.thread_id, { limit: 2, metadata: { source: 'input' }, before: inputs[1]!.checkpoint_id })).toEqual(
      inputs.slice(2, 4),
    );
    expect(await history(thread.thread_id, { metadata: { step: 3, source: 'update' } })).toEqual([all[20]]); // step = i - 1
  });

  it('answers 404 for a missing thread and 422 for malformed IDs and bodies', async () => {
    const missing = crypto.randomUUID();
    for (const call of [
      f.agent.GET('/threads/{thread_id}', { params: { path: { thread_id: missing } } }),
      f.agent.GET('/threads/{thread_id}/state', { params: { path: { thread_id: missing } } }),
      f.agent.POST('/threads/{thread_id}/history', { params: { path: { thread_id: missing } }, body: {} }),
    ]) {
      const { response, error } = await call;
      expect(response.status).toBe(404);
      expect(error).toEqual({ detail: `Thread with ID ${missing} not found.` });
    }
    const malformed = await f.agent.GET('/threads/{thread_id}', { params: { path: { thread_id: 'not-a-uuid' } } });
    expect(malformed.response.status).toBe(422);
    expect(malformed.error!.detail[0]).toMatchObject({ loc: ['path', 'thread_id'], type: 'uuid_parsing' });
    const badBefore = await f.agent.POST('/threads/{thread_id}/history', {
      params: { path: { thread_id: missing } },
      body: { before: 42 } as never,
    });
    expect(badBefore.error).toEqual({
      detail: [
        {
          loc: ['body', 'before'],
          msg: 'Input should be one of: CheckpointId, CheckpointRef, CheckpointConfig',
          type: 'union_tag_invalid',
        },
      ],
    });
  });
});
