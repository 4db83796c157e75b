// Checkpoints the WAL into the database file on a worker thread (decision E11). SQLite's own
// checkpoint runs inside the COMMIT that grows the WAL past 1000 pages: that request, and every
// request behind it on the one event loop, waits while 4 MB of pages are copied and the file is
// fsynced. Here the serving connection never checkpoints; a second connection on a worker thread
// does it every CHECKPOINT_EVERY_MS in PASSIVE mode, which never blocks the writer.
//
// Durability does not depend on it: a committed transaction is in the WAL, and an unfinished
// checkpoint is redone from the WAL when the file is next opened. Should the worker stop, the
// serving connection takes checkpointing back.
//
// The WAL starts over from its first frame only when a write transaction begins with every frame
// already copied. Under steady load that never happens on its own: the serving connection is in a
// transaction (the commit group's) most of the time, the worker can copy only up to that
// transaction's snapshot, and the next group begins before the worker's next turn. The WAL would
// then grow by every page written (267 MB in 20 seconds of state updates). So once the WAL
// holds RESTART_AFTER_FRAMES frames, the worker asks the serving connection to copy the few frames
// left itself, between two groups (`betweenGroups`): the next group then starts the WAL over.
// "Few" is the worker's doing (`checkpointTurn`): a pass copying thousands of frames takes tens of
// milliseconds, during which the writer adds hundreds more, and whatever is left when the request
// arrives is copied on the event loop, every request waiting. So before asking, the worker copies
// again until a pass finds almost nothing new.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

const CHECKPOINT_EVERY_MS = 100;
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;
/** 4096 frames of 4 KiB pages: a WAL of about 16 MiB (SQLite's own limit is 1000 frames, copied inline). */
const RESTART_AFTER_FRAMES = 4096;
/** A pass that found at most this many new frames has caught up with the writer. */
const CAUGHT_UP_FRAMES = 64;
/** Passes per turn at most: a writer as fast as the copy would otherwise keep the worker looping. */
const MAX_PASSES = 8;

export interface TurnLimits {
  restartAfterFrames: number;
  caughtUpFrames: number;
  maxPasses: number;
}

/**
 * One turn of the worker: a PASSIVE checkpoint (`checkpoint` runs one and gives the WAL's frame
 * count) and, once the WAL holds `restartAfterFrames`, more passes until one finds at most
 * `caughtUpFrames` new frames (or `maxPasses` have run). Returns whether to ask the serving
 * connection to restart the WAL. It runs on the worker thread, passed there as source text, so it
 * uses nothing but its arguments.
 */
export function checkpointTurn(checkpoint: () => number, limits: TurnLimits): boolean {
  let frames = checkpoint();
  if (frames < limits.restartAfterFrames) return false;
  for (let pass = 1; pass < limits.maxPasses; pass++) {
    const before = frames;
    frames = checkpoint();
    if (frames - before <= limits.caughtUpFrames) break;
  }
  return true;
}

// The worker is evaluated from this text rather than loaded from a file, so that it runs the same
// from the built package and from the TypeScript sources under test.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const checkpointTurn = ${checkpointTurn.toString()};
const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')[0].log;
const timer = setInterval(() => {
  if (checkpointTurn(checkpoint, workerData.limits)) parentPort.postMessage('restart');
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /** Stops the worker; its connection closes on its own thread, nothing waits for it. */
  stop(): void;
}

/**
 * Starts checkpointing `file` (the database `db` has open) on a worker thread. `betweenGroups`
 * runs a task on the serving connection at once when no transaction is open, or right after the
 * open one commits.
 */
export function startWalCheckpointer(
  db: Db,
  file: string,
  betweenGroups: (task: () => void) => void,
  onError: (message: string) => void,
  { restartAfterFrames = RESTART_AFTER_FRAMES }: { restartAfterFrames?: number } = {},
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver,
      file,
      everyMs: CHECKPOINT_EVERY_MS,
      limits: { restartAfterFrames, caughtUpFrames: CAUGHT_UP_FRAMES, maxPasses: MAX_PASSES } satisfies TurnLimits,
    },
  });
  let restartAsked = false;
  worker.on('message', () => {
    if (restartAsked) return;
    restartAsked = true;
    betweenGroups(() => {
      restartAsked = false;
      if (db.open) db.pragma('wal_checkpoint(PASSIVE)');
    });
  });
  db.pragma('wal_autocheckpoint = 0');
  let stopped = false;
  const takeBack = (reason: string) => {
    if (stopped) return;
    stopped = true;
    if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
    onError(`the WAL checkpointer stopped (${reason}); the serving connection checkpoints from now on`);
  };
  worker.on('error', (error) => takeBack(error.message));
  worker.on('exit', (code) => takeBack(`exit code ${code}`));
  // After the listeners: a 'message' listener refs the worker's port again, and the worker must
  // not keep the process alive.
  worker.unref();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      worker.postMessage('stop');
    },
  };
}
