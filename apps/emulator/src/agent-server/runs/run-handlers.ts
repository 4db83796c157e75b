// The run operations of the agent server API: create (in the background, or waited for), list,
// get, join, cancel and delete runs, on a thread or stateless. The run engine (runs/run-engine.ts)
// owns what runs do; these handlers add what the HTTP answer needs (existence, the run's URL in
// `Content-Location`, a client going away).
import type { Run, RunBatchItem, RunCreate } from '@agentplane/agent-server';
import { HttpError, validationError } from '../../http/http-error.js';
import { canonicalUuid } from '../../shared/ids.js';
import type { AgentServerHandlers } from '../handler-map.js';
import type { ThreadStore } from '../threads/thread-store.js';
import type { RunEngine } from './run-engine.js';
import type { RunRow, RunStore } from './run-store.js';
import { shownKwargs } from './run-store.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const threadNotFound = (threadId: string) => new HttpError(404, `Thread with ID ${threadId} not found.`);

/** Finds a thread's run by the path's IDs, or throws the 404 of the thread or of the run. */
export function runFinder(runs: RunStore, threads: ThreadStore) {
  return (path: { thread_id: string; run_id: string }): RunRow => {
    const threadId = canonicalUuid(path.thread_id);
    const runId = canonicalUuid(path.run_id);
    const run = runs.get(runId);
    if (run?.thread_id === threadId) return run;
    if (!threads.exists(threadId)) throw threadNotFound(threadId);
    throw new HttpError(404, `Run with ID ${runId} not found for thread ${threadId}.`);
  };
}

