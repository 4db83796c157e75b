// The protocol's events of each thread, in SQLite with the thread (decision E28): the threads that
// joined the protocol, and each event as the JSON clients receive, under the thread's `seq`. A
// thread's `seq` is one more than its last kept event's, so it never goes back while the thread
// lives (its last event is never trimmed), across restarts too; a thread keeps its last
// KEPT_EVENTS events. Rows are written in the commit group of the turn (store/commit-group.ts):
// whoever reads them live waits for that commit (thread-events.ts).
import type { CommitGroup } from '../../store/commit-group.js';
import type { Db } from '../../store/database.js';

/** How many events a thread keeps: a `since` older than these starts at the oldest kept. */
export const KEPT_EVENTS = 10_000;
/** Trimming deletes this many at once, so that it happens once per this many events, not at each. */
const TRIM_BATCH = 500;

/** An event as kept: what a filter reads, and the JSON sent. */
export interface KeptEvent {
  seq: number;
  runId: string;
  /** The channel it belongs to (`custom:<name>` for a named custom event). */
  channel: string;
  namespace: string[];
  /** Its `method` (the SSE `event:` line) and `event_id` (the `id:` line). */
  method: string;
  eventId: string;
  /** The event as clients receive it. */
  json: string;
}

interface EventRow {
  seq: number;
  run_id: string;
  method: string;
  event_id: string;
  channel: string;
  namespace: string;
  event: string;
}

const COLUMNS = 'seq, run_id, method, event_id, channel, namespace, event';

export class ProtocolEventStore {
  private readonly statements;

  constructor(
    db: Db,
    readonly commits: CommitGroup,
  ) {
    this.statements = {
      join: db.prepare('INSERT OR IGNORE INTO protocol_threads (thread_id) SELECT thread_id FROM threads WHERE thread_id = ?'),
      joined: db.prepare('SELECT 1 FROM protocol_threads WHERE thread_id = ?').pluck(),
      lastSeq: db.prepare('SELECT MAX(seq) FROM protocol_events WHERE thread_id = ?').pluck(),
      // Nothing is kept of a thread that was deleted meanwhile (a run's last events after its thread went).
      insert: db.prepare(
        `INSERT INTO protocol_events (thread_id, ${COLUMNS})
         SELECT @threadId, @seq, @runId, @method, @eventId, @channel, @namespace, @event
         WHERE EXISTS (SELECT 1 FROM protocol_threads WHERE thread_id = @threadId)`,
      ),
      trim: db.prepare('DELETE FROM protocol_events WHERE thread_id = ? AND seq <= ?'),
      after: db.prepare(`SELECT ${COLUMNS} FROM protocol_events WHERE thread_id = ? AND seq > ? ORDER BY seq`),
      ofRun: db.prepare(`SELECT ${COLUMNS} FROM protocol_events WHERE thread_id = ? AND run_id = ? AND channel = ? ORDER BY seq`),
      lastRun: db.prepare('SELECT run_id FROM protocol_events WHERE thread_id = ? ORDER BY seq DESC LIMIT 1').pluck(),
    };
  }

  /** The thread joins the protocol (it must exist); false when it does not exist. */
  join(threadId: string): boolean {
    if (this.isJoined(threadId)) return true;
    return this.commits.transaction(() => this.statements.join.run(threadId).changes > 0);
  }

  isJoined(threadId: string): boolean {
    return this.commits.read(() => this.statements.joined.get(threadId) !== undefined);
  }

  /** The `seq` of the thread's last event (0 before its first). */
  lastSeq(threadId: string): number {
    return this.commits.read(() => (this.statements.lastSeq.get(threadId) as number | null) ?? 0);
  }

  /** Keeps an event of a joined thread under `seq` (the next one), trimming the oldest past KEPT_EVENTS. */
  append(threadId: string, event: KeptEvent): void {
    const { statements } = this;
    this.commits.transaction(() => {
      statements.insert.run({
        threadId,
        seq: event.seq,
        runId: event.runId,
        method: event.method,
        eventId: event.eventId,
        channel: event.channel,
        namespace: JSON.stringify(event.namespace),
        event: event.json,
      });
      if (event.seq > KEPT_EVENTS && event.seq % TRIM_BATCH === 0) statements.trim.run(threadId, event.seq - KEPT_EVENTS);
    });
  }

  /** The thread's kept events after `seq`, oldest first. */
  after(threadId: string, seq: number): KeptEvent[] {
    return this.commits.read(() => (this.statements.after.all(threadId, seq) as EventRow[]).map(keptEvent));
  }

  /** A run's kept events of one channel, oldest first. */
  ofRun(threadId: string, runId: string, channel: string): KeptEvent[] {
    return this.commits.read(() => (this.statements.ofRun.all(threadId, runId, channel) as EventRow[]).map(keptEvent));
  }

  /** The run the thread's last kept event tells of. */
  lastRun(threadId: string): string | undefined {
    return this.commits.read(() => (this.statements.lastRun.get(threadId) as string | undefined) ?? undefined);
  }
}

function keptEvent(row: EventRow): KeptEvent {
  return {
    seq: row.seq,
    runId: row.run_id,
    channel: row.channel,
    namespace: JSON.parse(row.namespace) as string[],
    method: row.method,
    eventId: row.event_id,
    json: row.event,
  };
}
