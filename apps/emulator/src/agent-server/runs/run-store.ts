// Runs in SQLite (migration 8): each run's row is its whole durable record. Like the thread
// store, every method runs synchronously on the one connection, inside the caller's transaction
// when it writes (the commit group makes a request's writes, or a run step's, all or nothing).
import type { Run, RunStatus, RunWaitResult } from '@agentplane/agent-server';
import type { CommitGroup } from '../../store/commit-group.js';
import type { Db } from '../../store/database.js';
import { LIMIT_OFFSET } from '../../store/sql-page.js';

/** A run as stored: the API's Run, with how many times it started and, once ended, its waiters' answer. */
export interface RunRow extends Run {
  attempt: number;
  outcome: RunWaitResult | null;
}

type RawRun = Omit<RunRow, 'metadata' | 'kwargs' | 'outcome' | 'cancel_reason'> & {
  metadata: string;
  kwargs: string;
  outcome: string | null;
  cancel_reason: string | null;
};

/** A run's kwargs as the API shows them: without what only the engine keeps (whether it is stateless). */
export function shownKwargs(kwargs: Run['kwargs']): Run['kwargs'] {
  if (!Object.hasOwn(kwargs, 'stateless')) return kwargs;
  const { stateless: _stateless, ...shown } = kwargs;
  return shown;
}

/** The statuses of a run that has not ended. */
export const IN_FLIGHT: readonly RunStatus[] = ['pending', 'running'];

const COLUMNS =
  'run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, attempt, outcome, cancel_reason';

export class RunStore {
  private readonly statements;

  constructor(
    db: Db,
    private readonly commits: CommitGroup,
  ) {
    this.statements = {
      insert: db.prepare(`INSERT INTO runs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      get: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE run_id = ?`),
      page: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE thread_id = ? ORDER BY run_id DESC ${LIMIT_OFFSET}`),
      pageWithStatus: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE thread_id = ? AND status = ? ORDER BY run_id DESC ${LIMIT_OFFSET}`),
      inFlightOfThread: db.prepare(
        `SELECT ${COLUMNS} FROM runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY created_at, run_id`,
      ),
      inFlight: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE status IN ('pending', 'running') ORDER BY created_at, run_id`),
      withStatus: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE status = ? ORDER BY created_at, run_id`),
      setStatus: db.prepare('UPDATE runs SET status = ?, updated_at = ? WHERE run_id = ?'),
      // Starting does not touch updated_at, as LangGraph's servers leave it.
      start: db.prepare("UPDATE runs SET status = 'running', attempt = attempt + 1 WHERE run_id = ?"),
      finish: db.prepare('UPDATE runs SET status = ?, updated_at = ?, outcome = ?, cancel_reason = ? WHERE run_id = ?'),
      delete: db.prepare('DELETE FROM runs WHERE run_id = ?'),
      deleteOfAssistant: db.prepare('DELETE FROM runs WHERE assistant_id = ?'),
      cursor: db.prepare('SELECT reply_cursor FROM threads WHERE thread_id = ?').pluck(),
      setCursor: db.prepare('UPDATE threads SET reply_cursor = ? WHERE thread_id = ?'),
    };
  }

  transaction<T>(work: () => T): T {
    return this.commits.transaction(work);
  }

  /** Calls `then` once what is written so far is committed (at once when nothing waits); not when it was lost. */
  afterCommit(then: () => void): void {
    this.commits.afterCommit((committed) => committed && then());
  }

  insert(run: RunRow): void {
    this.statements.insert.run(
      run.run_id,
      run.thread_id,
      run.assistant_id,
      run.created_at,
      run.updated_at,
      run.status,
      JSON.stringify(run.metadata),
      JSON.stringify(run.kwargs),
      run.multitask_strategy,
      run.attempt,
      run.outcome === null ? null : JSON.stringify(run.outcome),
      run.cancel_reason ?? null,
    );
  }

  get(runId: string): RunRow | undefined {
    const raw = this.statements.get.get(runId) as RawRun | undefined;
    return raw && parseRun(raw);
  }

  /** A page of the thread's runs, newest first. */
  list(threadId: string, options: { limit: number; offset: number; status?: RunStatus | undefined }): RunRow[] {
    const rows = options.status
      ? this.statements.pageWithStatus.all(threadId, options.status, options.limit, options.offset)
      : this.statements.page.all(threadId, options.limit, options.offset);
    return (rows as RawRun[]).map(parseRun);
  }

  /** The thread's runs that have not ended, in the order they run (created_at, which counts after_seconds, then creation). */
  inFlightOf(threadId: string): RunRow[] {
    return (this.statements.inFlightOfThread.all(threadId) as RawRun[]).map(parseRun);
  }

  /** Every run that has not ended, in the order they run. */
  inFlight(): RunRow[] {
    return (this.statements.inFlight.all() as RawRun[]).map(parseRun);
  }

  withStatus(status: RunStatus): RunRow[] {
    return (this.statements.withStatus.all(status) as RawRun[]).map(parseRun);
  }

  /** Marks a run running, one more attempt. */
  start(runId: string): void {
    this.statements.start.run(runId);
  }

  setStatus(runId: string, status: RunStatus, now: string): void {
    this.statements.setStatus.run(status, now, runId);
  }

  /** Records how a run ended, what its waiters are answered, and why a cancel ended it when it said why. */
  finish(runId: string, status: RunStatus, outcome: RunWaitResult, now: string, cancelReason?: string): void {
    this.statements.finish.run(status, now, JSON.stringify(outcome), cancelReason ?? null, runId);
  }

  delete(runId: string): boolean {
    return this.statements.delete.run(runId).changes > 0;
  }

  /** Deletes every run of an assistant (the assistant is being deleted). */
  deleteOfAssistant(assistantId: string): number {
    return this.statements.deleteOfAssistant.run(assistantId).changes;
  }

  /** Where the thread's scripted model looks for its next reply (0 for a thread unknown). */
  replyCursor(threadId: string): number {
    return (this.statements.cursor.get(threadId) as number | undefined) ?? 0;
  }

  setReplyCursor(threadId: string, cursor: number): void {
    this.statements.setCursor.run(cursor, threadId);
  }
}

function parseRun(raw: RawRun): RunRow {
  const { cancel_reason, ...run } = raw;
  return {
    ...run,
    metadata: JSON.parse(raw.metadata),
    kwargs: JSON.parse(raw.kwargs),
    outcome: raw.outcome === null ? null : JSON.parse(raw.outcome),
    // Absent from a run no cancel with a reason ended, as the API answers it.
    ...(cancel_reason === null ? {} : { cancel_reason }),
  };
}
