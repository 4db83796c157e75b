// The thread operations of the agent server API (threads, their state and history). Requests
// arrive validated (with the spec's defaults filled in); handlers add the rules a schema cannot
// state (existence, `if_exists`, checkpoints to apply to) and shape the answers.
import type { SuperstepUpdate, Thread, ThreadHistoryQuery, ThreadState, ThreadTtl } from '@agentplane/agent-server';
import { ThreadSchema } from '../../generated/agent-server/contract.js';
import { HttpError } from '../../http/http-error.js';
import { matchesFilter } from '../../shared/canonical-json.js';
import { canonicalUuid, newCheckpointId, newThreadId } from '../../shared/ids.js';
import type { GraphRegistry } from '../graphs/scripted-graph.js';
import type { AgentServerHandlers } from '../handler-map.js';
import { withSelectedValues } from './state-select.js';
import type { SubgraphCheckpoints } from './subgraph-checkpoints.js';
import type { PlannedCheckpoint } from './supersteps.js';
import { pendingInputOf, planSupersteps } from './supersteps.js';
import type { CheckpointRow, StampedCheckpoint, ThreadExpiry, ThreadRow, ThreadStore } from './thread-store.js';
import { fullMetadata } from './thread-store.js';

type Values = Record<string, unknown>;

const MINUTE_MS = 60_000;

/**
 * What the thread operations need of the runs on a thread (the run engine answers it): whether one
 * is in flight, and that threads are going away with their runs. Declared here, so that the thread
 * room does not import the runs room above it.
 */
export interface RunsOfThreads {
  isBusy(threadId: string): boolean;
  forgetThreads(threadIds: readonly string[]): void;
  /** The manifests of the answers of the thread's runs: the items they name outlive a prune (decision E29). */
  answersOf(threadId: string): string[];
}

export interface ThreadHandlerOptions {
  /** The clock of thread expiry (tests move it). */
  now?: (() => number) | undefined;
}

