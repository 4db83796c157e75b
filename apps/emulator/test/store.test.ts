// The SQLite store: versioned migrations (applied once, in order; a newer file is refused), WAL
// mode, query plans that use the indexes meant to keep search and history fast as data grows, and
// no secret value in the file, even one an older emulator wrote.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createControlPlaneClient } from '@agentplane/control-plane';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ThreadStore } from '../src/agent-server/thread-store.js';
import { createEmulator } from '../src/emulator.js';
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
