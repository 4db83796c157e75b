// Concurrent requests on shared records stay consistent: parallel copies of one thread each carry
// its whole history; parallel creates of one thread_id have exactly one winner (409s, or with
// `if_exists: do_nothing` the winner's thread for everyone); searches running during a burst of
// creates see whole threads and consistent pages, and after it totals equal the number created;
// parallel deployment creates with one name and parallel patches of one deployment leave one
// deployment and one revision per patch. Requests go through the typed clients over real sockets,
// all in flight at once.
import type { AgentServerClient, Superstep, Thread, ThreadState } from '@agentplane/agent-server';
import { createAgentServerClient } from '@agentplane/agent-server';
import type { ControlPlaneClient } from '@agentplane/control-plane';
import { createControlPlaneClient } from '@agentplane/control-plane';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';

let emulator: TestEmulator;
let agent: AgentServerClient;
let control: ControlPlaneClient;

beforeAll(async () => {
  // Revisions take seconds to deploy, so a burst of patches supersedes every older one.
  emulator = await startTestEmulator({ revisionStepMs: 1000 });
  agent = createAgentServerClient({ baseUrl: emulator.agentServerUrl, retry: false });
  control = createControlPlaneClient({ baseUrl: emulator.controlPlaneUrl, apiKey: emulator.defaultApiKey!, retry: false });
});
afterEach(() => {
  expect(emulator.errors.splice(0), 'the emulator reported contract violations or internal errors').toEqual([]);
});
afterAll(async () => {
  await emulator?.close();
});

const conversation = (tag: string, turns: number): Superstep[] =>
  Array.from({ length: turns }, (_, i) => ({
    updates: [
      {
        as_node: i === 0 ? '__input__' : 'agent',
        values: { messages: [{ type: i % 2 ? 'ai' : 'human', content: `${tag} turn ${i}`, id: `${tag}-${i}` }], turn: i },
      },
    ],
  }));

async function create(body: NonNullable<Parameters<AgentServerClient['POST']>[1]>['body'] & object): Promise<Thread> {
  const { data, response, error } = await agent.POST('/threads', { body: body as never });
  if (!data) throw new Error(`create: ${response.status} ${JSON.stringify(error)}`);
  return data;
}
async function history(threadId: string): Promise<ThreadState[]> {
  const { data, response } = await agent.POST('/threads/{thread_id}/history', {
    params: { path: { thread_id: threadId } },
    body: { limit: 1000 },
  });
  if (!data) throw new Error(`history of ${threadId}: ${response.status}`);
  return data;
}
async function searchAll(
  metadata: Record<string, unknown>,
  pageSize: number,
  sort: { sort_by: 'thread_id' | 'created_at'; sort_order: 'asc' | 'desc' },
): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const { data, response } = await agent.POST('/threads/search', { body: { metadata, limit: pageSize, offset, ...sort } });
    totals.push(Number(response.headers.get('x-pagination-total')));
    ids.push(...data!.map((t) => t.thread_id));
    if (data!.length < pageSize) return { ids, totals };
  }
}
/** What a copy must share with its original: everything but the thread ID. */
const shape = (states: ThreadState[]) =>
  states.map((s) => ({
    values: s.values,
    checkpoint_id: s.checkpoint_id,
    parent: s.parent_checkpoint_id,
    step: s.metadata.step,
    source: s.metadata.source,
    writes: s.metadata.writes,
    created_at: s.created_at,
  }));

