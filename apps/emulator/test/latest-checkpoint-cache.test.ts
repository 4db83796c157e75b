// The latest-checkpoint cache: a thread's state reads the same, byte for byte, whether its values come
// from the cache or from the database, after every kind of write; and the cache stays in its budget.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAgentServerClient } from '@agentplane/agent-server';
import { afterAll, describe, expect, it } from 'vitest';
import { LatestCheckpointCache } from '../src/agent-server/threads/latest-checkpoint-cache.js';
import { startTestEmulator } from './support/harness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-latest-checkpoint-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the latest-checkpoint cache', () => {
  it('answers what the database holds: a warm emulator and a cold one on the same file read every thread alike', async () => {
    const file = path.join(dir, 'threads.db');
    const warm = await startTestEmulator({ db: file });
    const agent = createAgentServerClient({ baseUrl: warm.agentServerUrl });
    const ids: string[] = [];
    try {
      // Keys out of order at every depth, integer-like keys, and messages of each kind.
      const values = {
        zeta: { b: 1, a: [{ d: 2, c: 3 }] },
        10: 'ten',
        9: 'nine',
        messages: [{ type: 'human' as const, content: 'Where is my order?', id: 'h-1' }],
      };
      const created = await agent.POST('/threads', {
        body: { metadata: { graph_id: 'agent' }, supersteps: [{ updates: [{ as_node: 'agent', values }] }] },
      });
      const threadId = created.data!.thread_id;
      ids.push(threadId);
      const state = () => agent.GET('/threads/{thread_id}/state', { params: { path: { thread_id: threadId } } });
      const first = (await state()).data!;

      // An update, then another on top of it (the cached values as the base), a fork from the first.
      for (const content of ['It ships tomorrow.', 'Anything else?'])
        await agent.POST('/threads/{thread_id}/state', {
          params: { path: { thread_id: threadId } },
          body: { values: { messages: [{ type: 'ai', content }], extra: { y: 1, x: 2 } }, as_node: 'agent' },
        });
      await agent.POST('/threads/{thread_id}/state', {
        params: { path: { thread_id: threadId } },
        body: { values: { messages: [{ type: 'ai', content: 'Forked.', id: 'f-1' }] }, checkpoint_id: first.checkpoint!.checkpoint_id },
      });
      await agent.PATCH('/threads/{thread_id}/state', {
        params: { path: { thread_id: threadId } },
        body: { metadata: { reviewed: true } },
      });
      const copy = await agent.POST('/threads/{thread_id}/copy', { params: { path: { thread_id: threadId } } });
      ids.push(copy.data!.thread_id);
      // A thread deleted and created again under the same ID.
      await agent.DELETE('/threads/{thread_id}', { params: { path: { thread_id: threadId } } });
      await agent.POST('/threads', {
        body: { thread_id: threadId, supersteps: [{ updates: [{ as_node: 'agent', values: { messages: [], again: true } }] }] },
      });

      // A thread whose last write is an update, with keys out of order in what it wrote.
      const updated = await agent.POST('/threads', { body: { supersteps: [{ updates: [{ as_node: 'agent', values }] }] } });
      ids.push(updated.data!.thread_id);
      await agent.POST('/threads/{thread_id}/state', {
        params: { path: { thread_id: updated.data!.thread_id } },
        body: { values: { zeta: { y: 1, x: 2 }, messages: [{ type: 'ai', content: 'Done.', id: 'a-9' }] }, as_node: 'agent' },
      });
      // Then its latest checkpoint's metadata changes; another thread's latest loses its parent.
      await agent.PATCH('/threads/{thread_id}/state', {
        params: { path: { thread_id: updated.data!.thread_id } },
        body: { metadata: { reviewed: true } },
      });
      const pruned = await agent.POST('/threads', {
        body: { supersteps: [{ updates: [{ as_node: 'agent', values }] }, { updates: [{ as_node: 'agent', values: { step: 2 } }] }] },
      });
      ids.push(pruned.data!.thread_id);
      await agent.POST('/threads/prune', { body: { thread_ids: [pruned.data!.thread_id], strategy: 'keep_latest' } });

      const warmTexts = await Promise.all(ids.map((id) => stateText(warm.agentServerUrl, id)));
      const cold = await startTestEmulator({ db: file });
      try {
        const coldTexts = await Promise.all(ids.map((id) => stateText(cold.agentServerUrl, id)));
        expect(warmTexts).toEqual(coldTexts);
        expect(JSON.parse(warmTexts[0]!).values).toEqual({ messages: [], again: true });
        const updatedState = JSON.parse(warmTexts[2]!);
        expect(updatedState.metadata).toMatchObject({ reviewed: true, writes: { agent: { zeta: { y: 1, x: 2 } } } });
        expect(JSON.parse(warmTexts[3]!).parent_checkpoint).toBeNull();
        expect(cold.errors).toEqual([]);
      } finally {
        await cold.close();
      }
      expect(warm.errors).toEqual([]);
    } finally {
      await warm.close();
    }
  });

  it('keeps within its budget, dropping the least recently used, and never keeps a state larger than an eighth of it', () => {
    const cache = new LatestCheckpointCache<{ i: number }>();
    const megabyte = 1024 * 1024;
    const kept = (i: number | string) => cache.get(`t-${i}`, 'c-1') !== undefined;
    for (let i = 0; i < 20; i++) cache.set(`t-${i}`, 'c-1', { i }, megabyte);
    // 16 MiB in all: the first four went, oldest first, except one used since.
    expect(cache.get('t-4', 'c-1')).toEqual({ i: 4 });
    cache.set('t-20', 'c-1', { i: 20 }, megabyte);
    expect(kept(4)).toBe(true);
    expect(kept(5)).toBe(false);
    expect([0, 1, 2, 3].some(kept)).toBe(false);
    expect(cache.get('t-6', 'c-2')).toBeUndefined();
    cache.set('t-huge', 'c-1', { i: -1 }, 3 * megabyte);
    expect(kept('huge')).toBe(false);
  });
});

/** A thread's state as the server writes it: the exact text, key order included. */
async function stateText(baseUrl: string, threadId: string): Promise<string> {
  const response = await fetch(`${baseUrl}/threads/${threadId}/state`);
  expect(response.status).toBe(200);
  return response.text();
}
