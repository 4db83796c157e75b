// Runs in SQLite (migration 8): each run's row is its whole durable record. Like the thread
// store, every method runs synchronously on the one connection, inside the caller's transaction
// when it writes (the commit group makes a request's writes, or a run step's, all or nothing).
//
// A run's answer is most often its thread's values, which grow with the conversation: it is
// stored as a manifest naming the thread's items (`outcome_values`, decision E29), not as a copy
// of the values, and read back only when asked for (`outcome`), not each time the row is.
import type { Run, RunStatus, RunWaitResult } from '@agentplane/agent-server';
import type { CommitGroup } from '../../store/commit-group.js';
import type { Db } from '../../store/database.js';
import { LIMIT_OFFSET } from '../../store/sql-page.js';
import type { ValueItems } from '../threads/value-items.js';
import type { RunAnswer } from './run-events.js';

/** A run as stored: the API's Run, with how many times it started and, once ended, its waiters' answer. */
export interface RunRow extends Run {
  attempt: number;
  outcome: RunAnswer | null;
}

type RawRun = Omit<RunRow, 'metadata' | 'kwargs' | 'outcome' | 'cancel_reason'> & {
  metadata: string;
  kwargs: string;
  outcome: string | null;
  outcome_values: string | null;
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
  'run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, attempt, outcome, cancel_reason, outcome_values';
const INSERTED_COLUMNS =
  'run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, attempt, outcome, cancel_reason';

export class RunStore {
  private readonly statements;

  constructor(
    db: Db,
    private readonly commits: CommitGroup,
    /** The thread's items, which an answer of values names. */
    private readonly items: ValueItems,
  ) {
    this.statements = {
      insert: db.prepare(`INSERT INTO runs (${INSERTED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      get: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE run_id = ?`),
      exists: db.prepare('SELECT 1 FROM runs WHERE run_id = ?').pluck(),
      page: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE thread_id = ? ORDER BY run_id DESC ${LIMIT_OFFSET}`),
      pageWithStatus: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE thread_id = ? AND status = ? ORDER BY run_id DESC ${LIMIT_OFFSET}`),
      inFlightOfThread: db.prepare(
        `SELECT ${COLUMNS} FROM runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY created_at, run_id`,
      ),
      inFlight: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE status IN ('pending', 'running') ORDER BY created_at, run_id`),
      hasInFlight: db.prepare("SELECT 1 FROM runs WHERE thread_id = ? AND status IN ('pending', 'running') LIMIT 1").pluck(),
      nextInFlightId: db
        .prepare("SELECT run_id FROM runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY created_at, run_id LIMIT 1")
        .pluck(),
      withStatus: db.prepare(`SELECT ${COLUMNS} FROM runs WHERE status = ? ORDER BY created_at, run_id`),
      setStatus: db.prepare('UPDATE runs SET status = ?, updated_at = ? WHERE run_id = ?'),
      // Starting does not touch updated_at, as LangGraph's servers leave it.
      start: db.prepare("UPDATE runs SET status = 'running', attempt = attempt + 1 WHERE run_id = ?"),
      finish: db.prepare(
        'UPDATE runs SET status = ?, updated_at = ?, outcome = ?, outcome_values = NULL, cancel_reason = ? WHERE run_id = ?',
      ),
      finishWithValues: db.prepare(
        'UPDATE runs SET status = ?, updated_at = ?, outcome = NULL, outcome_values = ?, cancel_reason = ? WHERE run_id = ?',
      ),
      answersOfThread: db.prepare('SELECT outcome_values FROM runs WHERE thread_id = ? AND outcome_values IS NOT NULL').pluck(),
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

  exists(runId: string): boolean {
    return this.statements.exists.get(runId) !== undefined;
  }

  get(runId: string): RunRow | undefined {
    const raw = this.statements.get.get(runId) as RawRun | undefined;
    return raw && this.parse(raw);
  }

  /** A page of the thread's runs, newest first. */
  list(threadId: string, options: { limit: number; offset: number; status?: RunStatus | undefined }): RunRow[] {
    const rows = options.status
      ? this.statements.pageWithStatus.all(threadId, options.status, options.limit, options.offset)
      : this.statements.page.all(threadId, options.limit, options.offset);
    return (rows as RawRun[]).map((raw) => this.parse(raw));
  }

  /** The thread's runs that have not ended, in the order they run (created_at, which counts after_seconds, then creation). */
  inFlightOf(threadId: string): RunRow[] {
    return (this.statements.inFlightOfThread.all(threadId) as RawRun[]).map((raw) => this.parse(raw));
  }

  /** Whether the thread has a run that has not ended (none of them read). */
  hasInFlight(threadId: string): boolean {
    return this.statements.hasInFlight.get(threadId) !== undefined;
  }

  /** The ID of the thread's run that runs next (the first of inFlightOf), none read. */
  nextInFlightId(threadId: string): string | undefined {
    return this.statements.nextInFlightId.get(threadId) as string | undefined;
  }

  /** Every run that has not ended, in the order they run. */
  inFlight(): RunRow[] {
    return (this.statements.inFlight.all() as RawRun[]).map((raw) => this.parse(raw));
  }

  withStatus(status: RunStatus): RunRow[] {
    return (this.statements.withStatus.all(status) as RawRun[]).map((raw) => this.parse(raw));
  }

  /** Marks a run running, one more attempt. */
  start(runId: string): void {
    this.statements.start.run(runId);
  }

  setStatus(runId: string, status: RunStatus, now: string): void {
    this.statements.setStatus.run(status, now, runId);
  }

  /** Records how a run ended and what its waiters are answered (an error, or what it waits at), and why a cancel ended it when it said why. */
  finish(runId: string, status: RunStatus, outcome: RunWaitResult, now: string, cancelReason?: string): void {
    this.statements.finish.run(status, now, JSON.stringify(outcome), cancelReason ?? null, runId);
  }

  /** Records how a run ended, its waiters answered its thread's values (a manifest of the thread's items), and why a cancel ended it when it said why. */
  finishWithValues(
    run: Pick<RunRow, 'run_id' | 'thread_id'>,
    status: RunStatus,
    values: Record<string, unknown>,
    now: string,
    cancelReason?: string,
  ): void {
    this.statements.finishWithValues.run(status, now, this.items.answerManifest(run.thread_id, values), cancelReason ?? null, run.run_id);
  }

  /** The manifests of the answers of a thread's runs: the items they name stay while the runs do. */
  answersOf(threadId: string): string[] {
    return this.statements.answersOfThread.all(threadId) as string[];
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

  private parse(raw: RawRun): RunRow {
    const { outcome, outcome_values: answer, cancel_reason, ...rest } = raw;
    const run: RunRow = {
      ...rest,
      metadata: JSON.parse(raw.metadata),
      kwargs: JSON.parse(raw.kwargs),
      outcome: outcome === null ? null : JSON.parse(outcome),
      // Absent from a run no cancel with a reason ended, as the API answers it.
      ...(cancel_reason === null ? {} : { cancel_reason }),
    };
    if (answer === null) return run;
    // The thread's values it answered, read from their items (as the answer's JSON text) the first
    // time they are asked for: listing or finding a run of a long conversation does not read it.
    const items = this.items;
    let read: RunAnswer | undefined;
    Object.defineProperty(run, 'outcome', {
      enumerable: true,
      configurable: true,
      get: () => (read ??= items.readAnswer<RunWaitResult>(raw.thread_id, answer)),
    });
    return run;
  }
}
