// The SQLite store: versioned migrations (applied once, in order; a newer file is refused), WAL
// mode, query plans that use the indexes meant to keep search and history fast as data grows, and
// no secret value in the file, even one an older emulator wrote.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createControlPlaneClient } from '@agentplane/control-plane';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { searchPageSql, searchPlan, ThreadStore } from '../src/agent-server/thread-store.js';
import { createEmulator } from '../src/emulator.js';
import { CommitGroup } from '../src/store/commit-group.js';
import { openDatabase } from '../src/store/database.js';
import { MIGRATIONS } from '../src/store/migrations.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-emulator-store-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('database', () => {
  it('migrates a new file to the latest version in WAL mode, and reopening changes nothing', () => {
    const file = path.join(dir, 'a.db');
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.prepare("INSERT INTO meta (key, value) VALUES ('probe', 'kept')").run();
    db.close();
    const again = openDatabase(file);
    expect(again.prepare("SELECT value FROM meta WHERE key = 'probe'").pluck().get()).toBe('kept');
    again.close();
  });

  it('refuses a file from a newer emulator instead of corrupting it', () => {
    const file = path.join(dir, 'newer.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this emulator knows/);
  });

  it('plans search filters and history reads on indexes, not table scans', () => {
    const db = openDatabase(':memory:');
    new ThreadStore(db, new CommitGroup(db, () => {})); // prepares its statements against the schema
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join(' | ');
    const search = plan(
      "SELECT t.thread_id FROM threads t WHERE t.thread_id IN (SELECT thread_id FROM thread_filter_keys WHERE scope = 'metadata' AND key = 'user' AND value_hash = 'h') ORDER BY t.created_at DESC, t.rowid DESC LIMIT 10",
    );
    expect(search).toMatch(/thread_filter_keys USING PRIMARY KEY \(scope=\? AND key=\? AND value_hash=\?\)/);
    expect(search).not.toMatch(/SCAN thread_filter_keys/);
    const history = plan("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'x' AND checkpoint_id < 'y' ORDER BY checkpoint_id DESC");
    expect(history).toMatch(/SEARCH checkpoints USING PRIMARY KEY \(thread_id=\? AND checkpoint_id<\?\)/);
    expect(history).not.toMatch(/TEMP B-TREE/);
    db.close();
  });
});

describe('counting threads', () => {
  it('gives what a thread-by-thread check of every filter gives, with and without the filter-key index alone', () => {
    const db = openDatabase(':memory:');
    const store = new ThreadStore(db, new CommitGroup(db, () => {}));
    const threads = Array.from({ length: 60 }, (_, i) => ({
      thread_id: crypto.randomUUID(),
      created_at: new Date(1_700_000_000_000 + i).toISOString(),
      updated_at: new Date(1_700_000_000_000 + i).toISOString(),
      state_updated_at: new Date(1_700_000_000_000 + i).toISOString(),
      status: (['idle', 'busy', 'interrupted'] as const)[i % 3]!,
      metadata: { tenant: `t-${i % 4}`, user: `u-${i % 5}`, ...(i % 2 ? { tags: ['a', { b: i % 3 }] } : {}) },
      values: i % 6 === 0 ? { topic: 'billing' } : {},
      config: {},
    }));
    store.transaction(() => {
      for (const thread of threads) store.insert(thread, []);
    });
    store.delete(threads[4]!.thread_id); // a deleted thread's keys must not count
    const live = threads.filter((_, i) => i !== 4);
    const filters = [
      { metadata: { tenant: 't-0' } },
      { metadata: { tenant: 't-0', user: 'u-0' } },
      { metadata: { tenant: 't-1', user: 'u-1', tags: ['a', { b: 0 }] } },
      { metadata: { tenant: 't-0' }, values: { topic: 'billing' } },
      { metadata: { tenant: 't-2' }, status: 'busy' as const },
      { metadata: { user: 'u-3' }, ids: live.slice(0, 30).map((t) => t.thread_id) },
      { metadata: { tenant: 'nobody' } },
      {},
    ];
    for (const filter of filters) {
      const expected = live.filter(
        (t) =>
          Object.entries(filter.metadata ?? {}).every(
            ([k, v]) => JSON.stringify((t.metadata as Record<string, unknown>)[k]) === JSON.stringify(v),
          ) &&
          Object.entries(filter.values ?? {}).every(
            ([k, v]) => JSON.stringify((t.values as Record<string, unknown>)[k]) === JSON.stringify(v),
          ) &&
          (filter.status === undefined || t.status === filter.status) &&
          (filter.ids === undefined || filter.ids.includes(t.thread_id)),
      ).length;
      expect({ filter, count: store.count(filter) }).toEqual({ filter, count: expected });
    }
    db.close();
  });
});

