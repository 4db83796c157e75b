// Opens the emulator's SQLite file and brings its schema up to date.
//
// Durability: WAL with `synchronous = NORMAL`. A transaction is in the WAL file once its COMMIT
// returns, and the emulator answers 2xx only after that, so a SIGKILL of the process at any
// moment loses no acknowledged write (the OS still holds the file's pages). Only a power loss or
// kernel crash could drop the last commits; a local emulator trades that for speed.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DATA_CONVERSIONS, MIGRATIONS } from './migrations.js';
import { nativeDriverProblem } from './native-driver.js';

export type Db = Database.Database;

export interface OpenOptions {
  /**
   * Keep statement journals in memory (`temp_store = MEMORY`), for the serving connection. Each
   * request's work is a savepoint inside the commit group (store/commit-group.ts), and the group's
   * sub-journal, which holds the pages its savepoints changed, outgrows SQLite's 64 KiB in-memory
   * allowance within two or three requests: in a file, that is a temporary file created, written
   * and unlinked for nearly every group, a quarter of a create's CPU time here. In memory it is
   * buffers. Bulk writers (seeding) keep the default: SQLite truncates an in-memory journal by
   * walking it from its start, so a single transaction that changes tens of megabytes of pages
   * over many statements slows down quadratically (50,000 threads in 37.5 s instead of 4.8 s).
   */
  statementJournalsInMemory?: boolean;
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  let db: Db;
  try {
    db = new Database(file);
  } catch (error) {
    throw nativeDriverProblem(error) ?? error;
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // Deleted and overwritten content is zeroed, not left in free pages: a deployment's deleted
  // records, or the secret values migration 2 removes, do not linger in the file.
  db.pragma('secure_delete = ON');
  db.pragma('busy_timeout = 5000');
  if (options.statementJournalsInMemory) db.pragma('temp_store = MEMORY');
  migrate(db);
  return db;
}

/** Applies the migrations the file has not seen yet, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the database is at schema version ${current}, newer than this emulator knows (${MIGRATIONS.length}); use a newer emulator or another --db`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      DATA_CONVERSIONS[version + 1]?.(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  // The WAL still holds the pages as they were before the migrations (secret values, for one):
  // copy it into the file and empty it.
  if (current < MIGRATIONS.length) db.pragma('wal_checkpoint(TRUNCATE)');
}

/** A value kept across restarts in the `meta` table, created by `create` the first time. */
export function metaValue(db: Db, key: string, create: () => string): string {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  if (row) return row.value;
  const value = create();
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, value);
  return value;
}
