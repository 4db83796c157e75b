// Versioned schema of the emulator's database. Each entry moves the file one version up
// (`PRAGMA user_version`); entries are never edited once released, only appended.
import type Database from 'better-sqlite3';
import { convertCheckpointValues } from './checkpoint-values-conversion.js';

export const MIGRATIONS: readonly string[] = [
  // 1: threads, checkpoints, the filter index, deployments, revisions, pools and providers.
  `
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  -- rowid is the creation order: the tie-breaker of every thread sort.
  CREATE TABLE threads (
    thread_id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status TEXT NOT NULL,
    metadata TEXT NOT NULL,
    "values" TEXT NOT NULL,
    config TEXT NOT NULL
  );
  CREATE INDEX threads_by_created_at ON threads (created_at);
  CREATE INDEX threads_by_updated_at ON threads (updated_at);
  CREATE INDEX threads_by_status ON threads (status);

  -- One row per top-level key of a thread's metadata and of its values, with a hash of the
  -- key's canonical JSON: a search filter is an index lookup per key, not a scan of every thread.
  CREATE TABLE thread_filter_keys (
    scope TEXT NOT NULL CHECK (scope IN ('metadata', 'values')),
    key TEXT NOT NULL,
    value_hash TEXT NOT NULL,
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    PRIMARY KEY (scope, key, value_hash, thread_id)
  ) WITHOUT ROWID;
  CREATE INDEX thread_filter_keys_by_thread ON thread_filter_keys (thread_id);

  -- Checkpoint IDs are time-ordered, so the primary key serves history newest-first and
  -- \`before\` in O(limit). Metadata is stored without thread_id/checkpoint_id (added on read), so a
  -- copy is a plain INSERT ... SELECT of the rows under the new thread ID.
  CREATE TABLE checkpoints (
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    created_at TEXT NOT NULL,
    metadata TEXT NOT NULL,
    "values" TEXT NOT NULL,
    next TEXT NOT NULL,
    tasks TEXT NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_id)
  ) WITHOUT ROWID;

  CREATE TABLE deployments (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    source_config TEXT NOT NULL,
    secrets TEXT NOT NULL,
    latest_revision_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (tenant_id, name)
  );

  -- A revision's status is not stored: it follows from its plan (the statuses it walks, the
  -- last one terminal), when it started and how long each status lasts, and is frozen at
  -- SKIPPED when a newer revision superseded it before it finished.
  CREATE TABLE revisions (
    id TEXT PRIMARY KEY,
    deployment_id TEXT NOT NULL REFERENCES deployments (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    source TEXT NOT NULL,
    source_revision_config TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    step_ms INTEGER NOT NULL,
    plan TEXT NOT NULL,
    superseded_ms INTEGER,
    UNIQUE (deployment_id, seq)
  );

  CREATE TABLE sandbox_pools (
    tenant_id TEXT NOT NULL,
    name TEXT NOT NULL,
    id TEXT NOT NULL,
    template_name TEXT NOT NULL,
    replicas INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name)
  );

  CREATE TABLE oauth_providers (
    tenant_id TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    record TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, provider_id)
  );
  `,
  // 2: secret values out of the file. Earlier versions stored each deployment secret's value; the
  // emulator never needs one (the Secret schema says so), so only names are kept. The database is
  // opened with secure_delete, so the old cells are zeroed rather than left in free pages.
  `
  UPDATE deployments SET secrets = (
    SELECT json_group_array(json_object('name', json_extract(secret.value, '$.name')) ORDER BY secret.key)
    FROM json_each(deployments.secrets) AS secret
  );
  `,
  // 3: a thread's time to live (ThreadTtl). expires_at is epoch milliseconds, null for a thread
  // that never expires; the partial index finds the expired ones without scanning the others.
  `
  ALTER TABLE threads ADD COLUMN expires_at INTEGER;
  CREATE INDEX threads_by_expiry ON threads (expires_at) WHERE expires_at IS NOT NULL;
  `,
  // 4: when each thread's state last changed (Thread.state_updated_at, a sort key of search):
  // its latest checkpoint's time, or its creation when it has none.
  `
  ALTER TABLE threads ADD COLUMN state_updated_at TEXT;
  UPDATE threads SET state_updated_at = coalesce(
    (SELECT max(c.created_at) FROM checkpoints c WHERE c.thread_id = threads.thread_id),
    created_at
  );
  CREATE INDEX threads_by_state_updated_at ON threads (state_updated_at);
  `,
  // 5: filter keys carry their thread's creation time (which never changes), so that a search
  // sorted by created_at reads a page of a filter's matches in order from the key's rows, without
  // looking at all of them (decision E12).
  `
  CREATE TABLE thread_filter_keys_v5 (
    scope TEXT NOT NULL CHECK (scope IN ('metadata', 'values')),
    key TEXT NOT NULL,
    value_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    PRIMARY KEY (scope, key, value_hash, created_at, thread_id)
  ) WITHOUT ROWID;
  INSERT INTO thread_filter_keys_v5 (scope, key, value_hash, created_at, thread_id)
    SELECT k.scope, k.key, k.value_hash, t.created_at, k.thread_id FROM thread_filter_keys k JOIN threads t ON t.thread_id = k.thread_id;
  DROP TABLE thread_filter_keys;
  ALTER TABLE thread_filter_keys_v5 RENAME TO thread_filter_keys;
  CREATE INDEX thread_filter_keys_by_thread ON thread_filter_keys (thread_id);
  `,
  // 6: a thread's values are its latest checkpoint's (none: {}), read from there. The copy the
  // thread's row kept was written again on every state change: twice the bytes of each update,
  // copy and create with supersteps, for a column only a search selecting values reads.
  `
  ALTER TABLE threads DROP COLUMN "values";
  `,
  // 7: checkpoints become an ordinary (rowid) table, the values column last. A WITHOUT ROWID
  // table keeps each whole row in its primary-key b-tree, interior cells included, and SQLite
  // reads a cell's whole payload, overflow pages and all, to compare a key that overflows: every
  // lookup of a thread's checkpoints read its large states on the way down (12 µs to find the
  // latest checkpoint ID of a 100-message thread). Now the key lives in a small index and the rows
  // in the table; a read of the columns before the values does not touch their overflow pages.
  `
  CREATE TABLE checkpoints_v7 (
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    created_at TEXT NOT NULL,
    metadata TEXT NOT NULL,
    next TEXT NOT NULL,
    tasks TEXT NOT NULL,
    "values" TEXT NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_id)
  );
  INSERT INTO checkpoints_v7 (thread_id, checkpoint_id, parent_checkpoint_id, created_at, metadata, next, tasks, "values")
    SELECT thread_id, checkpoint_id, parent_checkpoint_id, created_at, metadata, next, tasks, "values" FROM checkpoints;
  DROP TABLE checkpoints;
  ALTER TABLE checkpoints_v7 RENAME TO checkpoints;
  `,
  // 8: runs. A run's row is its whole record: what it was asked (kwargs), its status, how many
  // times it started (attempt: a run in flight when the process died starts again), and once it
  // ended the answer its waiters get (outcome). run_id is a UUID v7, so a thread's runs are listed
  // newest first along runs_by_thread; the partial index finds what is left to run at start-up.
  // A thread's reply cursor is where its scripted model's next reply is looked for; its interrupts
  // (JSON, null until a run ends on it) are what its last run left it waiting at.
  `
  CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    assistant_id TEXT NOT NULL,
    status TEXT NOT NULL,
    metadata TEXT NOT NULL,
    kwargs TEXT NOT NULL,
    multitask_strategy TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 0,
    outcome TEXT
  );
  CREATE INDEX runs_by_thread ON runs (thread_id, run_id);
  CREATE INDEX runs_by_assistant ON runs (assistant_id);
  CREATE INDEX runs_in_flight ON runs (status) WHERE status IN ('pending', 'running');
  ALTER TABLE threads ADD COLUMN reply_cursor INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE threads ADD COLUMN interrupts TEXT;
  `,
  // 9: what a revision's build and deploy logs are written from, kept from when it was created
  // (the deployment's repository, secret names and resources then, the lines its configured
  // outcome gives), and, for a redeploy of a built git revision, the revision whose image it
  // deploys instead of building. Revisions of older files have neither: their logs are written
  // from the deployment as it is, and they were all built.
  `
  ALTER TABLE revisions ADD COLUMN log_context TEXT;
  ALTER TABLE revisions ADD COLUMN image_from TEXT;
  `,
  // 10: assistants and their versions (decision E19). A version is the whole configuration of an
  // assistant as a create or an update made it, and is never changed; the assistant's row holds
  // which version is current, its times, and, for the default assistant of a configured graph,
  // that graph's ID (`system_graph_id`), so that start-up can tell the defaults it made from the
  // assistants clients made. rowid is the creation order: the tie-breaker of every sort. The runs
  // of an assistant (migration 8, older than this table) are deleted with it by the store.
  `
  CREATE TABLE assistants (
    assistant_id TEXT NOT NULL UNIQUE,
    version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    system_graph_id TEXT UNIQUE
  );

  CREATE TABLE assistant_versions (
    assistant_id TEXT NOT NULL REFERENCES assistants (assistant_id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    graph_id TEXT NOT NULL,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (assistant_id, version)
  );
  `,
  // 11: the store's items (decision E22) and the crons (decision E23). An item's namespace is its
  // labels joined by U+001F, which no label holds and which sorts before every character a label
  // may hold, so that the text order of namespaces is their label-by-label order and a prefix is
  // one range of an index. rowid is the order items were first stored in (an overwrite is an
  // UPDATE and keeps it); store_items_in_order, (namespace, rowid), is the order a search answers
  // in, read from the index with no sort, so a page costs the rows up to its end. answer is the
  // item as the API answers it (namespace, key, value and times), so a read is that one column.
  // expires_at is epoch milliseconds, null for an item that never expires; ttl_minutes is kept to
  // restart the clock on a read. A cron's next_run_ms is when it makes its next run, null when it
  // makes none; the partial index finds those that are due. A cron goes with its thread or its
  // assistant.
  `
  CREATE TABLE store_items (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    answer TEXT NOT NULL,
    index_fields TEXT,
    created_at TEXT NOT NULL,
    ttl_minutes REAL,
    expires_at INTEGER,
    UNIQUE (namespace, key)
  );
  CREATE INDEX store_items_in_order ON store_items (namespace);
  CREATE INDEX store_items_by_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL;

  CREATE TABLE crons (
    cron_id TEXT PRIMARY KEY,
    assistant_id TEXT NOT NULL REFERENCES assistants (assistant_id) ON DELETE CASCADE,
    thread_id TEXT REFERENCES threads (thread_id) ON DELETE CASCADE,
    schedule TEXT NOT NULL,
    timezone TEXT,
    end_time TEXT,
    enabled INTEGER NOT NULL,
    on_run_completed TEXT,
    next_run_ms INTEGER,
    metadata TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX crons_due ON crons (next_run_ms) WHERE next_run_ms IS NOT NULL;
  CREATE INDEX crons_by_thread ON crons (thread_id);
  CREATE INDEX crons_by_assistant ON crons (assistant_id);
  `,
  // 12: graphs of any shape. A checkpoint a scripted run wrote keeps where the run stands in its
  // graph's script (`script`: JSON, the entry and the step that runs next), so that a run going on
  // from it (a resume, a breakpoint, a fork) takes the steps from there; null for the ReAct
  // shorthand, whose next step follows from the state. A subgraph's checkpoints live beside the
  // thread's, in its namespace (`<node>:<task id>`, LangGraph's checkpoint_ns), as LangGraph keeps
  // them: the thread's history and state read the root's, a namespace is asked for by name.
  `
  ALTER TABLE checkpoints ADD COLUMN script TEXT;
  CREATE TABLE subgraph_checkpoints (
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    checkpoint_ns TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    created_at TEXT NOT NULL,
    metadata TEXT NOT NULL,
    next TEXT NOT NULL,
    tasks TEXT NOT NULL,
    "values" TEXT NOT NULL,
    script TEXT,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
  );
  `,
  // 13: why a cancel ended a run, when the cancel said why (`reason=taken`: `taken:<run ID>`),
  // null for every other run; and the minutes of a thread's time to live, as last given (a read
  // with `include=ttl` answers them with its expiry), null for a thread that never expires.
  `
  ALTER TABLE runs ADD COLUMN cancel_reason TEXT;
  ALTER TABLE threads ADD COLUMN ttl_minutes REAL;
  `,
  // 14: the thread-centric protocol's events (decision E28). A thread joins the protocol when a
  // command or an event stream first names it (`protocol_threads`); from then on every run of it
  // writes its events here, each the thread's next `seq`, as the JSON sent to clients, with what a
  // filter reads (its channel and namespace) and the run it tells of. A thread keeps its last
  // 10,000; all go with the thread.
  `
  CREATE TABLE protocol_threads (
    thread_id TEXT PRIMARY KEY REFERENCES threads (thread_id) ON DELETE CASCADE
  ) WITHOUT ROWID;
  CREATE TABLE protocol_events (
    thread_id TEXT NOT NULL REFERENCES protocol_threads (thread_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    method TEXT NOT NULL,
    event_id TEXT NOT NULL,
    channel TEXT NOT NULL,
    namespace TEXT NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (thread_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX protocol_events_by_run ON protocol_events (thread_id, run_id, seq);
  `,
  // 15: checkpoints store what changed (decision E29). A thread's values are written as items,
  // each once: an element of a list key (a message), or a whole larger value, numbered per thread
  // and key in the order first written; a checkpoint's values are a manifest naming its items
  // (value_refs: ranges of a list's items, one item, or a small value inline), and so is a run's
  // answer once it names the thread's values (outcome_values, in place of outcome). The values
  // older emulators stored whole are laid out as items by this migration's data conversion
  // (checkpoint-values-conversion.ts), which migrate() runs after this SQL, in its transaction.
  `
  CREATE TABLE checkpoint_items (
    thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
    channel TEXT NOT NULL,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (thread_id, channel, seq)
  );
  ALTER TABLE checkpoints ADD COLUMN value_refs TEXT;
  ALTER TABLE runs ADD COLUMN outcome_values TEXT;
  `,
  // 16: the whole values migration 15 laid out go (the file's pages are zeroed, secure_delete).
  `
  ALTER TABLE checkpoints DROP COLUMN "values";
  `,
  // 17: a thread's runs that have not ended, in the order they run, from an index of those runs
  // only. runs_by_thread walked every run the thread ever had to find them, several times per
  // run: on a thread with a thousand runs behind it, a new run's cost grew with them. It replaces
  // runs_in_flight, keyed by status alone: every run passes through these indexes (in when made,
  // out when ended), and each one is a page more per commit; start-up reads all in-flight runs
  // from this one, as few as they are.
  `
  DROP INDEX runs_in_flight;
  CREATE INDEX runs_in_flight_by_thread ON runs (thread_id, created_at, run_id) WHERE status IN ('pending', 'running');
  `,
  // 18: a thread's filter keys are brought up to date by the first search or count that filters
  // by their scope (metadata, values) after the thread changed, not by the request that changed it
  // (decision E12). A key's row sits where its value's hash puts it, and its by-thread index entry
  // where the random thread ID does, so a new thread and every change of a conversation wrote pages
  // at random: a third of the pages a run wrote. Rows written before this version are up to date
  // (0); a change sets the scope's flag, and each partial index lists the threads that have it, in
  // creation order.
  `
  ALTER TABLE threads ADD COLUMN metadata_unindexed INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE threads ADD COLUMN values_unindexed INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX threads_metadata_unindexed ON threads (metadata_unindexed) WHERE metadata_unindexed = 1;
  CREATE INDEX threads_values_unindexed ON threads (values_unindexed) WHERE values_unindexed = 1;
  `,
];

/**
 * What a migration does that SQL cannot, by the version it brings the file to: run after that
 * version's SQL, in its transaction.
 */
export const DATA_CONVERSIONS: Readonly<Partial<Record<number, (db: Database.Database) => void>>> = {
  15: convertCheckpointValues,
};