describe('reading a search page', () => {
  const SORTS = ['thread_id', 'status', 'created_at', 'updated_at', 'state_updated_at'] as const;
  const SORT_INDEXES = {
    thread_id: 'sqlite_autoindex_threads_1',
    status: 'threads_by_status',
    created_at: 'threads_by_created_at',
    updated_at: 'threads_by_updated_at',
    state_updated_at: 'threads_by_state_updated_at',
  };

  it('gives the same page both ways, the page a thread-by-thread sort gives, for every sort and order', () => {
    const db = openDatabase(':memory:');
    const store = new ThreadStore(db, new CommitGroup(db, () => {}));
    const at = (i: number) => new Date(1_700_000_000_000 + ((i * 7919) % 1000) * 1000).toISOString();
    const threads = Array.from({ length: 120 }, (_, i) => ({
      thread_id: crypto.randomUUID(),
      created_at: at(i),
      updated_at: at(i + 3),
      state_updated_at: at(i + 5),
      status: (['idle', 'busy', 'interrupted', 'error'] as const)[i % 4]!,
      metadata: { graph_id: 'agent', tenant: `t-${i % 10}` },
      values: {},
      config: {},
    }));
    store.transaction(() => {
      for (const thread of threads) store.insert(thread, []);
    });
    const rowid = new Map(threads.map((t, i) => [t.thread_id, i + 1]));
    for (const sort_by of SORTS) {
      for (const sort_order of ['asc', 'desc'] as const) {
        for (const filter of [{ metadata: { graph_id: 'agent' } }, { metadata: { tenant: 't-3' }, status: 'interrupted' as const }]) {
          const query = { ...filter, sort_by, sort_order, limit: 7, offset: 2 };
          const expected = threads
            .filter((t) => Object.entries(filter.metadata).every(([k, v]) => (t.metadata as Record<string, string>)[k] === v))
            .filter((t) => !('status' in filter) || t.status === filter.status)
            .sort((a, b) => {
              const by = a[sort_by] < b[sort_by] ? -1 : a[sort_by] > b[sort_by] ? 1 : rowid.get(a.thread_id)! - rowid.get(b.thread_id)!;
              return sort_order === 'asc' ? by : -by;
            })
            .slice(2, 9)
            .map((t) => t.thread_id);
          for (const plan of ['filter-first', 'sort-first'] as const) {
            const { sql, params } = searchPageSql(query, plan);
            const ids = (db.prepare(sql).all(...params) as { thread_id: string }[]).map((row) => row.thread_id);
            expect({ sort_by, sort_order, filter, plan, ids }).toEqual({ sort_by, sort_order, filter, plan, ids: expected });
          }
          expect(store.search(query).threads.map((t) => t.thread_id)).toEqual(expected);
        }
      }
    }
    db.close();
  });

  it('reads sort-first along the sort index, with no sort, and filter-first from the filter keys', () => {
    const db = openDatabase(':memory:');
    const plan = (sql: string, params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join(' | ');
    for (const sort_by of SORTS) {
      const query = { metadata: { graph_id: 'agent', tenant: 't-1' }, sort_by, sort_order: 'desc' as const, limit: 10, offset: 0 };
      const sortFirst = searchPageSql(query, 'sort-first');
      expect(plan(sortFirst.sql, sortFirst.params)).toMatch(new RegExp(`^SCAN t USING INDEX ${SORT_INDEXES[sort_by]} \\|`));
      expect(plan(sortFirst.sql, sortFirst.params)).not.toMatch(/TEMP B-TREE/);
      const filterFirst = searchPageSql(query, 'filter-first');
      expect(plan(filterFirst.sql, filterFirst.params)).toMatch(
        /SEARCH thread_filter_keys USING PRIMARY KEY \(scope=\? AND key=\? AND value_hash=\?\)/,
      );
    }
    db.close();
  });

  it('chooses the way that visits fewer threads', () => {
    const page = { sort_by: 'created_at' as const, sort_order: 'desc' as const, limit: 10, offset: 0 };
    const everyThread = { ...page, metadata: { graph_id: 'agent' } };
    expect(searchPlan(everyThread, 100_000, 100_000)).toBe('sort-first');
    expect(searchPlan({ ...everyThread, metadata: { tenant: 't-7' } }, 334, 100_000)).toBe('filter-first');
    expect(searchPlan({ ...page, ids: ['8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f'], metadata: { graph_id: 'agent' } }, 1, 1)).toBe(
      'filter-first',
    );
    expect(searchPlan({ ...page, status: 'idle' }, 100_000, 100_000)).toBe('filter-first');
  });
});

describe('secret values never reach the disk', () => {
  /** The database file and its WAL, as bytes, after the emulator closed them. */
  const fileBytes = (file: string) =>
    Buffer.concat([file, `${file}-wal`, `${file}-shm`].filter(fs.existsSync).map((f) => fs.readFileSync(f)));

  it('keeps only the names of the secrets a create and an update send', async () => {
    const file = path.join(dir, 'secrets.db');
    const emulator = createEmulator({ db: file });
    const client = createControlPlaneClient({
      baseUrl: emulator.controlPlane.url,
      fetch: emulator.controlPlane.fetch,
      apiKey: emulator.defaultApiKey!,
      retry: false,
    });
    const value = `sk-live-${crypto.randomUUID()}`;
    const rotated = `sk-live-${crypto.randomUUID()}`;
    const { data } = await client.POST('/v2/deployments', {
      body: {
        name: 'with-secrets',
        source: 'external_container',
        source_revision_config: { image_uri: 'registry.example/agent:1' },
        secrets: [{ name: 'OPENAI_API_KEY_ORIGINAL', value }],
      },
    });
    const { data: updated } = await client.PATCH('/v2/deployments/{deployment_id}', {
      params: { path: { deployment_id: data!.id } },
      body: { secrets: [{ name: 'OPENAI_API_KEY_ROTATED', value: rotated }] },
    });
    expect(updated!.secrets).toEqual([{ name: 'OPENAI_API_KEY_ROTATED' }]);
    const whileOpen = fileBytes(file);
    emulator.close();
    for (const bytes of [whileOpen, fileBytes(file)]) {
      // The current name is there (the search finds what was written), the values are not.
      expect(bytes.includes('OPENAI_API_KEY_ROTATED')).toBe(true);
      expect(bytes.includes(value)).toBe(false);
      expect(bytes.includes(rotated)).toBe(false);
    }
  });

  it('migration 2 removes the values an older emulator stored, keeping the names in order', () => {
    const file = path.join(dir, 'old-secrets.db');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec(MIGRATIONS[0]!);
    old.pragma('user_version = 1');
    const secrets = [
      { name: 'B_KEY', value: 'old-secret-value-b' },
      { name: 'A_KEY', value: 'old-secret-value-a' },
    ];
    old
      .prepare(
        "INSERT INTO deployments VALUES ('d1', 'default', 'legacy', 'external_container', '{}', ?, 'r1', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
      )
      .run(JSON.stringify(secrets));
    old.close();
    expect(fileBytes(file).includes('old-secret-value-b')).toBe(true);

    const db = openDatabase(file);
    expect(JSON.parse(db.prepare("SELECT secrets FROM deployments WHERE id = 'd1'").pluck().get() as string)).toEqual([
      { name: 'B_KEY' },
      { name: 'A_KEY' },
    ]);
    db.close();
    const bytes = fileBytes(file);
    expect(bytes.includes('old-secret-value-a') || bytes.includes('old-secret-value-b')).toBe(false);
  });
});
