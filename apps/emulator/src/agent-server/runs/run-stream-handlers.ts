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
import { resumeFrom, runEventStream, threadEventStream } from './run-stream.js';

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

  /** Creates a run and streams all of its events from the first, as LangGraph does for the request that made it. */
  const createAndStream = (threadId: string | null, body: RunCreate, headers: Headers) => {
    const run = engine.create(threadId, body, configurableHeaders(headers));
    // The log is taken now: however fast the run goes, this stream reads it from its first event.
    const log = engine.events.open(run.run_id);
    const stream = runEventStream({
      log,
      from: 0,
      heartbeatMs,
      onClientGone: body.on_disconnect === 'cancel' ? cancel(run) : undefined,
    });
    return { run, stream };
  };
  /** Where a client that lost a run's stream rejoins it with Last-Event-ID (the SDK reconnects there). */
  const streamLocation = (run: RunRow) => `${runLocation(run, false)}/stream`;

  return {
    streamRun({ path, body, headers }) {
      const { run, stream } = createAndStream(path.thread_id, body, headers);
      return {
        status: 200,
        headers: { ...EVENT_STREAM_HEADERS, 'Content-Location': runLocation(run, false), Location: streamLocation(run) },
        stream,
      };
    },

    streamStatelessRun({ body, headers }) {
      const { run, stream } = createAndStream(null, body, headers);
      return { status: 200, headers: { ...EVENT_STREAM_HEADERS, 'Content-Location': runLocation(run, true) }, stream };
    },

    joinRunStream({ path, query, headers }) {
      const run = requireRun(path);
      const lastEventId = firstValue(headers['last-event-id']);
      return {
        status: 200,
        headers: { ...EVENT_STREAM_HEADERS, Location: streamLocation(run) },
        stream: runEventStream({
          // An ended run's events are readable only when its stream was resumable; else the stream
          // ends at once. A run in flight is read from its first event, or after Last-Event-ID.
          log: run.outcome ? engine.events.readable(run.run_id) : engine.events.open(run.run_id),
          from: resumeFrom(lastEventId) ?? (run.outcome ? undefined : 0),
          heartbeatMs,
          onClientGone: query.cancel_on_disconnect ? cancel(run) : undefined,
          modes: query.stream_mode,
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
