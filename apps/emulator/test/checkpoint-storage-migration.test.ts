// Migrations 15 and 16 carry a database written by the previous release forward (decision E29):
// a file an emulator of schema 12 wrote (fixtures/v12-checkpoints, made by its make-fixture.mjs
// with that release's code) is opened by this one, which lays its whole values out as items, and
// every read that release answered of it (every thread's state, with subgraphs, its history whole
// and paged, its state at each checkpoint, a subgraph's history, its runs and their answers, a
// search showing values) is answered the same, byte for byte. Then the migrated threads go on.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import { createEmulator } from '../src/emulator.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'v12-checkpoints');
const GRAPHS = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'graphs.json'), 'utf8')) as Record<string, GraphDefinition>;

interface Read {
  method: string;
  target: string;
  body?: unknown;
  status: number;
  text: string;
}
const recorded = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(FIXTURE, 'answers.json.gz'))).toString('utf8')) as {
  threads: string[];
  reads: Read[];
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-checkpoint-migration-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A fresh copy of the release's file. */
function releaseFile(name: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, zlib.gunzipSync(fs.readFileSync(path.join(FIXTURE, 'emulator.db.gz'))));
  return file;
}

function emulatorOn(file: string) {
  const emulator = createEmulator({ db: file, graphs: GRAPHS, timeScale: 0 });
  const { fetch: call, url } = emulator.agentServer;
  const send = async (method: string, target: string, body?: unknown) => {
    const response = await call(`${url}${target}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, text: await response.text() };
  };
  return { emulator, send };
}

/**
 * What that release answered, as the contract answers it since: a thread search names no values
 * even where its `select` asks for them (decision A20), which that release still answered.
 */
function answeredSince(read: (typeof recorded.reads)[number]): string {
  const selectsValues = (read.body as { select?: unknown } | undefined)?.select;
  if (read.target !== '/threads/search' || !Array.isArray(selectsValues) || !selectsValues.includes('values')) return read.text;
  return JSON.stringify((JSON.parse(read.text) as Record<string, unknown>[]).map(({ values: _values, ...thread }) => thread));
}

describe('a database of the release before checkpoints were stored by what changed', () => {
  it('is a schema 12 file holding whole values, one copy per checkpoint', () => {
    const db = new Database(releaseFile('as-released.db'), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(12);
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('checkpoints');
    expect(columns).toContain('values');
    expect(db.prepare('SELECT count(*) FROM checkpoints').pluck().get()).toBeGreaterThan(100);
    db.close();
  });

  it('migrates, and answers every read as that release answered it, byte for byte', async () => {
    const file = releaseFile('migrated.db');
    const { emulator, send } = emulatorOn(file);
    try {
      const differing: string[] = [];
      for (const read of recorded.reads) {
        const answer = await send(read.method, read.target, read.body);
        if (answer.status !== read.status || answer.text !== answeredSince(read))
          differing.push(`${read.method} ${read.target} ${JSON.stringify(read.body ?? '')}`);
      }
      expect(differing).toEqual([]);
      // And again, now that the latest checkpoints are kept parsed: the cache answers the same.
      for (const read of recorded.reads.filter((one) => one.target.endsWith('/state')))
        expect((await send(read.method, read.target)).text).toBe(read.text);
    } finally {
      emulator.close();
    }
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(16);
    expect(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('checkpoints')).not.toContain('values');
    expect(db.prepare('SELECT count(*) FROM checkpoints WHERE value_refs IS NULL').pluck().get()).toBe(0);
    // Each message is one item: the converted threads share what their checkpoints repeated.
    const messages = db.prepare("SELECT count(*) FROM checkpoint_items WHERE channel = 'messages'").pluck().get() as number;
    expect(messages).toBeLessThan(300);
    // The answers of runs that were a long thread's values name its items too.
    expect(db.prepare('SELECT count(*) FROM runs WHERE outcome_values IS NOT NULL').pluck().get()).toBeGreaterThan(10);
    db.close();
  });

  it('goes on from the migrated checkpoints: new runs, updates and forks read as they would have', async () => {
    const file = releaseFile('continued.db');
    const { emulator, send } = emulatorOn(file);
    try {
      const [orders, echo, updated] = recorded.threads as [string, string, string];
      const before = JSON.parse((await send('POST', `/threads/${echo}/history`, { limit: 1000 })).text) as { checkpoint_id: string }[];
      const stateBefore = JSON.parse((await send('GET', `/threads/${echo}/state`)).text);
      const ran = await send('POST', `/threads/${echo}/runs/wait`, {
        assistant_id: 'agent',
        input: { messages: [{ type: 'human', content: 'after the migration' }] },
      });
      expect(ran.status).toBe(200);
      const stateAfter = JSON.parse((await send('GET', `/threads/${echo}/state`)).text);
      expect(stateAfter.values.messages.slice(0, -2)).toEqual(stateBefore.values.messages);
      expect(stateAfter.values.messages.slice(-2).map((m: { content: string }) => m.content)).toEqual([
        'after the migration',
        'after the migration',
      ]);
      expect(JSON.parse(ran.text)).toEqual(stateAfter.values);
      // The checkpoints from before read as they did.
      const oldReads = recorded.reads.filter((read) => read.target.startsWith(`/threads/${echo}/state/`));
      for (const read of oldReads) expect((await send('GET', read.target)).text).toBe(read.text);
      const after = JSON.parse((await send('POST', `/threads/${echo}/history`, { limit: 1000 })).text) as { checkpoint_id: string }[];
      expect(after.slice(after.length - before.length).map((state) => state.checkpoint_id)).toEqual(before.map((s) => s.checkpoint_id));

      // A fork from a migrated checkpoint in the middle of a tool loop, and an update on top of it.
      const orderHistory = JSON.parse((await send('POST', `/threads/${orders}/history`, { limit: 1000 })).text) as {
        checkpoint_id: string;
        values: { messages: unknown[] };
      }[];
      const middle = orderHistory[7]!;
      const forked = await send('POST', `/threads/${orders}/state`, {
        values: { messages: [{ type: 'human', content: 'forked here' }] },
        checkpoint_id: middle.checkpoint_id,
      });
      expect(forked.status).toBe(200);
      const fork = JSON.parse((await send('GET', `/threads/${orders}/state`)).text);
      expect(fork.values.messages.slice(0, -1)).toEqual(middle.values.messages);
      expect(fork.parent_checkpoint_id).toBe(middle.checkpoint_id);

      // A message replaced by ID and one removed, on a migrated thread.
      await send('POST', `/threads/${updated}/state`, {
        values: {
          messages: [
            { type: 'ai', content: 'Replaced.', id: 'a-1' },
            { type: 'remove', id: 'h-2' },
          ],
        },
        as_node: 'agent',
      });
      const replaced = JSON.parse((await send('GET', `/threads/${updated}/state`)).text);
      const ids = replaced.values.messages.map((m: { id: string }) => m.id);
      expect(ids).not.toContain('h-2');
      expect(replaced.values.messages.find((m: { id: string }) => m.id === 'a-1').content).toBe('Replaced.');
    } finally {
      emulator.close();
    }
  });
});
