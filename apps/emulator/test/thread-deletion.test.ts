// Deleting leaves nothing behind: after deleteThread, pruneThreads (either strategy) and a ttl
// running out, the database file holds no row of what went (threads, checkpoints, filter keys),
// counted in the file itself, and the threads that stayed are whole.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAgentServerClient } from '@agentplane/agent-server';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-deletion-'));
const dbFile = path.join(dir, 'emulator.db');
let clock = Date.now();
let emulator: TestEmulator;
let agent: ReturnType<typeof createAgentServerClient>;

beforeAll(async () => {
  emulator = await startTestEmulator({ db: dbFile, now: () => clock });
  agent = createAgentServerClient({ baseUrl: emulator.agentServerUrl, retry: false });
});
afterAll(async () => {
  await emulator?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Rows of each table that belong to a thread, counted in the database file. */
function rowsOf(threadId: string): { threads: number; checkpoints: number; filterKeys: number } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table} WHERE thread_id = ?`).pluck().get(threadId) as number;
    return { threads: count('threads'), checkpoints: count('checkpoints'), filterKeys: count('thread_filter_keys') };
  } finally {
    db.close();
  }
}

async function threadWithHistory(extra: { ttl?: number } = {}): Promise<string> {
  const { data } = await agent.POST('/threads', {
    body: {
      metadata: { owner: 'deletion-test', tier: 1 },
      supersteps: [
        { updates: [{ as_node: '__start__', values: { messages: [{ type: 'human', content: 'hi' }], topic: 'a' } }] },
        { updates: [{ as_node: 'agent', values: { messages: [{ type: 'ai', content: 'hello' }], topic: 'b' } }] },
        { updates: [{ as_node: 'agent', values: { done: true } }] },
      ],
      ...extra,
    },
  });
  // Filter keys are written by the first count filtering by their scope after a change (decision E12).
  await agent.POST('/threads/count', { body: { metadata: { owner: 'deletion-test' }, values: { done: true } } });
  return data!.thread_id;
}

describe('no orphan rows', () => {
  it('deleteThread removes the thread, its checkpoints and its filter keys; the others stay whole', async () => {
    const kept = await threadWithHistory();
    const doomed = await threadWithHistory();
    const copy = (await agent.POST('/threads/{thread_id}/copy', { params: { path: { thread_id: doomed } } })).data!.thread_id;
    // The copy's metadata names it: the count indexes that key.
    expect((await agent.POST('/threads/count', { body: { metadata: { thread_id: copy } } })).data).toBe(1);
    expect(rowsOf(doomed)).toEqual({ threads: 1, checkpoints: 3, filterKeys: 5 });
    expect((await agent.DELETE('/threads/{thread_id}', { params: { path: { thread_id: doomed } } })).response.status).toBe(204);
    expect(rowsOf(doomed)).toEqual({ threads: 0, checkpoints: 0, filterKeys: 0 });
    expect(rowsOf(kept)).toEqual({ threads: 1, checkpoints: 3, filterKeys: 5 });
    // The copy's metadata has one key more: its own `thread_id`.
    expect(rowsOf(copy)).toEqual({ threads: 1, checkpoints: 3, filterKeys: 6 });
  });

  it('pruneThreads delete leaves no row; keep_latest leaves one checkpoint and the thread', async () => {
    const [gone, trimmed] = [await threadWithHistory(), await threadWithHistory()];
    await agent.POST('/threads/prune', { body: { thread_ids: [gone] } });
    expect(rowsOf(gone)).toEqual({ threads: 0, checkpoints: 0, filterKeys: 0 });
    await agent.POST('/threads/prune', { body: { thread_ids: [trimmed], strategy: 'keep_latest' } });
    expect(rowsOf(trimmed)).toEqual({ threads: 1, checkpoints: 1, filterKeys: 5 });
  });

  it('an expired thread leaves no row', async () => {
    const expiring = await threadWithHistory({ ttl: 1 });
    clock += 61_000;
    await agent.POST('/threads/count', { body: {} });
    expect(rowsOf(expiring)).toEqual({ threads: 0, checkpoints: 0, filterKeys: 0 });
  });

  it('the file holds no checkpoint or filter key of a thread that does not exist', () => {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    try {
      const orphans = (table: string) =>
        db.prepare(`SELECT count(*) FROM ${table} WHERE thread_id NOT IN (SELECT thread_id FROM threads)`).pluck().get() as number;
      expect({ checkpoints: orphans('checkpoints'), filterKeys: orphans('thread_filter_keys') }).toEqual({ checkpoints: 0, filterKeys: 0 });
    } finally {
      db.close();
    }
  });
});
