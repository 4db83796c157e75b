// Threads and their checkpoints in SQLite. Every method runs synchronously on the one
// connection; callers group writes with `transaction` so that a create or a copy is all or
// nothing, and concurrent requests see each other's writes whole (the transaction is a savepoint
// of the commit group, store/commit-group.ts).
import type { Thread, ThreadCount, ThreadSearch, ThreadState } from '@agentplane/agent-server';
import { JsonText } from '../../contract/json-text.js';
import { matchesFilter, valueHash } from '../../shared/canonical-json.js';
import type { CommitGroup } from '../../store/commit-group.js';
import type { Db } from '../../store/database.js';
import { LIMIT_OFFSET } from '../../store/sql-page.js';
import type { StoredValues } from '../../store/stored-values.js';
import { storedChars } from '../../store/stored-values.js';
import type { ScriptPosition } from '../graphs/run-scripts.js';
import { LatestCheckpointCache } from './latest-checkpoint-cache.js';
import type { PlannedCheckpoint } from './supersteps.js';
import { ValueItems } from './value-items.js';

type Values = Record<string, unknown>;

/** A stored thread: the API's Thread, whose `values` are read only for the answers that show them. */
/** When a thread runs out (epoch ms), and the minutes of time to live it was last given (null when not kept). */
export interface ThreadExpiry {
  expiresAt: number;
  minutes: number | null;
}

export type ThreadRow = Pick<Thread, 'thread_id' | 'created_at' | 'updated_at' | 'status' | 'metadata' | 'values' | 'interrupts'> & {
  config: NonNullable<Thread['config']>;
  state_updated_at: string;
};

/** A stored checkpoint; its metadata is kept without `thread_id` and `checkpoint_id` (added when read). */
export type CheckpointRow = Pick<ThreadState, 'values' | 'next' | 'tasks'> & {
  thread_id: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  created_at: string;
  metadata: Record<string, unknown>;
  /** Where the scripted run that wrote it stands in its graph's script (migration 11); absent when none does. */
  script?: ScriptPosition | undefined;
};

type RawThread = Omit<ThreadRow, 'metadata' | 'values' | 'config' | 'interrupts'> & {
  metadata: string;
  config: string;
  interrupts: string | null;
};
type RawCheckpointHead = Omit<CheckpointHead, 'metadata'> & { metadata: string };
/** A checkpoint's row: its values are a manifest of items (decision E29), read through ValueItems. */
type RawCheckpoint = RawCheckpointHead & { next: string; tasks: string; script: string | null; value_refs: string };

/** A checkpoint without its content (values, next, tasks): what its row holds before the values. */
export type CheckpointHead = Omit<CheckpointRow, 'values' | 'next' | 'tasks'>;

/** A checkpoint about to be written: its ID, time and content. */
export interface StampedCheckpoint {
  id: string;
  created_at: string;
  planned: PlannedCheckpoint;
}

const SORT_COLUMNS: Record<NonNullable<ThreadSearch['sort_by']>, string> = {
  thread_id: 't.thread_id',
  status: 't.status',
  created_at: 't.created_at',
  updated_at: 't.updated_at',
};
const THREAD_COLUMNS = 't.thread_id, t.created_at, t.updated_at, t.state_updated_at, t.status, t.metadata, t.config, t.interrupts';
// The thread as GET /threads/{thread_id} shows it (the fields and order of handlers' `toThread`),
// as JSON text (decision E14): metadata and config are stored as JSON and json_quote quotes the
// rest, so SQLite joins the texts and no object is built only to be serialised again.
const THREAD_JSON = `'{"thread_id":' || json_quote(t.thread_id) || ',"created_at":' || json_quote(t.created_at) || ',"updated_at":' || json_quote(t.updated_at) || ',"state_updated_at":' || json_quote(t.state_updated_at) || ',"metadata":' || t.metadata || ',"status":' || json_quote(t.status) || ',"config":' || t.config || CASE WHEN t.interrupts IS NULL THEN '' ELSE ',"interrupts":' || t.interrupts END || '}'`;
// A checkpoint's values are a manifest of its thread's items (decision E29), each item canonical
// JSON: read back, the values are canonical already (decision E13).
const CHECKPOINT_COLUMNS = 'thread_id, checkpoint_id, parent_checkpoint_id, created_at, metadata, next, tasks, script, value_refs';
// The columns that say which checkpoint it is, without its content.
const CHECKPOINT_HEAD_COLUMNS = 'thread_id, checkpoint_id, parent_checkpoint_id, created_at, metadata';

export class ThreadStore {
  private readonly statements;
  /** Prepared statements by their SQL: a search's page (by columns, filter and order), a count (by filter). */
  private readonly pageStatements = new Map<string, import('better-sqlite3').Statement>();
  private readonly countStatements = new Map<string, import('better-sqlite3').Statement>();
  private readonly latest = new LatestCheckpointCache<CheckpointRow>();
  /** The items checkpoint values are stored as; a run's answer names them too (runs/run-store.ts). */
  readonly items: ValueItems;

