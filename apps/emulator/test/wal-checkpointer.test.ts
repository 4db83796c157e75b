// The WAL checkpointer thread: while it runs, the serving connection never checkpoints and the
// committed pages still reach the database file; should it stop, the serving connection takes
// checkpointing back and says so.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommitGroup } from '../src/store/commit-group.js';
import { openDatabase } from '../src/store/database.js';
import { checkpointTurn, startWalCheckpointer } from '../src/store/wal-checkpointer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function databaseFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-checkpointer-'));
  dirs.push(dir);
  const file = path.join(dir, 'emulator.db');
  const db = openDatabase(file);
  db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { db, file };
}

/** The WAL header's checkpoint sequence number (bytes 12-15): one more at every restart of the WAL. */
function restartCount(file: string): number {
  const header = Buffer.alloc(16);
  const fd = fs.openSync(`${file}-wal`, 'r');
  try {
    fs.readSync(fd, header, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  return header.readUInt32BE(12);
}

/** Polls `condition` every 20 ms for up to 10 s (a deadline, not a measurement). */
async function eventually(condition: () => boolean): Promise<void> {
  for (const started = Date.now(); !condition(); ) {
    if (Date.now() - started > 10_000) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the WAL checkpointer', () => {
  it('moves committed pages into the database file while the serving connection never checkpoints', async () => {
    const { db, file } = databaseFile();
    const errors: string[] = [];
    const checkpointer = startWalCheckpointer(
      db,
      file,
      (task) => task(),
      (message) => errors.push(message),
    );
    try {
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const sizeBefore = fs.statSync(file).size;
      const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
      for (let i = 0; i < 200; i++) db.transaction(() => insert.run('x'.repeat(2000)))();
      await eventually(() => fs.statSync(file).size > sizeBefore + 200 * 2000);
      expect(errors).toEqual([]);
    } finally {
      checkpointer.stop();
      db.close();
    }
  });

  it('starts the WAL over under steady writes, which on their own never leave it fully copied', async () => {
    const { db, file } = databaseFile();
    const errors: string[] = [];
    const commits = new CommitGroup(db, (message) => errors.push(message));
    const restartAfterFrames = 128;
    const checkpointer = startWalCheckpointer(
      db,
      file,
      (task) => commits.betweenGroups(task),
      (message) => errors.push(message),
      {
        restartAfterFrames,
      },
    );
    try {
      const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
      const pageBytes = db.pragma('page_size', { simple: true }) as number;
      // A group a millisecond for over a second, each of about two pages: some 20 times the
      // frames after which the WAL restarts, across a dozen of the worker's turns.
      let firstRestartCount: number | undefined;
      for (let group = 0; group < 1200; group++) {
        commits.transaction(() => insert.run('x'.repeat(pageBytes / 2)));
        commits.transaction(() => insert.run('x'.repeat(pageBytes / 2)));
        await new Promise((resolve) => setTimeout(resolve, 1));
        firstRestartCount ??= restartCount(file);
      }
      commits.commit();
      expect(db.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(2400);
      // Each restart bumps the WAL header's checkpoint sequence number. How many there are
      // depends on the machine's pace; without the restart request there are none at all.
      expect(restartCount(file) - firstRestartCount!).toBeGreaterThanOrEqual(2);
      // And the file stays well under what it holds without one: every frame written (20 MB here).
      const walBytes = fs.statSync(`${file}-wal`).size;
      expect(walBytes).toBeLessThan(2400 * pageBytes);
      expect(errors).toEqual([]);
    } finally {
      checkpointer.stop();
      db.close();
    }
  });

  it('catches up with the writer before it asks for a restart, so that the serving connection has little left to copy', () => {
    const limits = { restartAfterFrames: 4096, caughtUpFrames: 64, maxPasses: 8 };
    /** A checkpoint whose passes see these WAL sizes, one after the other; the passes it ran. */
    const passesSeeing = (sizes: number[]) => {
      let passes = 0;
      const asked = checkpointTurn(() => sizes[Math.min(passes++, sizes.length - 1)]!, limits);
      return { asked, passes };
    };
    // Under the threshold: one pass, no request.
    expect(passesSeeing([4095])).toEqual({ asked: false, passes: 1 });
    // The writer added 900 frames during the first copy, 200 during the second, 30 during the
    // third: the fourth pass finds few enough new frames, and the worker asks.
    expect(passesSeeing([5000, 5900, 6100, 6130, 6140])).toEqual({ asked: true, passes: 4 });
    // A pass that finds the WAL restarted (smaller than before) has nothing to catch up.
    expect(passesSeeing([5000, 12])).toEqual({ asked: true, passes: 2 });
    // A writer as fast as the copy: the worker stops after maxPasses and asks anyway.
    expect(passesSeeing(Array.from({ length: 20 }, (_, i) => 5000 + i * 1000))).toEqual({ asked: true, passes: 8 });
  });

  it('does not keep the process alive: a program that never stops it still exits', () => {
    const { db, file } = databaseFile();
    db.close();
    // The built module, in a process of its own (the test depends on the build).
    const module = new URL('../dist/store/wal-checkpointer.js', import.meta.url).href;
    const database = new URL('../dist/store/database.js', import.meta.url).href;
    const script = `
      const { openDatabase } = await import(${JSON.stringify(database)});
      const { startWalCheckpointer } = await import(${JSON.stringify(module)});
      const db = openDatabase(${JSON.stringify(file)});
      startWalCheckpointer(db, ${JSON.stringify(file)}, (task) => task(), (message) => console.error(message));
      console.log('started');`;
    // A file, not `-e`: an eval'd module would make the worker's eval'd source a module too.
    const program = path.join(path.dirname(file), 'never-stops.mjs');
    fs.writeFileSync(program, script);
    const run = spawnSync(process.execPath, [program], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stdout.trim()).toBe('started');
    expect(run.stderr).toBe('');
    expect(run.signal, 'still running after 20 s').toBeNull();
    expect(run.status).toBe(0);
  });

  it('gives checkpointing back to the serving connection when it cannot run', async () => {
    const { db } = databaseFile();
    const errors: string[] = [];
    startWalCheckpointer(
      db,
      path.join(os.tmpdir(), `no-such-dir-${crypto.randomUUID()}`, 'missing.db'),
      (task) => task(),
      (message) => errors.push(message),
    );
    await eventually(() => errors.length > 0);
    expect(errors[0]).toMatch(/the WAL checkpointer stopped .*the serving connection checkpoints from now on/);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    db.close();
  });
});
