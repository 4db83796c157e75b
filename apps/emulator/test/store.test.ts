// The SQLite store: versioned migrations (applied once, in order; a newer file is refused), WAL
// mode, query plans that use the indexes meant to keep search and history fast as data grows, and
// no secret value in the file, even one an older emulator wrote.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createControlPlaneClient } from '@agentplane/control-plane';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { searchPageSql, searchPlan, ThreadStore } from '../src/agent-server/threads/thread-store.js';
import { createEmulator } from '../src/emulator.js';
import { newCheckpointId } from '../src/shared/ids.js';
import { CommitGroup } from '../src/store/commit-group.js';
import { openDatabase } from '../src/store/database.js';
import { MIGRATIONS } from '../src/store/migrations.js';
import { planSteps } from './support/query-plan.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-emulator-store-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A database file as an emulator of schema `version` left it: its first migrations only. */
function fileAtVersion(name: string, version: number): { file: string; old: Database.Database } {
  const file = path.join(dir, name);
  const old = new Database(file);
  for (const migration of MIGRATIONS.slice(0, version)) old.exec(migration);
  old.pragma(`user_version = ${version}`);
  return { file, old };
}

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

  it("migration 5 keeps every filter key of a version-4 file, each with its thread's creation time", () => {
    const { file, old } = fileAtVersion('v4.db', 4);
    const threads = [
      ['0e1c7a52-8b1f-4d3a-9e6f-2a4b6c8d0e1f', '2026-01-01T00:00:00.000Z', 'acme'],
      ['5f2d8b63-9c2a-4e4b-8f7a-3b5c7d9e1f2a', '2026-01-02T00:00:00.000Z', 'acme'],
      ['9a3e9c74-ad3b-4f5c-9a8b-4c6d8e0f2a3b', '2026-01-03T00:00:00.000Z', 'globex'],
    ] as const;
    for (const [id, at, tenant] of threads) {
      old
        .prepare(
          "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, status, metadata, \"values\", config) VALUES (?, ?, ?, ?, 'idle', ?, '{}', '{}')",
        )
        .run(id, at, at, at, JSON.stringify({ tenant }));
      old
        .prepare("INSERT INTO thread_filter_keys (scope, key, value_hash, thread_id) VALUES ('metadata', 'tenant', ?, ?)")
        .run(`h-${tenant}`, id);
    }
    old.close();

    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.prepare('SELECT thread_id, created_at, value_hash FROM thread_filter_keys ORDER BY created_at').raw().all()).toEqual(
      threads.map(([id, at, tenant]) => [id, at, `h-${tenant}`]),
    );
    // Deleting a thread still takes its keys with it.
    db.prepare('DELETE FROM threads WHERE thread_id = ?').run(threads[0][0]);
    expect(db.prepare('SELECT count(*) FROM thread_filter_keys').pluck().get()).toBe(2);
    db.close();
  });

  it('migration 9: a revision of a version-7 file keeps its status and commit, and its logs are written from the deployment as it is', async () => {
    const { file, old } = fileAtVersion('v7.db', 7);
    const deploymentId = '3c1f6e2a-8d4b-4a7e-9f0c-5b2d1e8a7c36';
    const revisionId = '5e8f2c1a-9b7d-4e6f-a3c2-7d1e0f9b8a64';
    const sourceConfig = {
      integration_id: null,
      repo_url: 'https://github.com/acme/legacy',
      deployment_type: 'dev',
      build_on_push: false,
      custom_url: null,
      resource_spec: null,
    };
    old
      .prepare(
        "INSERT INTO deployments VALUES (?, 'default', 'legacy', 'git_host', ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
      )
      .run(deploymentId, JSON.stringify(sourceConfig), JSON.stringify([{ name: 'OPENAI_API_KEY' }]), revisionId);
    old
      .prepare(
        "INSERT INTO revisions (id, deployment_id, seq, source, source_revision_config, created_at, started_ms, step_ms, plan, superseded_ms) VALUES (?, ?, 1, 'git_host', ?, '2026-01-01T00:00:00.000Z', ?, 1000, ?, NULL)",
      )
      .run(
        revisionId,
        deploymentId,
        JSON.stringify({ repo_ref: 'main', graph_config_path: 'langgraph.json', image_uri: null }),
        Date.parse('2026-01-01T00:00:00.000Z'),
        JSON.stringify(['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']),
      );
    old.close();

    const emulator = createEmulator({ db: file, validateResponses: true, onError: (message) => expect.fail(message) });
    const client = createControlPlaneClient({
      baseUrl: emulator.controlPlane.url,
      apiKey: emulator.defaultApiKey!,
      fetch: emulator.controlPlane.fetch,
    });
    const path = { deployment_id: deploymentId, revision_id: revisionId };
    const revision = (await client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', { params: { path } })).data!;
    expect(revision.status).toBe('DEPLOYED');
    const build = (
      await client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', { params: { path, query: { type: 'build' } } })
    ).data!;
    expect(build.logs.map((e) => e.message)).toContain('Cloning https://github.com/acme/legacy at main');
    expect(build.logs.map((e) => e.message)).toContain(
      `Checked out commit ${revision.source_revision_config.repo_commit_sha!.slice(0, 12)}`,
    );
    const deploy = (
      await client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', { params: { path, query: { type: 'deploy' } } })
    ).data!;
    expect(deploy.logs.map((e) => e.message)).toContain('Setting 1 secret(s) as environment variables: OPENAI_API_KEY (values hidden)');
    expect(deploy.next_offset).toBeNull();
    emulator.close();
  });

  it("migrations 6 and 7: a thread shows its latest checkpoint's values, or {} without one, from checkpoints every one of which is kept", () => {
    const { file, old } = fileAtVersion('v5.db', 5);
    const insertThread = old.prepare(
      "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, status, metadata, \"values\", config) VALUES (?, ?, ?, ?, 'idle', '{}', ?, '{}')",
    );
    const insertCheckpoint = old.prepare(
      "INSERT INTO checkpoints (thread_id, checkpoint_id, parent_checkpoint_id, created_at, metadata, \"values\", next, tasks) VALUES (?, ?, NULL, ?, '{}', ?, '[]', '[]')",
    );
    const at = '2026-01-01T00:00:00.000Z';
    const withCheckpoints = '0e1c7a52-8b1f-4d3a-9e6f-2a4b6c8d0e1f';
    const without = '5f2d8b63-9c2a-4e4b-8f7a-3b5c7d9e1f2a';
    insertThread.run(withCheckpoints, at, at, at, '{"step":2}');
    insertCheckpoint.run(withCheckpoints, '1ef00000-0000-6000-8000-000000000001', at, '{"step":1}');
    insertCheckpoint.run(withCheckpoints, '1ef00000-0000-6000-8000-000000000002', at, '{"step":2}');
    insertThread.run(without, at, at, at, '{}');
    old.close();

    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('threads');
    expect(columns).not.toContain('values');
    // Migration 7 moved the checkpoints into an ordinary table, every row kept.
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'checkpoints'").pluck().get()).not.toMatch(/WITHOUT ROWID/);
    expect(db.prepare('SELECT checkpoint_id FROM checkpoints ORDER BY checkpoint_id').pluck().all()).toEqual([
      '1ef00000-0000-6000-8000-000000000001',
      '1ef00000-0000-6000-8000-000000000002',
    ]);
    const store = new ThreadStore(db, new CommitGroup(db, () => {}));
    expect(store.get(withCheckpoints, { withValues: true })?.values).toEqual({ step: 2 });
    expect(store.get(without, { withValues: true })?.values).toEqual({});
    db.close();
  });

  it('keeps statement journals in memory for the serving connection only, not for bulk writers', () => {
    const file = path.join(dir, 'journals.db');
    const serving = openDatabase(file, { statementJournalsInMemory: true });
    const bulk = openDatabase(file);
    // 2 is MEMORY, 0 the build's default (files).
    expect(serving.pragma('temp_store', { simple: true })).toBe(2);
    expect(bulk.pragma('temp_store', { simple: true })).toBe(0);
    bulk.close();
    serving.close();
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
    // The primary key's index (migration 7): a covering one for this read of IDs.
    expect(history).toMatch(/SEARCH checkpoints USING COVERING INDEX sqlite_autoindex_checkpoints_1 \(thread_id=\? AND checkpoint_id<\?\)/);
    expect(history).not.toMatch(/TEMP B-TREE/);
    db.close();
  });
});