describe('parallel copies', () => {
  it('50 copies of one thread at once: 50 distinct threads, each with the original values and whole history', async () => {
    const tag = crypto.randomUUID();
    const original = await create({ metadata: { tag, role: 'original' }, supersteps: conversation(tag, 6) });
    const originalHistory = await history(original.thread_id);
    expect(originalHistory).toHaveLength(6);

    const copies = await Promise.all(
      Array.from({ length: 50 }, () => agent.POST('/threads/{thread_id}/copy', { params: { path: { thread_id: original.thread_id } } })),
    );
    expect(copies.map((c) => c.response.status)).toEqual(Array(50).fill(200));
    const copyIds = copies.map((c) => c.data!.thread_id);
    expect(new Set([...copyIds, original.thread_id]).size).toBe(51);
    for (const copy of copies)
      expect(copy.data).toMatchObject({ metadata: { tag, role: 'original' }, values: original.values, status: 'idle' });

    const histories = await Promise.all(copyIds.map(history));
    for (const [i, states] of histories.entries()) {
      expect(shape(states)).toEqual(shape(originalHistory));
      expect(states.every((s) => s.metadata.thread_id === copyIds[i] && s.checkpoint?.thread_id === copyIds[i])).toBe(true);
    }
    expect(await history(original.thread_id)).toEqual(originalHistory);

    const { totals } = await searchAll({ tag }, 100, { sort_by: 'thread_id', sort_order: 'asc' });
    expect(totals).toEqual([51]);
  });

  it('copies of copies in parallel waves, read while they are made: never a partial history', async () => {
    const tag = crypto.randomUUID();
    const root = await create({ metadata: { tag }, supersteps: conversation(tag, 4) });
    const rootShape = shape(await history(root.thread_id));
    let generation = [root.thread_id];
    const partial: string[] = [];
    let done = false;
    // A reader that keeps listing the copies made so far and reading their history.
    const reader = (async () => {
      let reads = 0;
      while (!done || reads === 0) {
        const { data } = await agent.POST('/threads/search', { body: { metadata: { tag }, limit: 1000 } });
        for (const thread of data!.slice(0, 10)) {
          const states = await history(thread.thread_id);
          reads++;
          if (JSON.stringify(shape(states)) !== JSON.stringify(rootShape))
            partial.push(`${thread.thread_id}: ${states.length} checkpoints`);
        }
      }
      return reads;
    })();
    for (let wave = 0; wave < 3; wave++) {
      const next = await Promise.all(
        generation.flatMap((id) =>
          [id, id, id].map(() => agent.POST('/threads/{thread_id}/copy', { params: { path: { thread_id: id } } })),
        ),
      );
      expect(next.every((c) => c.response.status === 200)).toBe(true);
      generation = next.map((c) => c.data!.thread_id);
    }
    done = true;
    const reads = await reader;
    expect(partial).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    // 1 + 3 + 9 + 27 threads.
    const { ids, totals } = await searchAll({ tag }, 1000, { sort_by: 'thread_id', sort_order: 'asc' });
    expect(totals).toEqual([40]);
    expect(new Set(ids).size).toBe(40);
  });
});