export function threadHandlers(
  store: ThreadStore,
  subgraphs: SubgraphCheckpoints,
  graphs: GraphRegistry,
  engine: RunsOfThreads,
  options: ThreadHandlerOptions = {},
) {
  const graphOf = (metadata: Values) => graphs.get(graphIdOf(metadata));
  const now = options.now ?? Date.now;
  const nowIso = () => new Date(now()).toISOString();
  const expiryOf = (ttl: ThreadTtl | undefined): ThreadExpiry | null => {
    if (ttl === undefined) return null;
    const minutes = typeof ttl === 'number' ? ttl : ttl.ttl;
    return { expiresAt: now() + minutes * MINUTE_MS, minutes };
  };
  const threadNotFound = (threadId: string) => new HttpError(404, `Thread with ID ${threadId} not found.`);
  const checkpointNotFound = (threadId: string, checkpointId: string) =>
    new HttpError(404, `Checkpoint ${checkpointId} not found for thread ${threadId}.`);
  const requireThread = (threadId: string, options?: { withValues?: boolean }) => {
    const thread = store.get(threadId, options);
    if (!thread) throw threadNotFound(threadId);
    return thread;
  };
  // For the endpoints that answer from checkpoints: a primary-key probe, no row to parse.
  const ensureThreadExists = (threadId: string) => {
    if (!store.exists(threadId)) throw threadNotFound(threadId);
  };
  const stateAt = (threadId: string, checkpointId: string, select: readonly string[] | undefined) => {
    ensureThreadExists(threadId);
    const checkpoint = store.checkpoint(threadId, checkpointId);
    if (!checkpoint) throw checkpointNotFound(threadId, checkpointId);
    return { status: 200 as const, body: withSelectedValues(toState(checkpoint), select) };
  };

  /**
   * A state whose pending subgraph tasks show their subgraph's state in place of where it is kept,
   * as LangGraph answers `subgraphs=true`: the latest checkpoint of each, with its own subgraphs'.
   */
  const withSubgraphStates = (state: ThreadState, threadId: string): ThreadState => ({
    ...state,
    tasks: state.tasks.map((task) => {
      const namespace = (task.checkpoint as { checkpoint_ns?: string } | null | undefined)?.checkpoint_ns;
      const latest = namespace ? subgraphs.latest(threadId, namespace) : undefined;
      if (!namespace || !latest) return task;
      return { ...task, checkpoint: null, state: withSubgraphStates(toState(latest, namespace), threadId) };
    }),
  });

  // `select` chooses among a search answer's optional fields; the required ones identify a thread and are always there.
  const alwaysSelected = ThreadSchema.required;

  return {
    createThread({ body }) {
      const threadId = body.thread_id ? canonicalUuid(body.thread_id) : newThreadId();
      const metadata = body.metadata ?? {};
      const plan = planSupersteps(body.supersteps ?? [], { graphId: graphIdOf(metadata), graph: graphOf(metadata) });
      return store.transaction(() => {
        // An ID the emulator just made is new; only a client's own can be taken.
        const existing = body.thread_id ? store.get(threadId, { withValues: true }) : undefined;
        if (existing) {
          if (body.if_exists === 'do_nothing') return { status: 200, body: toThread(existing) };
          throw new HttpError(409, `Thread with ID ${threadId} already exists.`);
        }
        const created = nowIso();
        const thread = {
          thread_id: threadId,
          created_at: created,
          updated_at: created,
          state_updated_at: created,
          status: 'idle' as const,
          metadata,
          values: plan.values,
          config: {},
        };
        store.insert(thread, stampCheckpoints(plan.checkpoints, created), expiryOf(body.ttl));
        return { status: 200, body: toThread(thread) };
      });
    },

    updateThread({ path, body, headers }) {
      const threadId = canonicalUuid(path.thread_id);
      return store.transaction(() => {
        const thread = requireThread(threadId);
        const metadata = { ...thread.metadata, ...(body.metadata ?? {}) };
        const updated = nowIso();
        store.update(threadId, thread.metadata, metadata, updated, expiryOf(body.ttl));
        if (prefersMinimal(headers)) return { status: 204, headers: { 'Preference-Applied': 'return=minimal' } };
        return { status: 200, body: toThread({ ...thread, metadata, updated_at: updated }) };
      });
    },

    deleteThread({ path }) {
      const threadId = canonicalUuid(path.thread_id);
      return store.transaction(() => {
        // Its runs go with it: those in flight stop first.
        engine.forgetThreads([threadId]);
        if (!store.delete(threadId)) throw threadNotFound(threadId);
        return { status: 204 as const };
      });
    },

    copyThread({ path }) {
      const sourceId = canonicalUuid(path.thread_id);
      return store.transaction(() => {
        const copyId = newThreadId();
        if (!store.copy(sourceId, copyId, nowIso())) throw threadNotFound(sourceId);
        subgraphs.copy(sourceId, copyId);
        return { status: 200, body: toThread(store.get(copyId, { withValues: true })!) };
      });
    },

    searchThreads({ body }) {
      // A search answers threads without their values, as the thread interface says, even when
      // `select` names them: only `extract` reads them.
      const select = body.select ? new Set<string>([...alwaysSelected, ...body.select]) : undefined;
      const { threads, total } = store.search({ ...body, ids: body.ids?.map(canonicalUuid) }, { withValues: body.extract !== undefined });
      const answer = threads.map((row) => {
        const { values, ...thread }: Thread = toThread(row);
        const shown: Thread = select ? (pick(thread, select) as Thread) : thread;
        if (body.extract) shown.extracted = extract({ ...thread, values: values ?? {} }, body.extract);
        return shown;
      });
      return { status: 200, body: answer, headers: { 'X-Pagination-Total': total } };
    },

    countThreads({ body }) {
      return { status: 200, body: store.count(body) };
    },

    pruneThreads({ body }) {
      const ids = [...new Set(body.thread_ids.map(canonicalUuid))];
      const pruned = store.transaction(() => {
        if (body.strategy !== 'keep_latest') engine.forgetThreads(ids);
        return ids.filter((id) =>
          body.strategy === 'keep_latest' ? store.keepLatestCheckpoint(id, engine.answersOf(id)) : store.delete(id),
        ).length;
      });
      return { status: 200, body: { pruned_count: pruned } };
    },

    getThread({ path, query }) {
      const threadId = canonicalUuid(path.thread_id);
      const thread = store.json(threadId);
      if (!thread) throw threadNotFound(threadId);
      if (!query.include?.includes('ttl')) return { status: 200, body: thread };
      // `include=ttl` adds the thread's time to live (null for one that never expires).
      const ttl = store.ttl(threadId);
      return {
        status: 200,
        body: {
          ...(JSON.parse(thread.text) as Thread),
          ttl: ttl ? { strategy: 'delete' as const, ttl_minutes: ttl.minutes, expires_at: new Date(ttl.expiresAt).toISOString() } : null,
        },
      };
    },

    getThreadState({ path, query }) {
      const threadId = canonicalUuid(path.thread_id);
      ensureThreadExists(threadId);
      const latest = store.latestCheckpoint(threadId);
      if (!latest) return { status: 200, body: emptyState() };
      const state = withSelectedValues(toState(latest), query.select);
      return { status: 200, body: query.subgraphs ? withSubgraphStates(state, threadId) : state };
    },

    updateThreadState({ path, body }) {
      const threadId = canonicalUuid(path.thread_id);
      const targetId = body.checkpoint?.checkpoint_id ?? body.checkpoint_id;
      return store.transaction(() => {
        const thread = requireThread(threadId);
        if (engine.isBusy(threadId)) throw new HttpError(409, `Thread with ID ${threadId} is busy: a run is pending or running.`);
        const base = targetId === undefined ? store.latestCheckpoint(threadId) : store.checkpoint(threadId, canonicalUuid(targetId));
        if (targetId !== undefined && !base) throw checkpointNotFound(threadId, canonicalUuid(targetId));
        const asNode =
          body.as_node ??
          lastNodeOf(base, base?.parent_checkpoint_id ? store.checkpoint(threadId, base.parent_checkpoint_id) : undefined) ??
          '__start__';
        const update: SuperstepUpdate = { as_node: asNode, ...(body.values === undefined ? {} : { values: body.values }) };
        const plan = planSupersteps([{ updates: [update] }], {
          graphId: graphIdOf(thread.metadata),
          graph: graphOf(thread.metadata),
          base: base && { values: base.values, step: stepOf(base), pendingInput: pendingInputOf(base.metadata), script: base.script },
        });
        const [stamped] = stampCheckpoints(plan.checkpoints, nowIso());
        store.addCheckpoint(threadId, base, stamped!, stamped!.created_at);
        return { status: 200, body: { checkpoint: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: stamped!.id } } };
      });
    },

    patchThreadState({ path, body }) {
      const threadId = canonicalUuid(path.thread_id);
      return store.transaction(() => {
        ensureThreadExists(threadId);
        const latest = store.latestCheckpointHead(threadId);
        if (!latest) throw new HttpError(404, `Thread ${threadId} has no checkpoint.`);
        // thread_id and checkpoint_id are added on read: never store them.
        const { thread_id: _thread, checkpoint_id: _checkpoint, ...patch } = body.metadata;
        store.setCheckpointMetadata(threadId, latest.checkpoint_id, { ...latest.metadata, ...patch });
        return { status: 204 };
      });
    },

    getThreadStateAtCheckpoint({ path, query }) {
      return stateAt(canonicalUuid(path.thread_id), canonicalUuid(path.checkpoint_id), query.select);
    },

    getThreadStateAtCheckpointObject({ path, body }) {
      return stateAt(canonicalUuid(path.thread_id), canonicalUuid(body.checkpoint.checkpoint_id), body.select);
    },

    getThreadHistory({ path, body }) {
      const threadId = canonicalUuid(path.thread_id);
      ensureThreadExists(threadId);
      const toSelectedState = (checkpoint: CheckpointRow, namespace?: string) =>
        withSelectedValues(toState(checkpoint, namespace), body.select);
      const namespace = body.checkpoint?.checkpoint_ns ?? '';
      if (namespace !== '') {
        // A subgraph's own checkpoints, newest first; a namespace no subgraph wrote has none.
        const before = beforeCheckpointId(body.before);
        const entries = body.checkpoint?.checkpoint_id
          ? [subgraphs.get(threadId, namespace, canonicalUuid(body.checkpoint.checkpoint_id))].filter((one) => one !== undefined)
          : subgraphs.history(threadId, namespace, body.limit, before && canonicalUuid(before));
        return {
          status: 200,
          body: entries
            .filter((entry) => matchesFilter(fullMetadata(entry), body.metadata ?? {}))
            .map((entry) => toSelectedState(entry, namespace)),
        };
      }
      if (body.checkpoint?.checkpoint_id !== undefined) {
        const one = store.checkpoint(threadId, canonicalUuid(body.checkpoint.checkpoint_id));
        return { status: 200, body: one && matchesFilter(fullMetadata(one), body.metadata ?? {}) ? [toSelectedState(one)] : [] };
      }
      const before = beforeCheckpointId(body.before);
      const states = store.history(threadId, { limit: body.limit, before: before && canonicalUuid(before), metadata: body.metadata });
      return { status: 200, body: states.map((state) => toSelectedState(state)) };
    },
  } satisfies Partial<AgentServerHandlers>;
}