const AT = '2026-11-28T10:00:00.000Z';

/** A checkpoint of `values`, written by the run `runId` when given. */
const checkpointOf = (values: Record<string, unknown>, runId?: string) => ({
  id: newCheckpointId(),
  created_at: AT,
  planned: {
    values,
    next: [],
    tasks: [],
    metadata: { source: 'update' as const, step: 0, parents: {}, ...(runId ? { run_id: runId } : {}) },
  },
});

/** An in-memory store with one thread of `metadata` (and a checkpoint of `values`, when given), and what its file holds of the thread's filter keys. */
function storeWithThread(metadata: Record<string, unknown>, values?: Record<string, unknown>) {
  const db = openDatabase(':memory:');
  const store = new ThreadStore(db, new CommitGroup(db, () => {}));
  const threadId = crypto.randomUUID();
  const thread = {
    thread_id: threadId,
    created_at: AT,
    updated_at: AT,
    state_updated_at: AT,
    status: 'idle' as const,
    metadata,
    values: values ?? {},
    config: {},
  };
  store.transaction(() => store.insert(thread, values ? [checkpointOf(values)] : []));
  return {
    db,
    store,
    threadId,
    /** The thread's filter-key rows of `scope`, [key, value hash] by key. */
    keyRows: (scope: 'metadata' | 'values', id = threadId) =>
      db.prepare('SELECT key, value_hash FROM thread_filter_keys WHERE thread_id = ? AND scope = ? ORDER BY key').raw().all(id, scope) as [
        string,
        string,
      ][],
    /** Whether the thread's filter keys of `scope` are marked out of date. */
    unindexed: (scope: 'metadata' | 'values', id = threadId) =>
      db.prepare(`SELECT ${scope}_unindexed FROM threads WHERE thread_id = ?`).pluck().get(id),
  };
}

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
    // A thread's values are its latest checkpoint's: the threads with values get one.
    store.transaction(() => {
      for (const thread of threads) store.insert(thread, Object.keys(thread.values).length > 0 ? [checkpointOf(thread.values)] : []);
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

describe("a thread's value filter keys", () => {
  it('are written by the first count filtering by values after a change, follow a rollback and a copy, and a metadata count leaves them', () => {
    const { db, store, threadId, keyRows, unindexed } = storeWithThread({ tenant: 'acme' }, { topic: 'a' });
    // Nothing is written for the values until a search or count asks for them.
    expect({ rows: keyRows('values'), unindexed: unindexed('values') }).toEqual({ rows: [], unindexed: 1 });
    expect(store.count({ values: { topic: 'a' } })).toBe(1);
    expect({ rows: keyRows('values').length, unindexed: unindexed('values') }).toEqual({ rows: 1, unindexed: 0 });

    const latest = () => store.latestCheckpoint(threadId)!;
    store.transaction(() => store.addCheckpoint(threadId, latest(), checkpointOf({ topic: 'b', done: true }, 'run-1'), AT));
    const before = keyRows('values');
    // A count by metadata alone leaves the value keys as they were.
    expect(store.count({ metadata: { tenant: 'acme' } })).toBe(1);
    expect({ rows: keyRows('values'), unindexed: unindexed('values') }).toEqual({ rows: before, unindexed: 1 });
    expect([store.count({ values: { topic: 'a' } }), store.count({ values: { topic: 'b', done: true } })]).toEqual([0, 1]);

    // The run's checkpoint rolled back: the values are the first checkpoint's again.
    store.transaction(() => store.deleteCheckpointsOfRun(threadId, 'run-1'));
    expect(unindexed('values')).toBe(1);
    // A copy made now takes the source's keys (as of run-1) and that they are out of date.
    const copyId = crypto.randomUUID();
    store.transaction(() => store.copy(threadId, copyId, AT));
    expect([store.count({ values: { topic: 'a' } }), store.count({ values: { done: true } })]).toEqual([2, 0]);

    // A change of the source after leaves the copy's keys as they are.
    store.transaction(() => store.addCheckpoint(threadId, latest(), checkpointOf({ topic: 'c' }), AT));
    expect([store.count({ values: { topic: 'a' } }), store.count({ values: { topic: 'c' } })]).toEqual([1, 1]);
    expect(
      store
        .search({ values: { topic: 'a' }, limit: 10, offset: 0, sort_by: 'created_at', sort_order: 'desc' })
        .threads.map((t) => t.thread_id),
    ).toEqual([copyId]);
    db.close();
  });
});

describe("a thread's metadata filter keys", () => {
  it('are written by the first count filtering by metadata, and marked again only when a key changed', () => {
    const metadata = { tenant: 'acme', tags: ['vip'] };
    const { db, store, threadId, keyRows, unindexed } = storeWithThread(metadata);
    const keys = () => keyRows('metadata').map(([key]) => key);
    expect({ rows: keys(), unindexed: unindexed('metadata') }).toEqual({ rows: [], unindexed: 1 });
    // A count by values alone leaves them; one by metadata writes them.
    expect(store.count({ values: { topic: 'x' } })).toBe(0);
    expect(unindexed('metadata')).toBe(1);
    expect(store.count({ metadata: { tenant: 'acme', tags: ['vip'] } })).toBe(1);
    expect({ rows: keys(), unindexed: unindexed('metadata') }).toEqual({ rows: ['tags', 'tenant'], unindexed: 0 });

    // What a run on the thread does: the same metadata, the untouched values the very same.
    store.transaction(() => store.update(threadId, metadata, { ...metadata }, AT, null));
    expect(unindexed('metadata')).toBe(0);
    store.transaction(() => store.update(threadId, metadata, { tags: metadata.tags, tier: 2 }, AT, null));
    expect(unindexed('metadata')).toBe(1);
    // An assistant's delete_threads finds threads by metadata too.
    expect(store.idsByMetadata('tier', 2)).toEqual([threadId]);
    expect([store.count({ metadata: { tenant: 'acme' } }), store.count({ metadata: { tier: 2, tags: ['vip'] } })]).toEqual([0, 1]);
    expect(keys()).toEqual(['tags', 'tier']);
    db.close();
  });
});

describe("a thread's JSON text", () => {
  it('is the thread as its row reads back, whatever its metadata holds, and nothing for an unknown thread', () => {
    const db = openDatabase(':memory:');
    const store = new ThreadStore(db, new CommitGroup(db, () => {}));
    const at = '2026-11-23T10:00:00.000Z';
    const thread = {
      thread_id: crypto.randomUUID(),
      created_at: at,
      updated_at: at,
      state_updated_at: at,
      status: 'interrupted' as const,
      // Text that JSON must escape, characters outside ASCII and nesting: the stored text is spliced as is.
      metadata: { quote: 'say "hi"\n\\', emoji: 'caf\u00e9 \u{1F600}', nested: [1.5, { deep: null }, true], empty: {} },
      values: {},
      config: { configurable: { user: 'u-1' } },
    };
    store.transaction(() => store.insert(thread, []));
    const { values: _, ...asRead } = store.get(thread.thread_id)!;
    const text = store.json(thread.thread_id)!.text;
    expect(JSON.parse(text)).toEqual(asRead);
    // The fields in the order every other thread answer has them.
    expect(Object.keys(JSON.parse(text))).toEqual([
      'thread_id',
      'created_at',
      'updated_at',
      'state_updated_at',
      'metadata',
      'status',
      'config',
    ]);
    // A store written by seeding holds whatever strings its caller gave; the text stays JSON.
    const odd = { ...thread, thread_id: crypto.randomUUID(), created_at: 'noon "today"\\' };
    store.transaction(() => store.insert(odd, []));
    expect(JSON.parse(store.json(odd.thread_id)!.text).created_at).toBe(odd.created_at);
    expect(store.json(crypto.randomUUID())).toBeUndefined();
    db.close();
  });
});

describe('reading a search page', () => {
  const SORTS = ['thread_id', 'status', 'created_at', 'updated_at'] as const;
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
    // Three threads share each timestamp: the rowid (creation order) breaks the ties.
    const at = (i: number) => new Date(1_700_000_000_000 + ((i * 7919) % 40) * 1000).toISOString();
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
    // Their filter keys are written by the first count filtering by metadata; the pages below read them directly.
    store.count({ metadata: { graph_id: 'agent' } });
    const rowid = new Map(threads.map((t, i) => [t.thread_id, i + 1]));
    for (const sort_by of SORTS) {
      for (const sort_order of ['asc', 'desc'] as const) {
        for (const filter of [
          { metadata: { graph_id: 'agent' } },
          { metadata: { graph_id: 'agent', tenant: 't-3' } },
          { metadata: { tenant: 't-3' }, status: 'interrupted' as const },
        ]) {
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
          const plans = [
            'filter-first' as const,
            'sort-first' as const,
            ...(sort_by === 'created_at' && !('status' in filter) ? (['key-order'] as const) : []),
          ];
          for (const plan of plans) {
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
    const plan = (sql: string, params: unknown[]) => planSteps(db, sql, params).join(' | ');
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

  it("reads key-order from the first key's rows in creation order, with no sort of them", () => {
    const db = openDatabase(':memory:');
    const query = {
      metadata: { tenant: 't-1', graph_id: 'agent' },
      sort_by: 'created_at' as const,
      sort_order: 'desc' as const,
      limit: 10,
      offset: 0,
    };
    const { sql, params } = searchPageSql(query, 'key-order');
    const steps = planSteps(db, sql, params);
    expect(steps).toContain('SEARCH b USING PRIMARY KEY (scope=? AND key=? AND value_hash=?)');
    expect(steps).toContain('SEARCH k USING PRIMARY KEY (scope=? AND key=? AND value_hash=? AND created_at>?)');
    expect(steps.filter((step) => step.includes('TEMP B-TREE'))).toEqual(['USE TEMP B-TREE FOR ORDER BY']); // the page's few rows only
    db.close();
  });

  it('chooses the way that visits fewer threads', () => {
    const page = { sort_by: 'created_at' as const, sort_order: 'desc' as const, limit: 10, offset: 0 };
    const everyThread = { ...page, metadata: { graph_id: 'agent' } };
    expect(searchPlan(everyThread, 100_000, 100_000)).toBe('key-order');
    expect(searchPlan({ ...everyThread, metadata: { tenant: 't-7' } }, 334, 100_000)).toBe('key-order');
    expect(searchPlan({ ...everyThread, offset: 330 }, 334, 100_000)).toBe('filter-first'); // the page's last match does not exist
    expect(searchPlan({ ...everyThread, sort_by: 'updated_at' }, 100_000, 100_000)).toBe('sort-first');
    expect(searchPlan({ ...everyThread, sort_by: 'updated_at', metadata: { tenant: 't-7' } }, 334, 100_000)).toBe('filter-first');
    expect(searchPlan({ ...everyThread, status: 'idle' }, 100_000, 100_000)).toBe('sort-first');
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