describe('parallel creates of one thread_id', () => {
  it('if_exists raise (the default): exactly one 200, every other answer 409, and the stored thread is the winner', async () => {
    const threadId = crypto.randomUUID();
    const attempts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        agent.POST('/threads', { body: { thread_id: threadId, metadata: { attempt: i }, supersteps: conversation(`a${i}`, 1 + (i % 4)) } }),
      ),
    );
    const statuses = attempts.map((a) => a.response.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(39);
    for (const attempt of attempts.filter((a) => a.response.status === 409))
      expect(attempt.error).toEqual({ detail: `Thread with ID ${threadId} already exists.` });

    const winner = attempts.find((a) => a.response.status === 200)!.data!;
    const winnerAttempt = winner.metadata.attempt as number;
    const { data: stored } = await agent.GET('/threads/{thread_id}', { params: { path: { thread_id: threadId } } });
    expect(stored!.metadata).toEqual({ attempt: winnerAttempt });
    const states = await history(threadId);
    expect(states).toHaveLength(1 + (winnerAttempt % 4));
    expect(states[0]!.values).toEqual(winner.values);
  });

  it('if_exists do_nothing: every answer 200 with the one thread that won, unchanged by the others', async () => {
    const threadId = crypto.randomUUID();
    const attempts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        agent.POST('/threads', {
          body: { thread_id: threadId, if_exists: 'do_nothing', metadata: { attempt: i }, supersteps: conversation(`d${i}`, 1 + (i % 3)) },
        }),
      ),
    );
    expect(attempts.map((a) => a.response.status)).toEqual(Array(40).fill(200));
    const answers = attempts.map((a) => a.data!);
    const winner = answers[0]!;
    for (const answer of answers) {
      expect(answer.thread_id).toBe(threadId);
      expect(answer.metadata).toEqual(winner.metadata);
      expect(answer.created_at).toBe(winner.created_at);
      expect(answer.values).toEqual(winner.values);
    }
    const states = await history(threadId);
    expect(states).toHaveLength(1 + ((winner.metadata.attempt as number) % 3));
    const { data: byId } = await agent.POST('/threads/search', { body: { ids: [threadId] } });
    expect(byId!.map((t) => t.metadata)).toEqual([winner.metadata]);
  });

  it('mixed raise and do_nothing on one thread_id: one creation; raise losers 409, do_nothing losers the winner', async () => {
    const threadId = crypto.randomUUID();
    const attempts = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        agent.POST('/threads', { body: { thread_id: threadId, if_exists: i % 2 ? 'do_nothing' : 'raise', metadata: { attempt: i } } }),
      ),
    );
    // The creator is the 200 whose thread carries its own metadata; do_nothing losers carry the creator's.
    const created = attempts.filter((a, i) => a.response.status === 200 && a.data!.metadata.attempt === i);
    expect(created).toHaveLength(1);
    const winner = created[0]!.data!;
    attempts.forEach((a, i) => {
      if (a === created[0]) return;
      if (i % 2) expect(a.data).toEqual(winner);
      else expect(a.response.status).toBe(409);
    });
  });
});

describe('creates and searches at once', () => {
  it('100 parallel creates with searches in flight: consistent pages throughout, and exact totals after', async () => {
    const tag = crypto.randomUUID();
    const searches: { total: number; length: number; limit: number; offset: number; ids: string[] }[] = [];
    const probe = async (i: number) => {
      const limit = 1 + (i % 9);
      const offset = i % 5;
      const { data, response } = await agent.POST('/threads/search', {
        body: { metadata: { tag }, limit, offset, sort_by: 'thread_id', sort_order: 'asc' },
      });
      searches.push({
        total: Number(response.headers.get('x-pagination-total')),
        length: data!.length,
        limit,
        offset,
        ids: data!.map((t) => t.thread_id),
      });
    };
    const creates = Array.from({ length: 100 }, (_, i) =>
      create({ metadata: { tag, i, parity: i % 2 }, supersteps: conversation(`${tag}-${i}`, 2) }),
    );
    const probes = Array.from({ length: 40 }, (_, i) => probe(i));
    const threads = await Promise.all(creates);
    await Promise.all(probes);

    for (const s of searches) {
      expect(s.total).toBeGreaterThanOrEqual(0);
      expect(s.total).toBeLessThanOrEqual(100);
      // A page never disagrees with the total it came with.
      expect(s.length).toBe(Math.max(0, Math.min(s.limit, s.total - s.offset)));
      expect(s.ids).toEqual([...s.ids].sort());
    }

    const createdIds = threads.map((t) => t.thread_id).sort();
    for (const sort of [
      { sort_by: 'thread_id', sort_order: 'asc' },
      { sort_by: 'created_at', sort_order: 'desc' },
      { sort_by: 'created_at', sort_order: 'asc' },
    ] as const) {
      const { ids, totals } = await searchAll({ tag }, 7, sort);
      expect(totals.every((t) => t === 100)).toBe(true);
      expect(ids).toHaveLength(100);
      expect([...ids].sort()).toEqual(createdIds);
      if (sort.sort_by === 'thread_id') expect(ids).toEqual(createdIds);
    }
    const { totals: even } = await searchAll({ tag, parity: 0 }, 1000, { sort_by: 'thread_id', sort_order: 'asc' });
    expect(even).toEqual([50]);
    // Each created thread is whole: both checkpoints.
    const histories = await Promise.all(threads.slice(0, 20).map((t) => history(t.thread_id)));
    expect(histories.map((h) => h.length)).toEqual(Array(20).fill(2));
  });

  it('creates, copies and searches interleaved on shared threads: every copy counted once, totals exact', async () => {
    const tag = crypto.randomUUID();
    const sources = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create({ metadata: { tag, source: i }, supersteps: conversation(`${tag}-${i}`, 3) })),
    );
    const work: Promise<unknown>[] = [];
    for (let round = 0; round < 5; round++) {
      for (const source of sources)
        work.push(
          agent
            .POST('/threads/{thread_id}/copy', { params: { path: { thread_id: source.thread_id } } })
            .then((c) => expect(c.response.status).toBe(200)),
        );
      work.push(create({ metadata: { tag, source: -1 } }));
      work.push(
        agent
          .POST('/threads/search', { body: { metadata: { tag }, limit: 1000 } })
          .then(({ data, response }) => expect(data!.length).toBe(Number(response.headers.get('x-pagination-total')))),
      );
    }
    await Promise.all(work);
    const { totals } = await searchAll({ tag }, 1000, { sort_by: 'thread_id', sort_order: 'asc' });
    expect(totals).toEqual([10 + 50 + 5]);
    for (const source of sources.slice(0, 3)) {
      const { totals: perSource } = await searchAll({ tag, source: source.metadata.source }, 1000, {
        sort_by: 'created_at',
        sort_order: 'asc',
      });
      expect(perSource).toEqual([6]);
    }
  });
});