/** `Prefer: return=minimal` (RFC 7240), among any other preferences of the header(s). */
function prefersMinimal(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  const prefer = headers.prefer;
  const values = Array.isArray(prefer) ? prefer : prefer === undefined ? [] : [prefer];
  return values.some((value) => value.split(',').some((preference) => preference.trim().toLowerCase() === 'return=minimal'));
}

const graphIdOf = (metadata: Values) => (typeof metadata.graph_id === 'string' ? metadata.graph_id : '');
const stepOf = (checkpoint: CheckpointRow) => (typeof checkpoint.metadata.step === 'number' ? checkpoint.metadata.step : -1);

/**
 * The node an update without `as_node` is applied as, as LangGraph picks it: the last node that
 * wrote on this branch. A checkpoint of a state update or superstep names its one writer in
 * `writes`; one a run wrote (no `writes` in its metadata, as LangGraph's loop leaves it) was written
 * by the tasks of its parent's step that ran, which record their results there. Several writers at
 * once leave it undecided.
 */
function lastNodeOf(checkpoint: CheckpointRow | undefined, parent: CheckpointRow | undefined): string | undefined {
  if (!checkpoint) return undefined;
  const writes = checkpoint.metadata.writes as Values | null | undefined;
  const writers =
    writes != null
      ? Object.keys(writes)
      : checkpoint.metadata.source === 'loop'
        ? [...new Set((parent?.tasks ?? []).filter((task) => task.result != null).map((task) => task.name))]
        : [];
  return writers.length === 1 ? writers[0] : undefined;
}

