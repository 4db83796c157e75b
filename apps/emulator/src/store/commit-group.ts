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
//
// Reads share a transaction too (`read`). Outside a transaction SQLite opens one for every
// statement, and in WAL mode each takes and drops a lock on the WAL's shared memory, a system call
// each: a third of reading one thread. So the reads of one turn run in a read transaction opened
// by the first of them and ended with the turn. They see everything committed (only this
// connection writes, and it commits at the end of each turn), so their answers wait for nothing;
// a write in the same turn ends the read transaction and opens the group.
import type { Db } from './database.js';

type Open = 'nothing' | 'reads' | 'group';

export class CommitGroup {
  private waiting: ((committed: boolean) => void)[] = [];
  private afterGroup: (() => void)[] = [];
  private open: Open = 'nothing';
  /** One transaction function for every call: better-sqlite3 builds four wrappers per `db.transaction`. */
  private readonly inSavepoint: (work: () => unknown) => unknown;
  private readonly sql;
  private readonly endOfTurn = () => this.commit();

  constructor(
    private readonly db: Db,
    private readonly onError: (message: string) => void,
  ) {
    this.inSavepoint = db.transaction((work: () => unknown) => work());
    this.sql = { beginReads: db.prepare('BEGIN DEFERRED'), beginGroup: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT') };
  }

  /** Runs `work` all or nothing, inside the current group (opened when none is). */
  transaction<T>(work: () => T): T {
    if (this.open === 'reads') {
      this.sql.commit.run();
      this.open = 'nothing';
    }
    if (this.open === 'nothing') {
      this.sql.beginGroup.run();
      this.open = 'group';
      setImmediate(this.endOfTurn);
    }
    return this.inSavepoint(work) as T;
  }

  /**
   * Runs `work` in this turn's transaction: the read transaction of the turn (opened when nothing
   * is) or the open group. Writes inside it go through `transaction`, as anywhere.
   */
  read<T>(work: () => T): T {
    if (this.open === 'nothing') {
      this.sql.beginReads.run();
      this.open = 'reads';
      setImmediate(this.endOfTurn);
    }
    return work();
  }

  /** Calls `then(true)` once everything written so far is committed (at once when nothing waits), `then(false)` if it was lost. */
  afterCommit(then: (committed: boolean) => void): void {
    if (this.open === 'group') this.waiting.push(then);
    else then(true);
  }

  /** Runs `task` with no transaction open: now when none is, else right after the open one ends. */
  betweenGroups(task: () => void): void {
    if (this.open !== 'nothing') this.afterGroup.push(task);
    else task();
  }

  /** Commits the open group, or ends the turn's read transaction, now (before the database closes). */
  commit(): void {
    const open = this.open;
    if (open === 'nothing') return;
    this.open = 'nothing';
    if (open === 'group') this.commitGroup();
    // A read transaction has nothing to commit; COMMIT only ends it.
    else this.sql.commit.run();
    const tasks = this.afterGroup;
    this.afterGroup = [];
    for (const task of tasks) task();
  }

  private commitGroup(): void {
    const waiting = this.waiting;
    this.waiting = [];
    let committed = true;
    try {
      this.sql.commit.run();
    } catch (error) {
      committed = false;
      // Rolled back before anyone hears of it: an onError that throws (seeding's does) must not
      // leave the transaction open under the next group.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.onError(`a group of ${waiting.length} requests could not be committed, none of it was kept: ${(error as Error).message}`);
    }
    for (const then of waiting) then(committed);
  }
}
