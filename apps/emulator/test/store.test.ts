// The SQLite store: versioned migrations (applied once, in order; a newer file is refused), WAL
// mode, and query plans that use the indexes meant to keep search and history fast as data grows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ThreadStore } from '../src/agent-server/thread-store.js';
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
    new ThreadStore(db); // prepares its statements against the schema
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
