// Group commit (decision E11). A COMMIT costs far more than the few rows a request writes: SQLite
// writes every page the transaction touched to the WAL, whole, and now and then checkpoints the
// WAL into the file with an fsync. So the writes of every request handled in one turn of the
// event loop share one transaction, committed once that turn's I/O callbacks have run
// (`setImmediate`); each request's own work is a savepoint inside it, so a request that fails
// undoes only its own changes.
//
// Durability is unchanged: an answer is written only after the COMMIT that holds what it reports
// (`afterCommit`), the answers of reads handled while the group was open included, since they may
// show its writes. When the COMMIT fails, nothing of the group is kept and every answer waiting
// for it becomes an error.
import type { Db } from './database.js';

export class CommitGroup {
  private waiting: ((committed: boolean) => void)[] = [];
  private afterGroup: (() => void)[] = [];
  private open = false;
  /** One transaction function for every call: better-sqlite3 builds four wrappers per `db.transaction`. */
  private readonly inSavepoint: (work: () => unknown) => unknown;

  constructor(
    private readonly db: Db,
    private readonly onError: (message: string) => void,
  ) {
    this.inSavepoint = db.transaction((work: () => unknown) => work());
  }

  /** Runs `work` all or nothing, inside the current group (opened when none is). */
  transaction<T>(work: () => T): T {
    if (!this.open) {
      this.db.exec('BEGIN IMMEDIATE');
      this.open = true;
      setImmediate(() => this.commit());
    }
    return this.inSavepoint(work) as T;
  }

  /** Calls `then(true)` once everything written so far is committed (at once when nothing waits), `then(false)` if it was lost. */
  afterCommit(then: (committed: boolean) => void): void {
    if (this.open) this.waiting.push(then);
    else then(true);
  }

  /** Runs `task` with no transaction open: now when none is, else right after the open group's COMMIT. */
  betweenGroups(task: () => void): void {
    if (this.open) this.afterGroup.push(task);
    else task();
  }

  /** Commits the open group now (before the database closes). */
  commit(): void {
    if (!this.open) return;
    const waiting = this.waiting;
    this.waiting = [];
    this.open = false;
    let committed = true;
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      committed = false;
      this.onError(`a group of ${waiting.length} requests could not be committed, none of it was kept: ${(error as Error).message}`);
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
    for (const then of waiting) then(committed);
    const tasks = this.afterGroup;
    this.afterGroup = [];
    for (const task of tasks) task();
  }
}
