// The agent server thread API: one handler per operationId of spec/agent-server. Requests arrive
// validated (with the spec's defaults filled in); handlers add the rules a schema cannot state
// (existence, `if_exists`, message shapes after merging) and shape the answers.
import type { operations as ClientOperations, Thread, ThreadHistoryQuery, ThreadState } from '@agentplane/agent-server';
import type { ApiContract } from '../contract/api-contract.js';
import type { HandlerMap } from '../contract/handler-types.js';
import type { api } from '../generated/agent-server/operations.js';
import type { operations as ServerOperations } from '../generated/agent-server/server-types.js';
import { HttpError, validationError } from '../http/http-error.js';
import { canonicalUuid, isoNow, newCheckpointId, newId } from '../shared/ids.js';
import type { PlannedCheckpoint } from './supersteps.js';
import { planSupersteps } from './supersteps.js';
import type { CheckpointRow, ThreadRow, ThreadStore } from './thread-store.js';
import { fullMetadata } from './thread-store.js';

export type AgentServerPrincipal = { anonymous: boolean };

export type AgentServerHandlers = HandlerMap<typeof api, ServerOperations, ClientOperations, AgentServerPrincipal>;

export function agentServerHandlers(store: ThreadStore, contract: ApiContract): AgentServerHandlers {
  const threadNotFound = (threadId: string) => new HttpError(404, `Thread with ID ${threadId} not found.`);
  const requireThread = (threadId: string, options?: { withValues?: boolean }) => {
    const thread = store.get(threadId, options);
    if (!thread) throw threadNotFound(threadId);
    return thread;
  };
  // For the endpoints that answer from checkpoints: a primary-key probe, no row to parse.
  const ensureThreadExists = (threadId: string) => {
    if (!store.exists(threadId)) throw threadNotFound(threadId);
  };

  return {
    createThread({ body }) {
      const threadId = body.thread_id ? canonicalUuid(body.thread_id) : newId();
      const metadata = body.metadata ?? {};
      const plan = planSupersteps(body.supersteps ?? [], {
        graphId: typeof metadata.graph_id === 'string' ? metadata.graph_id : '',
        checkMessage: (message, loc) => contract.checkSchema('Message', message, 'body', loc),
      });
      if ('issues' in plan) throw validationError(plan.issues);

      return store.transaction(() => {
        const existing = store.get(threadId, { withValues: true });
        if (existing) {
          if (body.if_exists === 'do_nothing') return { status: 200, body: toThread(existing) };
          throw new HttpError(409, `Thread with ID ${threadId} already exists.`);
        }
        const now = isoNow();
        const thread = {
          thread_id: threadId,
          created_at: now,
          updated_at: now,
          status: 'idle' as const,
          metadata,
          values: plan.values,
          config: {},
        };
        store.insert(thread, stampCheckpoints(plan.checkpoints, now));
        return { status: 200, body: toThread(thread) };
      });
    },

    copyThread({ path }) {
      const sourceId = canonicalUuid(path.thread_id);
      return store.transaction(() => {
        const copyId = newId();
        if (!store.copy(sourceId, copyId, isoNow())) throw threadNotFound(sourceId);
        return { status: 200, body: toThread(store.get(copyId, { withValues: true })!) };
      });
    },

    searchThreads({ body }) {
      const { threads, total } = store.search({ ...body, ids: body.ids?.map(canonicalUuid) });
      return { status: 200, body: threads.map(toThread), headers: { 'X-Pagination-Total': total } };
    },

    getThread({ path }) {
      return { status: 200, body: toThread(requireThread(canonicalUuid(path.thread_id))) };
    },

    getThreadState({ path }) {
      const threadId = canonicalUuid(path.thread_id);
      ensureThreadExists(threadId);
      const latest = store.latestCheckpoint(threadId);
      return { status: 200, body: latest ? toState(latest) : emptyState() };
    },

    getThreadStateAtCheckpoint({ path }) {
      const threadId = canonicalUuid(path.thread_id);
      const checkpointId = canonicalUuid(path.checkpoint_id);
      ensureThreadExists(threadId);
      const checkpoint = store.checkpoint(threadId, checkpointId);
      if (!checkpoint) throw new HttpError(404, `Checkpoint ${checkpointId} not found for thread ${threadId}.`);
      return { status: 200, body: toState(checkpoint) };
    },

    getThreadHistory({ path, body }) {
      const threadId = canonicalUuid(path.thread_id);
      ensureThreadExists(threadId);
      const before = beforeCheckpointId(body.before);
      const states = store.history(threadId, { limit: body.limit, before: before && canonicalUuid(before), metadata: body.metadata });
      return { status: 200, body: states.map(toState) };
    },
  };
}

/** Gives each planned checkpoint its time-ordered ID and timestamp. */
export function stampCheckpoints(
  planned: PlannedCheckpoint[],
  now: string,
): { id: string; created_at: string; planned: PlannedCheckpoint }[] {
  return planned.map((checkpoint) => ({ id: newCheckpointId(), created_at: now, planned: checkpoint }));
}

/** The three forms of `before`: an ID, a checkpoint object, or a `{configurable: {...}}` config. */
function beforeCheckpointId(before: ThreadHistoryQuery['before']): string | undefined {
  if (before === undefined) return undefined;
  if (typeof before === 'string') return before;
  if ('configurable' in before) return before.configurable.checkpoint_id;
  return before.checkpoint_id;
}

function toThread(row: ThreadRow): Thread {
  const thread: Thread = {
    thread_id: row.thread_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    metadata: row.metadata,
    status: row.status,
  };
  if (row.values !== undefined) thread.values = row.values;
  thread.config = row.config;
  return thread;
}

function toState(checkpoint: CheckpointRow): ThreadState {
  const ref = (id: string) => ({ checkpoint_id: id, thread_id: checkpoint.thread_id, checkpoint_ns: '' });
  return {
    values: checkpoint.values,
    next: checkpoint.next,
    tasks: checkpoint.tasks,
    metadata: fullMetadata(checkpoint),
    created_at: checkpoint.created_at,
    checkpoint: ref(checkpoint.checkpoint_id),
    parent_checkpoint: checkpoint.parent_checkpoint_id ? ref(checkpoint.parent_checkpoint_id) : null,
    checkpoint_id: checkpoint.checkpoint_id,
    parent_checkpoint_id: checkpoint.parent_checkpoint_id,
  };
}

function emptyState(): ThreadState {
  return {
    values: {},
    next: [],
    tasks: [],
    metadata: {},
    created_at: null,
    checkpoint: null,
    parent_checkpoint: null,
    checkpoint_id: null,
    parent_checkpoint_id: null,
  };
}