/** The run's URL, as LangGraph's servers answer it in `Content-Location`. */
export function runLocation(run: RunRow, stateless: boolean): string {
  return stateless ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`;
}

export function runHandlers(engine: RunEngine, runs: RunStore, threads: ThreadStore) {
  const requireRun = runFinder(runs, threads);
  const create = (threadId: string | null, body: RunCreate, headers: Headers) =>
    engine.create(threadId, body, configurableHeaders(headers));
  const located = (run: RunRow, stateless: boolean) => ({ 'Content-Location': runLocation(run, stateless) });
  /** Waits for a run the request created, which starts at once: a client that goes away cancels it when the run asks so. */
  const waitFor = (run: RunRow, body: RunCreate, onDisconnect: (listener: () => void) => void, stateless: boolean) => {
    if (body.on_disconnect === 'cancel') onDisconnect(() => engine.cancelRuns([run.run_id], 'interrupt'));
    return engine.runWaited(run).then((outcome) => ({ status: 200 as const, body: outcome, headers: located(run, stateless) }));
  };

  return {
    createRun({ path, body, headers }) {
      const run = create(path.thread_id, body, headers);
      return { status: 200, body: shown(run), headers: located(run, false) };
    },

    waitRun({ path, body, headers, onDisconnect }) {
      return waitFor(create(path.thread_id, body, headers), body, onDisconnect, false);
    },

    createStatelessRun({ body, headers }) {
      const run = create(null, body, headers);
      return { status: 200, body: shown(run), headers: located(run, true) };
    },

    waitStatelessRun({ body, headers, onDisconnect }) {
      return waitFor(create(null, body, headers), body, onDisconnect, true);
    },

    createRunBatch({ body, headers }) {
      // All or none: a refused item rolls back the runs created before it.
      const created = runs.transaction(() => body.map((item) => create(null, snakeCased(item), headers)));
      return { status: 200, body: created.map((run) => shown(run)) };
    },

    listRuns({ path, query }) {
      const threadId = canonicalUuid(path.thread_id);
      if (!threads.exists(threadId)) throw threadNotFound(threadId);
      const page = runs.list(threadId, { limit: query.limit, offset: query.offset, status: query.status });
      // `select` chooses among a run's optional fields; the required ones are always answered.
      const withCancelReason = query.select === undefined || query.select.includes('cancel_reason');
      return { status: 200, body: page.map((run) => shown(run, withCancelReason)) };
    },

    getRun({ path }) {
      return { status: 200, body: shown(requireRun(path)) };
    },

    deleteRun({ path }) {
      const run = requireRun(path);
      if (!runs.transaction(() => engine.deleteRun(run)))
        throw new HttpError(409, `Run with ID ${run.run_id} is still ${run.status}; cancel it before deleting it.`);
      return { status: 204 };
    },

    joinRun({ path, query, onDisconnect }) {
      const run = requireRun(path);
      if (query.cancel_on_disconnect) onDisconnect(() => engine.cancelRuns([run.run_id], 'interrupt'));
      return engine.outcome(run).then((outcome) => ({ status: 200 as const, body: outcome }));
    },

    cancelRun({ path, query }) {
      // A run rolled back is deleted: nothing would keep the reason (the spec's ReasonWithRollback).
      if (query.reason !== undefined && query.action === 'rollback')
        throw validationError([
          {
            loc: ['query', 'reason'],
            msg: "A reason is recorded only with action 'interrupt'; a run rolled back is deleted.",
            type: 'value_error',
          },
        ]);
      const run = requireRun(path);
      // Cancelling takes effect at once (a run stops at its next pause), so waiting costs nothing.
      engine.cancelRuns([run.run_id], query.action, query.reason);
      return { status: query.wait ? 204 : 202 };
    },

    cancelRuns({ body, query }) {
      let ids: string[];
      if ('status' in body) {
        const statuses = body.status === 'all' ? (['pending', 'running'] as const) : [body.status];
        ids = statuses.flatMap((status) => runs.withStatus(status).map((run) => run.run_id));
      } else {
        const threadId = body.thread_id && canonicalUuid(body.thread_id);
        ids = body.run_ids.map(canonicalUuid);
        for (const runId of ids) {
          const run = runs.get(runId);
          if (!run || (threadId !== undefined && run.thread_id !== threadId))
            throw new HttpError(
              404,
              threadId ? `Run with ID ${runId} not found for thread ${threadId}.` : `Run with ID ${runId} not found.`,
            );
        }
      }
      engine.cancelRuns(ids, query.action);
      return { status: 204 };
    },
  } satisfies Partial<AgentServerHandlers>;
}

/**
 * A batch item with the LangGraph SDK's camelCase field names read as their snake_case fields
 * (RunBatchItem): `onCompletion` is `on_completion`; a snake_case field given too wins.
 */
function snakeCased(item: RunBatchItem): RunCreate {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    const snake = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    if (snake === key || !Object.hasOwn(item, snake)) fields[snake] = value;
  }
  return fields as RunCreate;
}

/**
 * A run as the API shows it, in the order of LangGraph's servers; what only the engine keeps is
 * left out, and `cancel_reason` when there is none or a list's `select` leaves it out.
 */
function shown(run: RunRow, withCancelReason = true): Run {
  return {
    run_id: run.run_id,
    thread_id: run.thread_id,
    assistant_id: run.assistant_id,
    metadata: run.metadata,
    status: run.status,
    kwargs: shownKwargs(run.kwargs),
    multitask_strategy: run.multitask_strategy,
    created_at: run.created_at,
    updated_at: run.updated_at,
    ...(withCancelReason && run.cancel_reason !== undefined ? { cancel_reason: run.cancel_reason } : {}),
  };
}

/**
 * The request headers a run's graph reads from its `configurable`, as LangGraph's servers pass
 * them: `user-agent` and every `x-` header but the credentials (`x-api-key`, `x-tenant-id`,
 * `x-service-key`).
 */
export function configurableHeaders(headers: Headers): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name === 'user-agent' || (name.startsWith('x-') && !CREDENTIAL_HEADERS.has(name)))
      passed[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return passed;
}

const CREDENTIAL_HEADERS = new Set(['x-api-key', 'x-tenant-id', 'x-service-key']);
