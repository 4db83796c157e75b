// Unit tests of the agent server client with an injected fetch: no network.

import { json } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';
import type { Thread, ThreadState } from '../src/index.js';
import { ApiError, createAgentServerClient, isSafeToRepeat, iterateHistory, iterateThreads, unwrap } from '../src/index.js';

const THREAD_ID = '8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f';
const fastRetry = { baseDelayMs: 1, random: () => 0 };

function recorder(answer: (request: Request, n: number) => Response | Promise<Response>) {
  const requests: { method: string; path: string; headers: Headers; body: any }[] = [];
  const fetch = async (request: Request) => {
    const text = await request.clone().text();
    requests.push({
      method: request.method,
      path: new URL(request.url).pathname,
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
    });
    return answer(request, requests.length);
  };
  return { fetch, requests };
}

describe('createAgentServerClient', () => {
  it('sends X-Api-Key only when given', async () => {
    const { fetch, requests } = recorder(() => json(200, {}));
    await createAgentServerClient({ baseUrl: 'http://as.test', fetch }).GET('/threads/{thread_id}', {
      params: { path: { thread_id: THREAD_ID } },
    });
    await createAgentServerClient({ baseUrl: 'http://as.test', apiKey: 'lsv2_key', fetch }).GET('/threads/{thread_id}', {
      params: { path: { thread_id: THREAD_ID } },
    });
    expect(requests.map((r) => r.headers.get('x-api-key'))).toEqual([null, 'lsv2_key']);
  });

  it.each([
    ['GET a thread', 'GET', `/threads/${THREAD_ID}`, undefined, true],
    ['search', 'POST', '/threads/search', {}, true],
    ['history', 'POST', `/threads/${THREAD_ID}/history`, {}, true],
    ['create with thread_id', 'POST', '/threads', { thread_id: THREAD_ID }, true],
    ['create without thread_id', 'POST', '/threads', {}, false],
    ['copy', 'POST', `/threads/${THREAD_ID}/copy`, undefined, false],
    ['delete', 'DELETE', `/threads/${THREAD_ID}`, undefined, false],
  ])('%s is safe to repeat: %s %s → %s', async (_, method, path, body, expected) => {
    const request = new Request(`http://as.test${path}`, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
    const verdict = isSafeToRepeat(request);
    // Only a thread create reads its body; every other answer is immediate, so the retry layer
    // awaits nothing for them.
    expect(verdict instanceof Promise).toBe(path === '/threads');
    expect(await verdict).toBe(expected);
  });

  it('retries a search on 502 and a create only when it names its thread_id', async () => {
    const { fetch, requests } = recorder((_, n) => (n === 1 || n === 3 || n === 4 ? json(502, {}) : json(200, [])));
    const client = createAgentServerClient({ baseUrl: 'http://as.test', fetch, retry: fastRetry });
    expect((await client.POST('/threads/search', { body: {} })).response.status).toBe(200);
    expect((await client.POST('/threads', { body: {} })).response.status).toBe(502);
    expect((await client.POST('/threads', { body: { thread_id: THREAD_ID, if_exists: 'do_nothing' } })).response.status).toBe(200);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /threads/search',
      'POST /threads/search',
      'POST /threads',
      'POST /threads',
      'POST /threads',
    ]);
    expect(requests.at(-1)!.body).toEqual({ thread_id: THREAD_ID, if_exists: 'do_nothing' });
  });

  it('returns the 404 body typed, and unwrap throws it as an ApiError', async () => {
    const { fetch } = recorder(() => json(404, { detail: `Thread with ID ${THREAD_ID} not found.` }));
    const result = await createAgentServerClient({ baseUrl: 'http://as.test', fetch }).GET('/threads/{thread_id}/state', {
      params: { path: { thread_id: THREAD_ID } },
    });
    expect(result.error?.detail).toBe(`Thread with ID ${THREAD_ID} not found.`);
    expect(() => unwrap(result)).toThrow(ApiError);
  });
});

