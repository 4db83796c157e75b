// Search and count follow every change of a thread: a metadata PATCH, a ttl-only PATCH, a state
// update and a fork each leave exactly the filter keys of the thread as it now is. The store
// reindexes only the keys whose value changed, so each case is checked on the keys that changed,
// the keys that did not, and the keys a fork drops.
import { describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.js';

const f = useEmulator();

async function count(filter: { metadata?: Record<string, unknown>; values?: Record<string, unknown> }): Promise<number> {
  const { data } = await f.agent.POST('/threads/count', { body: { ...filter, metadata: { run: RUN, ...filter.metadata } } });
  return data!;
}
const RUN = crypto.randomUUID();

describe('the filter keys of a changed thread', () => {
  it('follow a metadata PATCH, and a ttl-only PATCH leaves them as they are', async () => {
    const { data: thread } = await f.agent.POST('/threads', {
      body: { metadata: { run: RUN, tenant: 'acme', user: 'u-1', tags: ['vip', { tier: 2 }] } },
    });
    const threadId = thread!.thread_id;
    await f.agent.PATCH('/threads/{thread_id}', {
      params: { path: { thread_id: threadId } },
      body: { metadata: { tenant: 'globex', reviewed: true } },
    });
    expect(await count({ metadata: { tenant: 'acme' } })).toBe(0);
    expect(await count({ metadata: { tenant: 'globex' } })).toBe(1);
    expect(await count({ metadata: { reviewed: true } })).toBe(1);
    expect(await count({ metadata: { user: 'u-1', tags: ['vip', { tier: 2 }] } })).toBe(1);

    await f.agent.PATCH('/threads/{thread_id}', { params: { path: { thread_id: threadId } }, body: { ttl: 60 } });
    expect(await count({ metadata: { tenant: 'globex', user: 'u-1', reviewed: true, tags: ['vip', { tier: 2 }] } })).toBe(1);
    // The same value sent again changes nothing.
    await f.agent.PATCH('/threads/{thread_id}', { params: { path: { thread_id: threadId } }, body: { metadata: { tenant: 'globex' } } });
    expect(await count({ metadata: { tenant: 'globex' } })).toBe(1);
  });

  it('follow a state update and a fork, which drops what its checkpoint did not have', async () => {
    const { data: thread } = await f.agent.POST('/threads', {
      body: { metadata: { run: RUN, graph_id: 'agent' }, supersteps: [{ updates: [{ as_node: 'agent', values: { topic: 'billing' } }] }] },
    });
    const threadId = thread!.thread_id;
    const path = { thread_id: threadId };
    const first = (await f.agent.GET('/threads/{thread_id}/state', { params: { path } })).data!.checkpoint!.checkpoint_id!;
    await f.agent.POST('/threads/{thread_id}/state', {
      params: { path },
      body: { values: { summary: 'asked about an invoice' }, as_node: 'agent' },
    });
    await f.agent.POST('/threads/{thread_id}/state', { params: { path }, body: { values: { topic: 'shipping' }, as_node: 'agent' } });
    expect(await count({ values: { topic: 'billing' } })).toBe(0);
    expect(await count({ values: { topic: 'shipping', summary: 'asked about an invoice' } })).toBe(1);

    await f.agent.POST('/threads/{thread_id}/state', {
      params: { path },
      body: { values: { topic: 'returns' }, as_node: 'agent', checkpoint_id: first },
    });
    expect(await count({ values: { topic: 'returns' } })).toBe(1);
    expect(await count({ values: { topic: 'shipping' } })).toBe(0);
    expect(await count({ values: { summary: 'asked about an invoice' } })).toBe(0);
  });
});