describe('control plane under concurrent writes', () => {
  it('parallel creates with one name: exactly one 201, the others a 422 naming `name`', async () => {
    const name = `race-${crypto.randomUUID().slice(0, 8)}`;
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        control.POST('/v2/deployments', {
          body: { name, source: 'external_container', source_revision_config: { image_uri: `registry.example/race:${i}` } },
        }),
      ),
    );
    const statuses = attempts.map((a) => a.response.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(19);
    for (const attempt of attempts.filter((a) => a.response.status === 422))
      expect((attempt.error as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['body', 'name']);
  });

  it('parallel patches of one deployment: one new revision each, the last one latest, the others superseded', async () => {
    const { data: deployment } = await control.POST('/v2/deployments', {
      body: {
        name: `patch-${crypto.randomUUID().slice(0, 8)}`,
        source: 'external_container',
        source_revision_config: { image_uri: 'registry.example/p:0' },
      },
    });
    const patches = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        control.PATCH('/v2/deployments/{deployment_id}', {
          params: { path: { deployment_id: deployment!.id } },
          body: { source_revision_config: { image_uri: `registry.example/p:${i + 1}` } },
        }),
      ),
    );
    expect(patches.map((p) => p.response.status)).toEqual(Array(15).fill(200));
    const revisionIds = patches.map((p) => p.data!.latest_revision_id);
    expect(new Set([deployment!.latest_revision_id, ...revisionIds]).size).toBe(16);

    const { data: after } = await control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment!.id } } });
    // The latest revision is the newest patch the server applied: its answer names it, and its image is current.
    const latest = patches.find((p) => p.data!.latest_revision_id === after!.latest_revision_id)!;
    expect(latest).toBeDefined();
    expect(after!.source_revision_config.image_uri).toBe(latest.data!.source_revision_config.image_uri);
    const statuses = await Promise.all(
      [deployment!.latest_revision_id, ...revisionIds].map(async (revisionId) => {
        const { data } = await control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
          params: { path: { deployment_id: deployment!.id, revision_id: revisionId } },
        });
        return [revisionId, data!.status] as const;
      }),
    );
    const older = statuses.filter(([id]) => id !== after!.latest_revision_id);
    // Patched faster than a revision can finish: every older one was superseded before it deployed.
    expect(older.map(([, status]) => status)).toEqual(Array(15).fill('SKIPPED'));
    expect(statuses.find(([id]) => id === after!.latest_revision_id)![1]).not.toBe('SKIPPED');
  });
});