describe('iterateThreads', () => {
  const threads = Array.from({ length: 23 }, (_, i) => ({ thread_id: `t${i}` }) as Thread);

  it('pages with limit/offset until X-Pagination-Total, passing the filters on', async () => {
    const { fetch, requests } = recorder((request) =>
      request
        .json()
        .then((body: any) =>
          json(200, threads.slice(body.offset, body.offset + body.limit), { 'x-pagination-total': String(threads.length) }),
        ),
    );
    const client = createAgentServerClient({ baseUrl: 'http://as.test', fetch });
    const seen: string[] = [];
    for await (const thread of iterateThreads(client, { metadata: { graph_id: 'support' }, sort_by: 'created_at' }, { pageSize: 10 }))
      seen.push(thread.thread_id);
    expect(seen).toEqual(threads.map((t) => t.thread_id));
    expect(requests.map((r) => [r.body.offset, r.body.limit])).toEqual([
      [0, 10],
      [10, 10],
      [20, 10],
    ]);
    expect(requests.every((r) => r.body.metadata.graph_id === 'support')).toBe(true);
  });

  it('stops at the total even when the last page is full', async () => {
    const { fetch, requests } = recorder((request) =>
      request
        .json()
        .then((body: any) => json(200, threads.slice(body.offset, Math.min(20, body.offset + body.limit)), { 'x-pagination-total': '20' })),
    );
    const all = [];
    for await (const thread of iterateThreads(createAgentServerClient({ baseUrl: 'http://as.test', fetch }), {}, { pageSize: 10 }))
      all.push(thread);
    expect(all).toHaveLength(20);
    expect(requests).toHaveLength(2);
  });

  it('stops at a short page when the server sends no total', async () => {
    const { fetch, requests } = recorder((request) =>
      request.json().then((body: any) => json(200, threads.slice(body.offset, body.offset + body.limit))),
    );
    const all = [];
    for await (const thread of iterateThreads(createAgentServerClient({ baseUrl: 'http://as.test', fetch }), {}, { pageSize: 10 }))
      all.push(thread);
    expect(all).toHaveLength(23);
    expect(requests).toHaveLength(3);
  });

  it('refuses a page size outside 1–1000 and throws ApiError on an error answer', async () => {
    const client = createAgentServerClient({
      baseUrl: 'http://as.test',
      fetch: async () => json(422, { detail: [{ loc: ['body', 'limit'], msg: 'too big', type: 'less_than_equal' }] }),
    });
    await expect(iterateThreads(client, {}, { pageSize: 0 }).next()).rejects.toThrow(RangeError);
    await expect(iterateThreads(client).next()).rejects.toThrow('body.limit: too big');
  });
});

describe('iterateHistory', () => {
  const states = Array.from({ length: 25 }, (_, i) => ({ checkpoint_id: `c${24 - i}` }) as ThreadState); // newest first

  it('walks the whole history newest first, passing the last checkpoint as before', async () => {
    const { fetch, requests } = recorder((request) =>
      request.json().then((body: any) => {
        const start = body.before ? states.findIndex((s) => s.checkpoint_id === body.before) + 1 : 0;
        return json(200, states.slice(start, start + body.limit));
      }),
    );
    const seen: string[] = [];
    for await (const state of iterateHistory(
      createAgentServerClient({ baseUrl: 'http://as.test', fetch }),
      THREAD_ID,
      { metadata: { source: 'update' } },
      { pageSize: 10 },
    )) {
      seen.push(state.checkpoint_id!);
    }
    expect(seen).toEqual(states.map((s) => s.checkpoint_id));
    expect(requests.map((r) => r.body.before)).toEqual([undefined, 'c15', 'c5']);
    expect(requests.every((r) => r.path === `/threads/${THREAD_ID}/history` && r.body.metadata.source === 'update')).toBe(true);
  });
});