function pick(thread: Thread, fields: ReadonlySet<string>): Partial<Thread> {
  return Object.fromEntries(Object.entries(thread).filter(([key]) => fields.has(key)));
}

/** Each `extract` path, read from the thread: dot-separated keys, `[n]` indexes, `[-1]` the last. */
function extract(thread: Thread, paths: Record<string, string>): Values {
  const out: Values = {};
  for (const [alias, path] of Object.entries(paths)) {
    let at: unknown = thread;
    for (const [, key, index] of path.matchAll(/([^.[\]]+)|\[(-?\d+)\]/g)) {
      if (key !== undefined)
        at = at !== null && typeof at === 'object' && !Array.isArray(at) && Object.hasOwn(at, key) ? (at as Values)[key] : undefined;
      else if (Array.isArray(at)) at = at.at(Number(index));
      else at = undefined;
      if (at === undefined) break;
    }
    out[alias] = at ?? null;
  }
  return out;
}

/** Gives each planned checkpoint its time-ordered ID and timestamp. */
export function stampCheckpoints(planned: PlannedCheckpoint[], now: string): StampedCheckpoint[] {
  return planned.map((checkpoint) => ({ id: newCheckpointId(), created_at: now, planned: checkpoint }));
}

/** The three forms of `before`: an ID, a checkpoint object, or a `{configurable: {...}}` config. */
function beforeCheckpointId(before: ThreadHistoryQuery['before']): string | undefined {
  if (before === undefined) return undefined;
  if (typeof before === 'string') return before;
  if ('configurable' in before) return before.configurable.checkpoint_id;
  return before.checkpoint_id;
}

// The fields and order of the thread store's JSON text of a thread (THREAD_JSON), plus values.
function toThread(row: ThreadRow): Thread {
  const thread: Thread = {
    thread_id: row.thread_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    state_updated_at: row.state_updated_at,
    metadata: row.metadata,
    status: row.status,
  };
  if (row.values !== undefined) thread.values = row.values;
  thread.config = row.config;
  if (row.interrupts !== undefined) thread.interrupts = row.interrupts;
  return thread;
}

function toState(checkpoint: CheckpointRow, namespace = ''): ThreadState {
  // checkpoint_map: null as the LangGraph servers answer it for root-graph checkpoints; a
  // subgraph's names the root checkpoint it runs under and its own.
  const parents = (checkpoint.metadata.parents ?? {}) as Record<string, string>;
  const ref = (id: string, own = false) => ({
    checkpoint_id: id,
    thread_id: checkpoint.thread_id,
    checkpoint_ns: namespace,
    checkpoint_map: namespace !== '' && own ? { ...parents, [namespace]: id } : null,
  });
  return {
    values: checkpoint.values,
    next: checkpoint.next,
    tasks: checkpoint.tasks,
    metadata: fullMetadata(checkpoint),
    created_at: checkpoint.created_at,
    checkpoint: ref(checkpoint.checkpoint_id, true),
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
