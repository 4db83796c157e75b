// The checkpoints of subgraphs (migration 11): a subgraph node runs its own graph in its own
// namespace (`<node>:<task id>`, nested ones joined by `|`, LangGraph's checkpoint_ns) and writes
// its own checkpoints there, beside the thread's. The thread's state and history read the root's
// (thread-store.ts); these are read by namespace: a subgraph's history, the state of a subgraph
// that waits at an interrupt, and the runner that resumes it. They go with their thread (deleted,
// copied) and with the run that wrote them (a rollback).
import type { CommitGroup } from '../../store/commit-group.js';
import type { Db } from '../../store/database.js';
import { LIMIT } from '../../store/sql-page.js';
import type { ScriptPosition } from '../graphs/run-scripts.js';
import type { CheckpointRow } from './thread-store.js';
import { parseCheckpoint } from './thread-store.js';

type Raw = Omit<CheckpointRow, 'metadata' | 'values' | 'next' | 'tasks' | 'script'> & {
  checkpoint_ns: string;
  metadata: string;
  values: string;
  next: string;
  tasks: string;
  script: string | null;
};

/** A subgraph's checkpoint: a checkpoint of the thread, in a namespace. */
export type SubgraphCheckpointRow = CheckpointRow & { checkpoint_ns: string };

const COLUMNS = 'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, created_at, metadata, next, tasks, "values", script';

export class SubgraphCheckpoints {
  private readonly statements;

  constructor(
    db: Db,
    private readonly commits: CommitGroup,
  ) {
    this.statements = {
      insert: db.prepare(`INSERT INTO subgraph_checkpoints (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      latest: db.prepare(
        `SELECT ${COLUMNS} FROM subgraph_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`,
      ),
      one: db.prepare(`SELECT ${COLUMNS} FROM subgraph_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`),
      history: db.prepare(
        `SELECT ${COLUMNS} FROM subgraph_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC ${LIMIT}`,
      ),
      historyBefore: db.prepare(
        `SELECT ${COLUMNS} FROM subgraph_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ? ORDER BY checkpoint_id DESC ${LIMIT}`,
      ),
      setTasks: db.prepare(
        'UPDATE subgraph_checkpoints SET tasks = ?, next = ? WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?',
      ),
      setScript: db.prepare('UPDATE subgraph_checkpoints SET script = ? WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?'),
      deleteOfRun: db.prepare("DELETE FROM subgraph_checkpoints WHERE thread_id = ? AND json_extract(metadata, '$.run_id') = ?"),
      copy: db.prepare(
        `INSERT INTO subgraph_checkpoints (${COLUMNS}) SELECT ?, checkpoint_ns, checkpoint_id, parent_checkpoint_id, created_at, replace(metadata, ?, ?), next, tasks, "values", script FROM subgraph_checkpoints WHERE thread_id = ?`,
      ),
      deleteOfThread: db.prepare('DELETE FROM subgraph_checkpoints WHERE thread_id = ?'),
    };
  }

  transaction<T>(work: () => T): T {
    return this.commits.transaction(work);
  }

  add(checkpoint: SubgraphCheckpointRow): void {
    this.statements.insert.run(
      checkpoint.thread_id,
      checkpoint.checkpoint_ns,
      checkpoint.checkpoint_id,
      checkpoint.parent_checkpoint_id,
      checkpoint.created_at,
      JSON.stringify(checkpoint.metadata),
      JSON.stringify(checkpoint.next),
      JSON.stringify(checkpoint.tasks),
      JSON.stringify(checkpoint.values),
      checkpoint.script ? JSON.stringify(checkpoint.script) : null,
    );
  }

  latest(threadId: string, ns: string): SubgraphCheckpointRow | undefined {
    const raw = this.statements.latest.get(threadId, ns) as Raw | undefined;
    return raw && parse(raw);
  }

  get(threadId: string, ns: string, checkpointId: string): SubgraphCheckpointRow | undefined {
    const raw = this.statements.one.get(threadId, ns, checkpointId) as Raw | undefined;
    return raw && parse(raw);
  }

  /** Newest first, older than `before` when given. */
  history(threadId: string, ns: string, limit: number, before?: string): SubgraphCheckpointRow[] {
    const rows = before ? this.statements.historyBefore.all(threadId, ns, before, limit) : this.statements.history.all(threadId, ns, limit);
    return (rows as Raw[]).map(parse);
  }

  setTasks(threadId: string, ns: string, checkpointId: string, tasks: CheckpointRow['tasks'], next: string[]): void {
    this.statements.setTasks.run(JSON.stringify(tasks), JSON.stringify(next), threadId, ns, checkpointId);
  }

  setScript(threadId: string, ns: string, checkpointId: string, script: ScriptPosition): void {
    this.statements.setScript.run(JSON.stringify(script), threadId, ns, checkpointId);
  }

  /** Deletes what a run wrote (a rollback, or the run deleted). */
  deleteOfRun(threadId: string, runId: string): void {
    this.statements.deleteOfRun.run(threadId, runId);
  }

  /** Copies a thread's subgraph checkpoints to its copy, which their metadata names instead. */
  copy(sourceId: string, copyId: string): void {
    this.statements.copy.run(copyId, sourceId, copyId, sourceId);
  }

  /** Deletes every subgraph checkpoint of a thread (its history is pruned). */
  deleteOfThread(threadId: string): void {
    this.statements.deleteOfThread.run(threadId);
  }
}

function parse(raw: Raw): SubgraphCheckpointRow {
  return parseCheckpoint(raw);
}
