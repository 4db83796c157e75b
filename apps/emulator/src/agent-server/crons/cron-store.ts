// Crons in SQLite (migration 11, decision E23). A cron's row holds what it was created with and,
// in `next_run_ms`, when it makes its next run (null when it makes none): the scheduler
// (cron-scheduler.ts) reads the due ones through a partial index, and moves `next_run_ms` on in
// the same transaction as the run it makes. A cron is deleted with its thread or its assistant
// (foreign keys).
import type { Cron, CronSearch } from '@agentplane/agent-server';
import { matchesFilter } from '../../shared/canonical-json.js';
import type { CommitGroup } from '../../store/commit-group.js';
import type { Db } from '../../store/database.js';

type Values = Record<string, unknown>;

/** A cron as stored: the API's Cron (every field), with its next run as a number. */
export interface CronRow {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  schedule: string;
  timezone: string | null;
  end_time: string | null;
  enabled: boolean;
  on_run_completed: 'delete' | 'keep' | null;
  next_run_ms: number | null;
  metadata: Values;
  payload: Values;
  created_at: string;
  updated_at: string;
}

type RawCron = Omit<CronRow, 'enabled' | 'metadata' | 'payload'> & { enabled: number; metadata: string; payload: string };

const COLUMNS =
  'cron_id, assistant_id, thread_id, schedule, timezone, end_time, enabled, on_run_completed, next_run_ms, metadata, payload, created_at, updated_at';

/** The filters of a search and a count. */
export type CronFilter = Pick<CronSearch, 'thread_id' | 'enabled' | 'metadata'> & { assistant_id?: string };

export class CronStore {
  private readonly statements;
  /** The statement of each combination of column filters. */
  private readonly matchingStatements = new Map<string, import('better-sqlite3').Statement>();

  constructor(
    private readonly db: Db,
    private readonly commits: CommitGroup,
  ) {
    this.statements = {
      insert: db.prepare(`INSERT INTO crons (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      get: db.prepare(`SELECT ${COLUMNS} FROM crons WHERE cron_id = ?`),
      update: db.prepare(
        `UPDATE crons SET schedule = ?, timezone = ?, end_time = ?, enabled = ?, on_run_completed = ?, next_run_ms = ?,
           metadata = ?, payload = ?, updated_at = ? WHERE cron_id = ?`,
      ),
      delete: db.prepare('DELETE FROM crons WHERE cron_id = ?'),
      due: db.prepare(`SELECT ${COLUMNS} FROM crons WHERE next_run_ms <= ? ORDER BY next_run_ms, rowid`),
      earliestDue: db.prepare('SELECT min(next_run_ms) FROM crons WHERE next_run_ms IS NOT NULL').pluck(),
      setNextRun: db.prepare('UPDATE crons SET next_run_ms = ? WHERE cron_id = ?'),
      payload: db.prepare('SELECT payload FROM crons WHERE cron_id = ?').pluck(),
    };
  }

  transaction<T>(work: () => T): T {
    return this.commits.transaction(work);
  }

  insert(cron: CronRow): void {
    this.statements.insert.run(...rawValues(cron));
  }

  get(cronId: string): CronRow | undefined {
    const raw = this.commits.read(() => this.statements.get.get(cronId) as RawCron | undefined);
    return raw && toRow(raw);
  }

  /** Writes a cron's changed fields (all but its IDs and creation). */
  update(cron: CronRow): void {
    this.statements.update.run(...changeableValues(cron), cron.updated_at, cron.cron_id);
  }

  delete(cronId: string): boolean {
    return this.statements.delete.run(cronId).changes > 0;
  }

  /**
   * The crons matching every given filter, in creation order, without their `payload` (`{}`): a
   * search reads the page's payloads afterwards (`withPayload`), and a count none. The filters on
   * columns are SQLite's; metadata is compared here.
   */
  matching(filter: CronFilter): CronRow[] {
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    for (const [column, value] of [
      ['assistant_id', filter.assistant_id],
      ['thread_id', filter.thread_id],
      ['enabled', filter.enabled === undefined ? undefined : filter.enabled ? 1 : 0],
    ] as const) {
      if (value === undefined) continue;
      conditions.push(`${column} = ?`);
      parameters.push(value);
    }
    const sql = `SELECT ${COLUMNS.replace('payload', "'{}' AS payload")} FROM crons${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY rowid`;
    let statement = this.matchingStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.matchingStatements.set(sql, statement);
    }
    const rows = (this.commits.read(() => statement.all(...parameters)) as RawCron[]).map(toRow);
    return filter.metadata === undefined ? rows : rows.filter((cron) => matchesFilter(cron.metadata, filter.metadata!));
  }

  /** The crons given, each with its payload read. */
  withPayload(crons: CronRow[]): CronRow[] {
    return crons.map((cron) => ({ ...cron, payload: JSON.parse(this.statements.payload.get(cron.cron_id) as string) as Values }));
  }

  /** The crons whose next run is due by `untilMs`, earliest first. */
  due(untilMs: number): CronRow[] {
    return (this.statements.due.all(untilMs) as RawCron[]).map(toRow);
  }

  /** When the earliest next run of any cron is; null when no cron has one. */
  earliestDue(): number | null {
    return this.commits.read(() => this.statements.earliestDue.get() as number | null);
  }

  setNextRun(cronId: string, nextRunMs: number | null): void {
    this.statements.setNextRun.run(nextRunMs, cronId);
  }
}

/** The API's Cron of a row: every field, `payload` and `user_id` included. */
export function toCron(cron: CronRow): Cron {
  return {
    cron_id: cron.cron_id,
    assistant_id: cron.assistant_id,
    thread_id: cron.thread_id,
    schedule: cron.schedule,
    timezone: cron.timezone,
    end_time: cron.end_time,
    enabled: cron.enabled,
    on_run_completed: cron.on_run_completed,
    next_run_date: cron.next_run_ms === null ? null : new Date(cron.next_run_ms).toISOString(),
    metadata: cron.metadata,
    payload: cron.payload,
    user_id: null,
    created_at: cron.created_at,
    updated_at: cron.updated_at,
  };
}

/** A cron's row as COLUMNS lists it. */
function rawValues(cron: CronRow): unknown[] {
  return [cron.cron_id, cron.assistant_id, cron.thread_id, ...changeableValues(cron), cron.created_at, cron.updated_at];
}

/** The columns an update may change, from schedule to payload, in the order of COLUMNS (and of the update statement). */
function changeableValues(cron: CronRow): unknown[] {
  return [
    cron.schedule,
    cron.timezone,
    cron.end_time,
    cron.enabled ? 1 : 0,
    cron.on_run_completed,
    cron.next_run_ms,
    JSON.stringify(cron.metadata),
    JSON.stringify(cron.payload),
  ];
}

function toRow(raw: RawCron): CronRow {
  return { ...raw, enabled: raw.enabled === 1, metadata: JSON.parse(raw.metadata) as Values, payload: JSON.parse(raw.payload) as Values };
}
