// The streaming run operations of the agent server API: create a run and stream it (on a thread or
// stateless), and join a run's stream. The run engine writes each run's events once
// (runs/run-events.ts); these handlers only pick where a stream starts reading, what its response
// headers say, and whether a client going away cancels the run (runs/run-stream.ts reads).
import type { RunCreate } from '@agentplane/agent-server';
import { HttpError } from '../../http/http-error.js';
import { canonicalUuid } from '../../shared/ids.js';
import type { AgentServerHandlers } from '../handler-map.js';
import type { ThreadStore } from '../threads/thread-store.js';
import type { RunEngine } from './run-engine.js';
import { configurableHeaders, runFinder, runLocation } from './run-handlers.js';
import type { RunRow, RunStore } from './run-store.js';
import { joinFrom, runEventStream, threadEventStream } from './run-stream.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const firstValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export interface RunStreamOptions {
  /** A comment line after this long without an event (decisions A18, E21). */
  heartbeatMs?: number;
}

/** A stream sends a heartbeat after this long without an event (decision A18). */
export const STREAM_HEARTBEAT_MS = 5_000;

const EVENT_STREAM_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };

export function runStreamHandlers(engine: RunEngine, runs: RunStore, threads: ThreadStore, options: RunStreamOptions = {}) {
  const heartbeatMs = options.heartbeatMs ?? STREAM_HEARTBEAT_MS;
  const requireRun = runFinder(runs, threads);
  const cancel = (run: RunRow) => () => engine.cancelRuns([run.run_id], 'interrupt');

  /**
   * Creates a run and streams all of its events from the first, as LangGraph does for the request
   * that made it; `namespaces` keeps those of these namespaces, and one below the root makes the
   * run stream its subgraphs, as `stream_subgraphs` does.
   */
  const createAndStream = (threadId: string | null, body: RunCreate, headers: Headers, namespaces: string[] | undefined) => {
    const subgraphs = namespaces?.some((namespace) => namespace !== '') === true;
    const run = engine.create(threadId, subgraphs ? { ...body, stream_subgraphs: true } : body, configurableHeaders(headers));
    // The log is taken now: however fast the run goes, this stream reads it from its first event.
    const log = engine.events.open(run.run_id);
    const stream = runEventStream({
      log,
      from: 0,
      heartbeatMs,
      onClientGone: body.on_disconnect === 'cancel' ? cancel(run) : undefined,
      namespaces,
    });
    return { run, stream };
  };
  /** Where a client that lost a run's stream rejoins it with Last-Event-ID (the SDK reconnects there). */
  const streamLocation = (run: RunRow) => `${runLocation(run, false)}/stream`;

  return {
    streamRun({ path, query, body, headers }) {
      const { run, stream } = createAndStream(path.thread_id, body, headers, query.namespace);
      return {
        status: 200,
        headers: { ...EVENT_STREAM_HEADERS, 'Content-Location': runLocation(run, false), Location: streamLocation(run) },
        stream,
      };
    },

    streamStatelessRun({ query, body, headers }) {
      const { run, stream } = createAndStream(null, body, headers, query.namespace);
      return { status: 200, headers: { ...EVENT_STREAM_HEADERS, 'Content-Location': runLocation(run, true) }, stream };
    },

    joinRunStream({ path, query, headers }) {
      const run = requireRun(path);
      const lastEventId = firstValue(headers['last-event-id']);
      // An ended run's events are readable only when its stream was resumable; else the stream
      // ends at once. A run in flight is read from its first event, after Last-Event-ID, or after
      // the checkpoint the client shows.
      const log = run.outcome ? engine.events.readable(run.run_id) : engine.events.open(run.run_id);
      const checkpointId = query.checkpoint_id === undefined ? undefined : canonicalUuid(query.checkpoint_id);
      return {
        status: 200,
        headers: { ...EVENT_STREAM_HEADERS, Location: streamLocation(run) },
        stream: runEventStream({
          log,
          from: joinFrom(lastEventId, checkpointId, log, run.outcome ? undefined : 0),
          heartbeatMs,
          onClientGone: query.cancel_on_disconnect ? cancel(run) : undefined,
          modes: query.stream_mode,
          namespaces: query.namespace,
        }),
      };
    },

    joinThreadStream({ path, headers }) {
      const threadId = canonicalUuid(path.thread_id);
      if (!threads.exists(threadId)) throw new HttpError(404, `Thread with ID ${threadId} not found.`);
      return {
        status: 200,
        headers: EVENT_STREAM_HEADERS,
        stream: threadEventStream({
          events: engine.events,
          threadId,
          executing: engine.executingRun(threadId),
          lastEventId: firstValue(headers['last-event-id']),
          heartbeatMs,
        }),
      };
    },
  } satisfies Partial<AgentServerHandlers>;
}
