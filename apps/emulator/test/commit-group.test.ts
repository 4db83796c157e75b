// Group commit: the writes of one turn of the event loop share a COMMIT, each request's work stays
// all or nothing inside it, nothing is answered before it is committed, and a failed COMMIT keeps
// nothing and tells every answer waiting for it. Checked on a database file, read by a second
// connection as another process would see it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from '../src/contract/api-contract.js';
import { createApiHandler } from '../src/http/api-handler.js';
import { createAuthenticator } from '../src/http/authenticator.js';
import { CommitGroup } from '../src/store/commit-group.js';
import { openDatabase } from '../src/store/database.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A database file with a table of notes, whose `owner` must name a person by COMMIT time. */
function notesDatabase() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-commit-group-'));
  dirs.push(dir);
  const file = path.join(dir, 'emulator.db');
  const db = openDatabase(file);
  db.exec(`
    CREATE TABLE people (name TEXT PRIMARY KEY);
    CREATE TABLE notes (text TEXT NOT NULL, owner TEXT REFERENCES people (name) DEFERRABLE INITIALLY DEFERRED);
  `);
  const errors: string[] = [];
  const commits = new CommitGroup(db, (message) => errors.push(message));
  const add = (text: string, owner: string | null = null) => db.prepare('INSERT INTO notes (text, owner) VALUES (?, ?)').run(text, owner);
  /** The notes another connection sees: what is committed. */
  const committedNotes = () => {
    const reader = new Database(file, { readonly: true });
    try {
      return (reader.prepare('SELECT text FROM notes ORDER BY rowid').pluck().all() as string[]).sort();
    } finally {
      reader.close();
    }
  };
  return { db, commits, add, committedNotes, errors };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the commit group', () => {
  it('commits the work of one turn once, after it, and answers only then', async () => {
    const { commits, add, committedNotes } = notesDatabase();
    const answered: boolean[] = [];
    commits.transaction(() => add('first'));
    commits.afterCommit((committed) => answered.push(committed));
    commits.transaction(() => add('second'));
    commits.afterCommit((committed) => answered.push(committed));

    expect(committedNotes()).toEqual([]);
    expect(answered).toEqual([]);
    await nextTurn();
    expect(committedNotes()).toEqual(['first', 'second']);
    expect(answered).toEqual([true, true]);
  });

  it('answers at once when nothing waits for a commit', () => {
    const { commits } = notesDatabase();
    const answered: boolean[] = [];
    commits.afterCommit((committed) => answered.push(committed));
    expect(answered).toEqual([true]);
  });

  it('runs a task between groups: at once when none is open, else right after the COMMIT, outside any transaction', async () => {
    const { db, commits, add, committedNotes } = notesDatabase();
    const seen: { committed: string[]; inTransaction: boolean }[] = [];
    const task = () => seen.push({ committed: committedNotes(), inTransaction: db.inTransaction });
    commits.betweenGroups(task);
    expect(seen).toEqual([{ committed: [], inTransaction: false }]);
    commits.transaction(() => add('first'));
    commits.betweenGroups(task);
    expect(seen).toHaveLength(1);
    await nextTurn();
    expect(seen).toEqual([
      { committed: [], inTransaction: false },
      { committed: ['first'], inTransaction: false },
    ]);
  });

  it('undoes only the work that failed, not the rest of its group', async () => {
    const { commits, add, committedNotes } = notesDatabase();
    commits.transaction(() => add('kept'));
    expect(() =>
      commits.transaction(() => {
        add('undone');
        throw new Error('a handler refused the request halfway');
      }),
    ).toThrow(/halfway/);
    commits.transaction(() => add('kept too'));
    await nextTurn();
    expect(committedNotes()).toEqual(['kept', 'kept too']);
  });

  it('keeps nothing of a group whose COMMIT fails, says so to every waiting answer, and goes on', async () => {
    const { commits, add, committedNotes, errors } = notesDatabase();
    const answered: boolean[] = [];
    commits.transaction(() => add('innocent'));
    commits.afterCommit((committed) => answered.push(committed));
    commits.transaction(() => add('orphan', 'nobody')); // the deferred foreign key fails at COMMIT
    commits.afterCommit((committed) => answered.push(committed));
    await nextTurn();
    expect(answered).toEqual([false, false]);
    expect(committedNotes()).toEqual([]);
    expect(errors).toEqual([expect.stringMatching(/a group of 2 requests could not be committed.*FOREIGN KEY/)]);

    commits.transaction(() => add('later'));
    commits.afterCommit((committed) => answered.push(committed));
    await nextTurn();
    expect(answered).toEqual([false, false, true]);
    expect(committedNotes()).toEqual(['later']);
  });

  it('runs the reads of one turn in one read transaction, ended with the turn, and answers them at once', async () => {
    const { db, commits, add, committedNotes } = notesDatabase();
    commits.transaction(() => add('committed before'));
    await nextTurn();
    const count = db.prepare('SELECT count(*) FROM notes').pluck();
    const answered: boolean[] = [];
    expect(commits.read(() => count.get())).toBe(1);
    // Still open: the turn's next read uses it instead of a transaction of its own.
    expect(db.inTransaction).toBe(true);
    commits.afterCommit((committed) => answered.push(committed));
    expect(answered).toEqual([true]); // a read waits for nothing
    expect(commits.read(() => count.get())).toBe(1);
    // A task between groups waits for the read transaction's end too (a checkpoint cannot run inside it).
    const tasks: boolean[] = [];
    commits.betweenGroups(() => tasks.push(db.inTransaction));
    expect(tasks).toEqual([]);
    await nextTurn();
    expect(db.inTransaction).toBe(false);
    expect(tasks).toEqual([false]);
    expect(committedNotes()).toEqual(['committed before']);
  });

  it('ends the read transaction when a write comes in the same turn, and holds the answers from then on', async () => {
    const { db, commits, add, committedNotes } = notesDatabase();
    const count = db.prepare('SELECT count(*) FROM notes').pluck();
    const answered: string[] = [];
    expect(commits.read(() => count.get())).toBe(0);
    commits.afterCommit(() => answered.push('read'));
    // A handler runs in the turn's transaction and writes through `transaction`.
    commits.read(() => commits.transaction(() => add('written')));
    commits.afterCommit(() => answered.push('write'));
    expect(commits.read(() => count.get())).toBe(1); // the group's own write, not yet committed
    commits.afterCommit(() => answered.push('read after the write'));
    expect(answered).toEqual(['read']);
    expect(committedNotes()).toEqual([]);
    await nextTurn();
    expect(answered).toEqual(['read', 'write', 'read after the write']);
    expect(committedNotes()).toEqual(['written']);
    expect(db.inTransaction).toBe(false);
  });

  it('rolls a failed group back before reporting it, so that an onError that throws leaves no transaction open', async () => {
    const { db, add, committedNotes } = notesDatabase();
    const commits = new CommitGroup(db, (message) => {
      throw new Error(message); // as seeding's does
    });
    commits.transaction(() => add('orphan', 'nobody'));
    expect(() => commits.commit()).toThrow(/could not be committed.*FOREIGN KEY/);
    expect(db.inTransaction).toBe(false);
    commits.transaction(() => add('next'));
    commits.commit();
    expect(committedNotes()).toEqual(['next']);
  });

  it('commits at once when asked (before the database closes)', () => {
    const { commits, add, committedNotes } = notesDatabase();
    commits.transaction(() => add('closing'));
    commits.commit();
    expect(committedNotes()).toEqual(['closing']);
  });
});

describe('an answer whose writes were not kept', () => {
  it('is a 500 in the shape of every error, whatever the handler answered', async () => {
    const contract = loadContract('agent-server');
    const handle = createApiHandler({
      contract,
      handlers: Object.fromEntries(contract.operations.map((op) => [op.operationId, () => ({ status: 204 })])),
      authenticator: createAuthenticator({ schemes: {}, anonymous: {}, requireCredentials: false }),
      validateResponses: false,
      commits: { afterCommit: (then) => then(false), read: (work) => work() },
    });
    const reply = await handle({ method: 'DELETE', target: '/threads/8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f', headers: {}, body: null });
    expect(reply.status).toBe(204);
    const sent = await new Promise<typeof reply>((resolve) => handle.deliver(reply, resolve));
    expect(sent.status).toBe(500);
    expect(JSON.parse(sent.body!)).toEqual({ detail: expect.stringMatching(/could not store .* nothing of them was kept/) });
  });
});
