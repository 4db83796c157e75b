// @agentplane/emulator/seeding: writes threads into an emulator database file directly, through
// the emulator's own store and superstep semantics, before any server opens it. For load tests
// and benchmarks that need more data than the API writes in reasonable time (a create takes at
// most 1000 supersteps, and every create is its own transaction).
import { ThreadStore } from './agent-server/threads/thread-store.js';
import { CommitGroup } from './store/commit-group.js';
import { openDatabase } from './store/database.js';

export { type PlanBase, planSupersteps } from './agent-server/threads/supersteps.js';
export { stampCheckpoints } from './agent-server/threads/thread-handlers.js';
export type { ThreadStore } from './agent-server/threads/thread-store.js';

/** The thread store of a database file; `close` commits what was written and closes the file. */
export function openThreadStore(file: string): { store: ThreadStore; close(): void } {
  const db = openDatabase(file);
  const commits = new CommitGroup(db, (message) => {
    throw new Error(message);
  });
  return {
    store: new ThreadStore(db, commits),
    close() {
      try {
        commits.commit();
      } finally {
        db.close();
      }
    },
  };
}
