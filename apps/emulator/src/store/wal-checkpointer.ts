// Checkpoints the WAL into the database file on a worker thread (decision E11). SQLite's own
// checkpoint runs inside the COMMIT that grows the WAL past 1000 pages: that request, and every
// request behind it on the one event loop, waits while 4 MB of pages are copied and the file is
// fsynced. Here the serving connection never checkpoints; a second connection on a worker thread
// does it every CHECKPOINT_EVERY_MS in PASSIVE mode, which never blocks the writer.
//
// Durability does not depend on it: a committed transaction is in the WAL, and an unfinished
// checkpoint is redone from the WAL when the file is next opened. Should the worker stop, the
// serving connection takes checkpointing back.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

const CHECKPOINT_EVERY_MS = 100;
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

// The worker is evaluated from this text rather than loaded from a file, so that it runs the same
// from the built package and from the TypeScript sources under test.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.everyMs);
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

/** Starts checkpointing `file` (the database `db` has open) on a worker thread. */
export function startWalCheckpointer(db: Db, file: string, onError: (message: string) => void): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, everyMs: CHECKPOINT_EVERY_MS } });
  worker.unref();
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
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      worker.postMessage('stop');
    },
  };
}