  constructor(
    private readonly db: Db,
    private readonly commits: CommitGroup,
  ) {
    this.items = new ValueItems(db);
    this.statements = {
      get: db.prepare(`SELECT ${THREAD_COLUMNS} FROM threads t WHERE t.thread_id = ?`),
      json: db.prepare(`SELECT ${THREAD_JSON} FROM threads t WHERE t.thread_id = ?`).pluck(),
      exists: db.prepare('SELECT 1 FROM threads WHERE thread_id = ?').pluck(),
      // Deleted threads leave gaps, so this overestimates how many are stored: enough for `searchPlan`.
      highestRowid: db.prepare('SELECT max(rowid) FROM threads').pluck(),
      insertThread: db.prepare(
        'INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, status, metadata, config, expires_at, ttl_minutes, metadata_unindexed, values_unindexed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      deleteThread: db.prepare('DELETE FROM threads WHERE thread_id = ?'),
      updateThread: db.prepare(
        'UPDATE threads SET metadata = ?, updated_at = ?, expires_at = coalesce(?, expires_at), ttl_minutes = coalesce(?, ttl_minutes) WHERE thread_id = ?',
      ),
      markMetadataUnindexed: db.prepare('UPDATE threads SET metadata_unindexed = 1 WHERE thread_id = ?'),
      ttl: db.prepare('SELECT expires_at AS expiresAt, ttl_minutes AS minutes FROM threads WHERE thread_id = ? AND expires_at IS NOT NULL'),
      deleteKey: db.prepare('DELETE FROM thread_filter_keys WHERE thread_id = ? AND scope = ? AND key = ?'),
      deleteExpired: db.prepare('DELETE FROM threads WHERE expires_at <= ?'),
      earliestExpiry: db.prepare('SELECT min(expires_at) FROM threads WHERE expires_at IS NOT NULL').pluck(),
      deleteOlderCheckpoints: db.prepare('DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id < ?'),
      orphanCheckpoint: db.prepare('UPDATE checkpoints SET parent_checkpoint_id = NULL WHERE thread_id = ? AND checkpoint_id = ?'),
      setCheckpointMetadata: db.prepare('UPDATE checkpoints SET metadata = ? WHERE thread_id = ? AND checkpoint_id = ?'),
      // A key's row carries its thread's created_at (migration 5), read from the thread's row.
      insertFilterKey: db.prepare(
        'INSERT OR IGNORE INTO thread_filter_keys (scope, key, value_hash, created_at, thread_id) SELECT ?, ?, ?, created_at, thread_id FROM threads WHERE thread_id = ?',
      ),
      insertCheckpoint: db.prepare(`INSERT INTO checkpoints (${CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      // The copy's filter keys are the source's rows: its value keys as up to date as the source's
      // flag says, its metadata keys short of the `thread_id` the copy's metadata gains.
      copyThread: db.prepare(
        "INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, status, metadata, config, values_unindexed, metadata_unindexed) SELECT ?, ?, ?, state_updated_at, ?, json_set(metadata, '$.thread_id', ?), config, values_unindexed, 1 FROM threads WHERE thread_id = ?",
      ),
      copyFilterKeys: db.prepare(
        "INSERT INTO thread_filter_keys (scope, key, value_hash, created_at, thread_id) SELECT scope, key, value_hash, ?, ? FROM thread_filter_keys WHERE thread_id = ? AND NOT (scope = 'metadata' AND key = 'thread_id')",
      ),
      copyCheckpoints: db.prepare(
        // As LangGraph's copy, every mention of the source thread's ID in a checkpoint's metadata
        // (the `thread_id` a run wrote there) becomes the copy's.
        `INSERT INTO checkpoints (${CHECKPOINT_COLUMNS}) SELECT ?, checkpoint_id, parent_checkpoint_id, created_at, replace(metadata, ?, ?), next, tasks, script, value_refs FROM checkpoints WHERE thread_id = ?`,
      ),
      latestCheckpointHead: db.prepare(
        `SELECT ${CHECKPOINT_HEAD_COLUMNS} FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id DESC LIMIT 1`,
      ),
      lastCheckpointId: db.prepare('SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id DESC LIMIT 1').pluck(),
      checkpointExists: db.prepare('SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?').pluck(),
      manifests: db.prepare('SELECT value_refs FROM checkpoints WHERE thread_id = ?').pluck(),
      checkpoint: db.prepare(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?`),
      history: db.prepare(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id DESC`),
      historyBefore: db.prepare(
        `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_id < ? ORDER BY checkpoint_id DESC`,
      ),
      // The thread's values changed: when, and that their filter keys are to be brought up to date.
      touchThread: db.prepare('UPDATE threads SET updated_at = ?, state_updated_at = ?, values_unindexed = 1 WHERE thread_id = ?'),
      markValuesUnindexed: db.prepare('UPDATE threads SET values_unindexed = 1 WHERE thread_id = ?'),
      unindexed: {
        metadata: db.prepare('SELECT thread_id FROM threads WHERE metadata_unindexed = 1').pluck(),
        values: db.prepare('SELECT thread_id FROM threads WHERE values_unindexed = 1').pluck(),
      },
      indexed: {
        metadata: db.prepare('UPDATE threads SET metadata_unindexed = 0 WHERE thread_id = ?'),
        values: db.prepare('UPDATE threads SET values_unindexed = 0 WHERE thread_id = ?'),
      },
      metadataText: db.prepare('SELECT metadata FROM threads WHERE thread_id = ?').pluck(),
      filterKeys: db.prepare('SELECT key, value_hash FROM thread_filter_keys WHERE thread_id = ? AND scope = ?').raw(),
      setStatus: db.prepare('UPDATE threads SET status = ?, updated_at = ? WHERE thread_id = ?'),
      setConfig: db.prepare('UPDATE threads SET config = ? WHERE thread_id = ?'),
      settle: db.prepare('UPDATE threads SET status = ?, updated_at = ?, interrupts = ? WHERE thread_id = ?'),
      setCheckpointTasks: db.prepare('UPDATE checkpoints SET tasks = ? WHERE thread_id = ? AND checkpoint_id = ?'),
      setCheckpointTasksAndNext: db.prepare('UPDATE checkpoints SET tasks = ?, next = ? WHERE thread_id = ? AND checkpoint_id = ?'),
      setCheckpointScript: db.prepare('UPDATE checkpoints SET script = ? WHERE thread_id = ? AND checkpoint_id = ?'),
      // A run's checkpoints carry its ID in their metadata (the run engine writes it there).
      deleteCheckpointsOfRun: db.prepare("DELETE FROM checkpoints WHERE thread_id = ? AND json_extract(metadata, '$.run_id') = ?"),
      hasCheckpointOfRun: db
        .prepare("SELECT 1 FROM checkpoints WHERE thread_id = ? AND json_extract(metadata, '$.run_id') = ? LIMIT 1")
        .pluck(),
    };
  }

  /** Epoch ms of the earliest expiry stored; Infinity when no thread expires (refreshed on writes). */
  private earliestExpiry = Number.POSITIVE_INFINITY;
  private earliestExpiryKnown = false;

  transaction<T>(work: () => T): T {
    return this.commits.transaction(work);
  }

  get(threadId: string, options: { withValues?: boolean } = {}): ThreadRow | undefined {
    const raw = this.statements.get.get(threadId) as RawThread | undefined;
    if (!raw) return undefined;
    const thread = parseThread(raw);
    // A thread's values are its latest checkpoint's (decision E13); {} when it has none.
    if (options.withValues) thread.values = this.latestCheckpoint(threadId)?.values ?? {};
    return thread;
  }

  /** The thread as its GET answer shows it (no values), as JSON text. */
  json(threadId: string): JsonText<Thread> | undefined {
    const text = this.statements.json.get(threadId) as string | undefined;
    return text === undefined ? undefined : new JsonText(text);
  }

  exists(threadId: string): boolean {
    return this.statements.exists.get(threadId) !== undefined;
  }

  /**
   * Inserts a thread and the checkpoints of its supersteps (call inside a transaction). Its filter
   * keys are written by the first search that filters by them (`indexUnindexed`).
   */
  insert(thread: ThreadRow, checkpoints: StampedCheckpoint[], ttl: ThreadExpiry | null = null): void {
    this.statements.insertThread.run(
      thread.thread_id,
      thread.created_at,
      thread.updated_at,
      thread.state_updated_at,
      thread.status,
      JSON.stringify(thread.metadata),
      JSON.stringify(thread.config),
      ttl?.expiresAt ?? null,
      ttl?.minutes ?? null,
      Object.keys(thread.metadata).length > 0 ? 1 : 0,
      // Its values are its last checkpoint's.
      checkpoints.length > 0 ? 1 : 0,
    );
    if (ttl) this.noteExpiry(ttl.expiresAt);
    this.insertCheckpoints(thread.thread_id, undefined, checkpoints);
  }

  /**
   * Appends checkpoints to an existing thread and makes the last one's values current. Creation
   * uses `insert`; this serves seeding (benchmarks, fixtures) beyond one request's 1000 supersteps.
   */
  append(threadId: string, checkpoints: StampedCheckpoint[], updatedAt: string): void {
    this.insertCheckpoints(threadId, this.latestCheckpoint(threadId), checkpoints);
    const last = checkpoints.at(-1);
    if (!last) return;
    this.statements.touchThread.run(updatedAt, last.created_at, threadId);
  }

  /** Writes checkpoints one after the other, each stored by what changed since the one before (the first: since `parent`). */
  private insertCheckpoints(
    threadId: string,
    parent: Pick<CheckpointRow, 'checkpoint_id' | 'values'> | undefined,
    checkpoints: StampedCheckpoint[],
  ): void {
    let parentId = parent?.checkpoint_id ?? null;
    let base = parent?.values;
    for (const [i, checkpoint] of checkpoints.entries()) {
      const stored = this.writeCheckpoint(threadId, parentId, checkpoint, base);
      if (i === checkpoints.length - 1) this.rememberLatest(threadId, parentId, checkpoint, stored);
      parentId = checkpoint.id;
      base = checkpoint.planned.values;
    }
  }

  /** Writes one checkpoint row and the items its values need beyond those of `base`, its parent's values. */
  private writeCheckpoint(
    threadId: string,
    parentId: string | null,
    checkpoint: StampedCheckpoint,
    base: Values | undefined,
  ): StoredValues {
    const { planned } = checkpoint;
    const stored = this.items.write(threadId, planned.values, base);
    this.statements.insertCheckpoint.run(
      threadId,
      checkpoint.id,
      parentId,
      checkpoint.created_at,
      JSON.stringify(planned.metadata),
      JSON.stringify(planned.next),
      JSON.stringify(planned.tasks),
      scriptText(planned.script),
      this.items.manifest(stored),
    );
    return stored;
  }

  /**
   * Copies a thread, its filter keys and every checkpoint under a new ID (inside a transaction).
   * The copy's metadata gains `thread_id`: its own ID, as the LangGraph servers mark copies; its
   * checkpoints' metadata names the copy wherever it named the source.
   */
  copy(sourceId: string, newThreadId: string, now: string): boolean {
    const s = this.statements;
    if (s.copyThread.run(newThreadId, now, now, 'idle', newThreadId, sourceId).changes === 0) return false;
    s.copyFilterKeys.run(now, newThreadId, sourceId);
    s.copyCheckpoints.run(newThreadId, sourceId, newThreadId, sourceId);
    // The copy's own items, under the same numbers its copied manifests name: deleting or pruning
    // either thread leaves the other whole.
    this.items.copy(sourceId, newThreadId);
    return true;
  }

  /** A page of the threads that match, and how many match: the page is read as `searchPlan` says for that number. */
  search(query: SearchQuery, options: { withValues?: boolean } = {}): { threads: ThreadRow[]; total: number } {
    const total = this.count(query);
    if (total === 0 || query.offset >= total) return { threads: [], total };
    const threadsStored = (this.statements.highestRowid.get() as number | null) ?? 0;
    const plan = searchPlan(query, total, threadsStored);
    const { sql, params } = searchPageSql(query, plan);
    const threads = (prepared(this.db, this.pageStatements, sql).all(...params) as RawThread[]).map(parseThread);
    // Read, not kept: a page of a thousand threads would push the conversations in use out of the cache.
    if (options.withValues)
      for (const thread of threads) thread.values = this.latestCheckpoint(thread.thread_id, { keep: false })?.values ?? {};
    return { threads, total };
  }

  /**
   * The number of threads a search with these filters would match. A filter of metadata and
   * values keys alone is counted in the filter-key index, without reading a thread: every row
   * there belongs to a live thread (deletes cascade, expired threads go before any request).
   */
  count(query: ThreadCount & Pick<ThreadSearch, 'ids'>): number {
    for (const scope of ['metadata', 'values'] as const) if (Object.keys(query[scope] ?? {}).length > 0) this.indexUnindexed(scope);
    const keys = filterKeysOf(query);
    if (keys.length > 0 && query.status === undefined && query.ids === undefined) {
      // The first key's rows, each kept when the thread has the other keys' rows too.
      const alsoHas = keys.slice(1).map((_, i) => {
        const k = `k${i + 1}`;
        return ` AND EXISTS (SELECT 1 FROM thread_filter_keys ${k} WHERE ${k}.scope = ? AND ${k}.key = ? AND ${k}.value_hash = ? AND ${k}.thread_id = k0.thread_id)`;
      });
      const sql = `SELECT count(*) FROM thread_filter_keys k0 WHERE k0.scope = ? AND k0.key = ? AND k0.value_hash = ?${alsoHas.join('')}`;
      return prepared(this.db, this.countStatements, sql, { pluck: true }).get(...keys.flat()) as number;
    }
    const { filter, params } = filterClause(query);
    return prepared(this.db, this.countStatements, `SELECT count(*) FROM threads t ${filter}`, { pluck: true }).get(...params) as number;
  }

  /** Deletes a thread; its checkpoints and filter keys go with it (ON DELETE CASCADE). */
  delete(threadId: string): boolean {
    this.latest.forget(threadId);
    return this.statements.deleteThread.run(threadId).changes > 0;
  }

  /**
   * Keeps only the latest checkpoint of a thread, which loses its parent; false when the thread
   * is unknown. `answers`: the manifests of its runs' answers, whose items stay too.
   */
  keepLatestCheckpoint(threadId: string, answers: Iterable<string> = []): boolean {
    if (!this.exists(threadId)) return false;
    const latest = this.statements.lastCheckpointId.get(threadId) as string | undefined;
    if (latest) {
      this.statements.deleteOlderCheckpoints.run(threadId, latest);
      this.statements.orphanCheckpoint.run(threadId, latest);
      this.latest.forget(threadId);
      this.collectItems(threadId, answers);
    }
    return true;
  }

  /**
   * Deletes the thread's items that neither its checkpoints nor `answers` (the manifests of its
   * runs' answers) name: after checkpoints or runs were deleted.
   */
  collectItems(threadId: string, answers: Iterable<string>): void {
    this.items.collect(threadId, [...(this.statements.manifests.all(threadId) as string[]), ...answers]);
  }

  /**
   * Replaces a thread's metadata and, when given, its time to live; `updated_at` becomes `now`.
   * When a key changed from `before` (the stored metadata), the thread's metadata filter keys are
   * marked out of date, for the next search by metadata to rewrite (`indexUnindexed`).
   */
  update(
    threadId: string,
    before: Record<string, unknown>,
    metadata: Record<string, unknown>,
    now: string,
    ttl: ThreadExpiry | null,
  ): void {
    this.statements.updateThread.run(JSON.stringify(metadata), now, ttl?.expiresAt ?? null, ttl?.minutes ?? null, threadId);
    // A run on the thread sends the same metadata again: its keys are marked only when one changed.
    const keys = Object.keys(metadata);
    if (keys.length !== Object.keys(before).length || keys.some((key) => !Object.hasOwn(before, key) || before[key] !== metadata[key]))
      this.statements.markMetadataUnindexed.run(threadId);
    if (ttl) this.noteExpiry(ttl.expiresAt);
  }

  /** The thread's time to live, as last given, and when it runs out; undefined for a thread that never expires. */
  ttl(threadId: string): ThreadExpiry | undefined {
    return this.statements.ttl.get(threadId) as ThreadExpiry | undefined;
  }

  /**
   * Adds one checkpoint under `parentId` and makes its values the thread's (call inside a
   * transaction). `touch: false` leaves the thread's row as it is: a run writing several steps in
   * one turn notes the change once, after its last (`valuesChanged`).
   */
  addCheckpoint(
    threadId: string,
    parent: Pick<CheckpointRow, 'checkpoint_id' | 'values'> | undefined,
    checkpoint: StampedCheckpoint,
    now: string,
    options: { touch?: boolean } = {},
  ): void {
    const parentId = parent?.checkpoint_id ?? null;
    // Stored by what changed since its parent (decision E29).
    const stored = this.writeCheckpoint(threadId, parentId, checkpoint, parent?.values);
    this.rememberLatest(threadId, parentId, checkpoint, stored);
    if (options.touch !== false) this.statements.touchThread.run(now, checkpoint.created_at, threadId);
  }

  /**
   * The thread's values changed (checkpoints were added without touching it): when its state last
   * changed, and that its value filter keys are to be brought up to date.
   */
  valuesChanged(threadId: string, now: string, stateUpdatedAt: string): void {
    this.statements.touchThread.run(now, stateUpdatedAt, threadId);
  }

  /**
   * Brings the filter keys of `scope` of every thread whose metadata or values changed since they
   * were indexed up to the thread as it now is (decision E12): the first search or count filtering
   * by that scope after a change pays for it, once, rather than every run and every new thread.
   * Only the keys whose hash changed are written.
   */
  private indexUnindexed(scope: 'metadata' | 'values'): void {
    const s = this.statements;
    const threadIds = s.unindexed[scope].all() as string[];
    if (threadIds.length === 0) return;
    this.transaction(() => {
      for (const threadId of threadIds) {
        // Values are read, not kept: a search may index a thousand threads no one is reading.
        const object: Record<string, unknown> =
          scope === 'metadata'
            ? JSON.parse(s.metadataText.get(threadId) as string)
            : (this.latestCheckpoint(threadId, { keep: false })?.values ?? {});
        const indexed = new Map(s.filterKeys.all(threadId, scope) as [string, string][]);
        for (const key of indexed.keys()) if (!Object.hasOwn(object, key)) s.deleteKey.run(threadId, scope, key);
        for (const [key, value] of Object.entries(object)) {
          const hash = scope === 'metadata' ? valueHash(value) : this.items.hashOf(object, key);
          const was = indexed.get(key);
          if (was === hash) continue;
          if (was !== undefined) s.deleteKey.run(threadId, scope, key);
          s.insertFilterKey.run(scope, key, hash, threadId);
        }
        s.indexed[scope].run(threadId);
      }
    });
  }

  /** Sets a thread's status (runs move it); `updated_at` becomes `now`. */
  setStatus(threadId: string, status: ThreadRow['status'], now: string): void {
    this.statements.setStatus.run(status, now, threadId);
  }

  /** Replaces a thread's config (a run merges its assistant's and its own into it). */
  setConfig(threadId: string, config: ThreadRow['config']): void {
    this.statements.setConfig.run(JSON.stringify(config), threadId);
  }

  /** A run ended: the thread's status, and what it waits at (null: nothing recorded), in one write; `updated_at` becomes `now`. */
  settle(threadId: string, status: ThreadRow['status'], interrupts: ThreadRow['interrupts'] | null, now: string): void {
    this.statements.settle.run(status, now, interrupts === null ? null : JSON.stringify(interrupts), threadId);
  }

  /** Replaces one checkpoint's tasks: what a task wrote once it ran, an interrupt or an error it raised. */
  /** A checkpoint's tasks as they now stand; with `next`, the order its nodes are listed in too (the order its tasks ended). */
  setCheckpointTasks(threadId: string, checkpointId: string, tasks: ThreadState['tasks'], next?: string[]): void {
    if (next) this.statements.setCheckpointTasksAndNext.run(JSON.stringify(tasks), JSON.stringify(next), threadId, checkpointId);
    else this.statements.setCheckpointTasks.run(JSON.stringify(tasks), threadId, checkpointId);
    // Forgotten, not updated: should this savepoint roll back, the row is read again.
    this.latest.forget(threadId);
  }

  /** Where the run that waits at this checkpoint stands in its script (the resume values its task was given so far). */
  setCheckpointScript(threadId: string, checkpointId: string, script: ScriptPosition): void {
    this.statements.setCheckpointScript.run(JSON.stringify(script), threadId, checkpointId);
    this.latest.forget(threadId);
  }

  /**
   * Deletes the checkpoints a run wrote (a run rolled back or deleted); the checkpoints after them
   * keep their parent IDs, as LangGraph's checkpointers leave them. The items only they named are
   * left for `collectItems`, once the run's answer is gone too.
   */
  deleteCheckpointsOfRun(threadId: string, runId: string): void {
    if (this.statements.deleteCheckpointsOfRun.run(threadId, runId).changes === 0) return;
    this.latest.forget(threadId);
    // The thread's values are now an older checkpoint's: its value filter keys are to follow them.
    this.statements.markValuesUnindexed.run(threadId);
  }

  hasCheckpointOfRun(threadId: string, runId: string): boolean {
    return this.statements.hasCheckpointOfRun.get(threadId, runId) !== undefined;
  }

  /** Replaces the stored metadata of one checkpoint (without thread_id and checkpoint_id). */
  setCheckpointMetadata(threadId: string, checkpointId: string, metadata: Record<string, unknown>): void {
    this.statements.setCheckpointMetadata.run(JSON.stringify(metadata), threadId, checkpointId);
    // Forgotten, not updated: should this request's savepoint roll back, the row is read again.
    this.latest.forget(threadId);
  }

  /**
   * Deletes every thread whose time to live ran out by `nowMs`, with its checkpoints. Every
   * request calls it first, so no answer ever shows an expired thread; the earliest expiry is
   * kept in memory, so a store where nothing is due costs one comparison.
   */
  purgeExpired(nowMs: number): number {
    if (!this.earliestExpiryKnown) this.refreshEarliestExpiry();
    if (nowMs < this.earliestExpiry) return 0;
    const expired = this.transaction(() => this.statements.deleteExpired.run(nowMs).changes);
    this.refreshEarliestExpiry();
    return expired;
  }

  private refreshEarliestExpiry(): void {
    const earliest = this.statements.earliestExpiry.get() as number | null;
    this.earliestExpiry = earliest ?? Number.POSITIVE_INFINITY;
    this.earliestExpiryKnown = true;
  }

  private noteExpiry(expiresAt: number): void {
    if (expiresAt < this.earliestExpiry) this.earliestExpiry = expiresAt;
  }

  /**
   * The thread's latest checkpoint: its ID from the primary key's index alone, the rest from the
   * latest-checkpoint cache when that holds this ID, else from the row.
   */
  latestCheckpoint(threadId: string, options: { keep?: boolean } = {}): CheckpointRow | undefined {
    const latestId = this.statements.lastCheckpointId.get(threadId) as string | undefined;
    if (latestId === undefined) return undefined;
    const cached = this.latest.get(threadId, latestId);
    if (cached) return cached;
    const checkpoint = this.parse(this.statements.checkpoint.get(threadId, latestId) as RawCheckpoint);
    if (options.keep !== false) this.latest.set(threadId, latestId, checkpoint, storedChars(this.items.storedOf(checkpoint.values)!));
    return checkpoint;
  }

  /** The thread's latest checkpoint without its content (which may be large). */
  latestCheckpointHead(threadId: string): CheckpointHead | undefined {
    const raw = this.statements.latestCheckpointHead.get(threadId) as RawCheckpointHead | undefined;
    return raw && { ...raw, metadata: JSON.parse(raw.metadata) };
  }

  /** Keeps a checkpoint just written as its thread's latest, as it reads back (its values in canonical form). */
  private rememberLatest(threadId: string, parentId: string | null, checkpoint: StampedCheckpoint, stored: StoredValues): void {
    const { next, tasks, metadata, script } = checkpoint.planned;
    this.latest.set(
      threadId,
      checkpoint.id,
      {
        thread_id: threadId,
        checkpoint_id: checkpoint.id,
        parent_checkpoint_id: parentId,
        created_at: checkpoint.created_at,
        metadata,
        values: stored.canonical,
        next,
        tasks,
        ...(script ? { script } : {}),
      },
      storedChars(stored),
    );
  }

  checkpoint(threadId: string, checkpointId: string): CheckpointRow | undefined {
    const raw = this.statements.checkpoint.get(threadId, checkpointId) as RawCheckpoint | undefined;
    return raw && this.parse(raw);
  }

  /** Whether the thread has this checkpoint (its values are not read). */
  hasCheckpoint(threadId: string, checkpointId: string): boolean {
    return this.statements.checkpointExists.get(threadId, checkpointId) !== undefined;
  }

  /**
   * A checkpoint's row as read, its values rebuilt from their items; `base`: they may be what a
   * write follows (the latest, or one read alone, as a fork reads it), so their layout is kept.
   */
  private parse(raw: RawCheckpoint, base = true): CheckpointRow {
    // Built property by property in the order rememberLatest builds the cached ones: every
    // checkpoint a handler reads then has one shape (a spread of the row gave the rows of a page of
    // history a shape of their own, and a short thread's history read a fifth slower than before
    // its values were stored as items).
    const checkpoint: CheckpointRow = {
      thread_id: raw.thread_id,
      checkpoint_id: raw.checkpoint_id,
      parent_checkpoint_id: raw.parent_checkpoint_id,
      created_at: raw.created_at,
      metadata: JSON.parse(raw.metadata),
      values: this.items.read(raw.thread_id, raw.value_refs, base),
      next: JSON.parse(raw.next),
      tasks: JSON.parse(raw.tasks),
    };
    if (raw.script !== null) checkpoint.script = JSON.parse(raw.script);
    return checkpoint;
  }

  /** Newest first, older than `before` when given, keeping those whose full metadata matches. */
  history(threadId: string, options: { limit: number; before?: string; metadata?: Record<string, unknown> }): CheckpointRow[] {
    const rows = options.before
      ? this.statements.historyBefore.iterate(threadId, options.before)
      : this.statements.history.iterate(threadId);
    const found: CheckpointRow[] = [];
    const filter = options.metadata && Object.keys(options.metadata).length > 0 ? options.metadata : undefined;
    for (const raw of rows as IterableIterator<RawCheckpoint>) {
      const checkpoint = this.parse(raw, false);
      if (filter && !matchesFilter(fullMetadata(checkpoint), filter)) continue;
      found.push(checkpoint);
      if (found.length >= options.limit) {
        (rows as IterableIterator<unknown>).return?.();
        break;
      }
    }
    return found;
  }

  /**
   * The threads whose metadata holds `key` with a value deep-equal to `value` (an assistant's
   * `delete_threads`), found through the filter-key index.
   */
  idsByMetadata(key: string, value: unknown): string[] {
    this.indexUnindexed('metadata');
    const sql = "SELECT thread_id FROM thread_filter_keys WHERE scope = 'metadata' AND key = ? AND value_hash = ?";
    return prepared(this.db, this.countStatements, sql, { pluck: true }).all(key, valueHash(value)) as string[];
  }
}

/**
 * A statement prepared once per SQL text; at most 256 are kept (filters differ in their keys, so
 * the texts are bounded by the requests' variety, not by their values).
 */
function prepared(
  db: Db,
  cache: Map<string, import('better-sqlite3').Statement>,
  sql: string,
  options: { pluck?: boolean } = {},
): import('better-sqlite3').Statement {
  let statement = cache.get(sql);
  if (!statement) {
    statement = options.pluck ? db.prepare(sql).pluck() : db.prepare(sql);
    if (cache.size < 256) cache.set(sql, statement);
  }
  return statement;
}

type SearchQuery = Required<Pick<ThreadSearch, 'limit' | 'offset' | 'sort_by' | 'sort_order'>> & ThreadSearch;

type SearchPlan = 'filter-first' | 'sort-first' | 'key-order';

/**
 * How a search page is read.
 * - `key-order` (sorted by created_at): the first filter key's rows are in creation order, so the
 *   page's last match is found by reading offset + limit of them (checking the other keys), and
 *   the page is sorted from the matches created at or after it (ties included). It needs that
 *   last match to exist (more matches than offset + limit) and no status or ids filter, which
 *   those rows do not know.
 * - `filter-first`: the matches come from the filter-key index, then are sorted; it costs about
 *   one lookup per match.
 * - `sort-first`: the sort column's index is walked in order, each thread checked against the
 *   filter keys, until offset + limit matched; with matches spread evenly that visits
 *   (offset + limit) × stored / matches threads.
 * Otherwise whichever of the last two visits fewer wins: over 100,000 threads, a page of 10 of
 * those matching a key every thread has takes 0.03 ms sort-first and 170 ms filter-first; of a key
 * 300 threads have, 0.25 ms filter-first and 3 ms sort-first. A list of `ids` is always read first.
 */
export function searchPlan(query: SearchQuery, matches: number, stored: number): SearchPlan {
  if (query.ids !== undefined || filterKeysOf(query).length === 0) return 'filter-first';
  if (query.sort_by === 'created_at' && query.status === undefined && matches > query.offset + query.limit) return 'key-order';
  return ((query.offset + query.limit) * stored) / matches < matches ? 'sort-first' : 'filter-first';
}

/** The SQL of a search page read by `plan`, and its parameters. */
export function searchPageSql(query: SearchQuery, plan: SearchPlan, columns: string = THREAD_COLUMNS): { sql: string; params: unknown[] } {
  const direction = query.sort_order === 'asc' ? 'ASC' : 'DESC';
  const order = `ORDER BY ${SORT_COLUMNS[query.sort_by]} ${direction}, t.rowid ${direction}`;
  const page = [query.limit, query.offset];
  if (plan === 'filter-first') {
    const { filter, params } = filterClause(query);
    return { sql: `SELECT ${columns} FROM threads t ${filter} ${order} ${LIMIT_OFFSET}`, params: [...params, ...page] };
  }
  const keys = filterKeysOf(query);
  if (plan === 'key-order') {
    // The matches of the first key's rows `k` that have the other keys too.
    const matchesOf = (k: string) =>
      [
        `${k}.scope = ? AND ${k}.key = ? AND ${k}.value_hash = ?`,
        ...keys
          .slice(1)
          .map(
            () =>
              `EXISTS (SELECT 1 FROM thread_filter_keys o WHERE o.thread_id = ${k}.thread_id AND o.scope = ? AND o.key = ? AND o.value_hash = ?)`,
          ),
      ].join(' AND ');
    const last = `SELECT b.created_at FROM thread_filter_keys b WHERE ${matchesOf('b')} ORDER BY b.created_at ${direction} LIMIT 1 OFFSET ?`;
    const candidates = `SELECT k.thread_id FROM thread_filter_keys k WHERE ${matchesOf('k')} AND k.created_at ${direction === 'DESC' ? '>=' : '<='} (${last})`;
    return {
      sql: `SELECT ${columns} FROM threads t WHERE t.thread_id IN (${candidates}) ${order} ${LIMIT_OFFSET}`,
      params: [...keys.flat(), ...keys.flat(), query.offset + query.limit - 1, ...page],
    };
  }
  // A correlated EXISTS per key: SQLite then walks the ORDER BY's index and probes each thread's
  // keys in thread_filter_keys_by_thread, where an IN list would be read whole first.
  const where = keys.map(
    () => 'EXISTS (SELECT 1 FROM thread_filter_keys k WHERE k.thread_id = t.thread_id AND k.scope = ? AND k.key = ? AND k.value_hash = ?)',
  );
  const params: unknown[] = keys.flat();
  if (query.status) {
    where.push('t.status = ?');
    params.push(query.status);
  }
  return { sql: `SELECT ${columns} FROM threads t WHERE ${where.join(' AND ')} ${order} ${LIMIT_OFFSET}`, params: [...params, ...page] };
}

/** The WHERE clause of the filters search and count share. */
function filterClause(query: ThreadCount & Pick<ThreadSearch, 'ids'>): { filter: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.status) {
    where.push('t.status = ?');
    params.push(query.status);
  }
  if (query.ids) {
    where.push('t.thread_id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(query.ids));
  }
  for (const key of filterKeysOf(query)) {
    where.push('t.thread_id IN (SELECT thread_id FROM thread_filter_keys WHERE scope = ? AND key = ? AND value_hash = ?)');
    params.push(...key);
  }
  return { filter: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

/** The filter-key rows a thread must have to match: [scope, key, value hash] per filtered key. */
function filterKeysOf(query: Pick<ThreadCount, 'metadata' | 'values'>): [scope: string, key: string, hash: string][] {
  const keys: [string, string, string][] = [];
  for (const scope of ['metadata', 'values'] as const) {
    for (const [key, value] of Object.entries(query[scope] ?? {})) keys.push([scope, key, valueHash(value)]);
  }
  return keys;
}

/** A checkpoint's metadata as the API shows it: with its thread and checkpoint IDs. */
export function fullMetadata(checkpoint: CheckpointRow): Record<string, unknown> {
  return { thread_id: checkpoint.thread_id, checkpoint_id: checkpoint.checkpoint_id, ...checkpoint.metadata };
}

function parseThread(raw: RawThread): ThreadRow {
  const { interrupts, ...rest } = raw;
  return {
    ...rest,
    metadata: JSON.parse(raw.metadata),
    config: JSON.parse(raw.config),
    ...(interrupts === null ? {} : { interrupts: JSON.parse(interrupts) }),
  };
}

/** A subgraph checkpoint's row as read (its JSON columns as text, its values whole), parsed, keeping its namespace. */
export function parseCheckpoint<Raw extends { metadata: string; values: string; next: string; tasks: string; script: string | null }>(
  raw: Raw,
): Omit<Raw, 'metadata' | 'values' | 'next' | 'tasks' | 'script'> & CheckpointRow {
  const { script, ...row } = raw;
  const parsed = {
    ...row,
    metadata: JSON.parse(raw.metadata),
    values: JSON.parse(raw.values),
    next: JSON.parse(raw.next),
    tasks: JSON.parse(raw.tasks),
    ...(script === null ? {} : { script: JSON.parse(script) }),
  };
  return parsed as Omit<Raw, 'metadata' | 'values' | 'next' | 'tasks' | 'script'> & CheckpointRow;
}

const scriptText = (script: ScriptPosition | undefined): string | null => (script ? JSON.stringify(script) : null);
