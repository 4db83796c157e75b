// A run's events as a server-sent event stream: the reader side of the run's log (run-events.ts).
// It only reads what the run engine wrote: it replays the events the client has not seen, follows
// the new ones, frames each as LangGraph's servers do (`event:`, `data:`, `id:`), keeps a silent
// connection alive with comment lines, and ends with the run. A client that goes away stops the
// reading, and cancels the run only when the request asked for that.
import type { StreamedBody } from '../../http/streamed-body.js';
import type { RunEvent, RunEventLog, RunEvents } from './run-events.js';

export interface RunStreamOptions {
  /** The run's log; undefined when the run ended and its events were not kept (the stream ends at once). */
  log: RunEventLog | undefined;
  /**
   * The first event to send, by its place in the log: 0 for everything (the request that created
   * the run, or `Last-Event-ID: -1`), `id + 1` after a `Last-Event-ID`, undefined for the events
   * from now on (joining without one).
   */
  from: number | undefined;
  /** A comment line after this long without a frame, so that proxies and clients see the connection live. */
  heartbeatMs: number;
  /** Called once when the client goes away before the run ended (cancel the run, if asked to). */
  onClientGone?: () => void;
  /** Only the events of these stream modes (`metadata` and `error` always pass); all when undefined. */
  modes?: readonly string[];
  /** Only the events of these namespaces (`namespacesFilter`); all when undefined. */
  namespaces?: readonly string[];
}

export function runEventStream(options: RunStreamOptions): StreamedBody {
  return {
    start(sink) {
      const { log } = options;
      if (!log) {
        sink.end();
        return;
      }
      const wanted = options.modes === undefined ? undefined : new Set(options.modes);
      const inNamespaces = options.namespaces === undefined ? undefined : namespacesFilter(options.namespaces);
      // After a Last-Event-ID beyond what the run has sent so far, the events up to it are skipped
      // as they come too: replayed or followed, only events after the id are sent.
      const first = options.from ?? 0;
      const send = (event: RunEvent) => {
        if (event.id < first) return;
        const mode = modeOf(event.event);
        if (wanted && mode !== ALWAYS && !wanted.has(mode)) return;
        if (inNamespaces && mode !== ALWAYS && !inNamespaces(event.event)) return;
        sink.write(frameOf(event.event, event.data, String(event.id)));
        heartbeat.refresh();
      };
      const heartbeat = setInterval(() => sink.write(HEARTBEAT), options.heartbeatMs);
      heartbeat.unref();
      const finish = () => {
        clearInterval(heartbeat);
        sink.end();
      };
      // Replay and subscribe in one turn: no event can slip in between.
      if (options.from !== undefined) for (const event of log.events.slice(first)) send(event);
      const unfollow = log.follow(send, finish);
      sink.onClose(() => {
        clearInterval(heartbeat);
        unfollow();
        if (!log.ended) options.onClientGone?.();
      });
    },
  };
}

/**
 * A thread's stream: the events of each run of the thread as it executes, one run after the other,
 * until the client leaves or the thread is deleted. Its ids are `<run_id>:<n>`, so that
 * `Last-Event-ID` names the run and the place in it.
 */
export function threadEventStream(options: {
  events: RunEvents;
  threadId: string;
  /** The run the thread is executing now, if any. */
  executing: string | undefined;
  lastEventId: string | undefined;
  heartbeatMs: number;
}): StreamedBody {
  return {
    start(sink) {
      const { events, threadId } = options;
      const heartbeat = setInterval(() => sink.write(HEARTBEAT), options.heartbeatMs);
      heartbeat.unref();
      let unfollow = () => {};
      const follow = (runId: string, log: RunEventLog, from: number) => {
        unfollow();
        const send = (event: RunEvent) => {
          // A Last-Event-ID beyond what the run has sent: the events up to it are skipped as they come.
          if (event.id < from) return;
          sink.write(frameOf(event.event, event.data, `${runId}:${event.id}`));
          heartbeat.refresh();
        };
        for (const event of log.events.slice(from)) send(event);
        unfollow = log.follow(send, () => {});
      };
      const finish = () => {
        clearInterval(heartbeat);
        unfollow();
        unwatch();
        sink.end();
      };
      const unwatch = events.watchThread(threadId, { onRun: (runId, log) => follow(runId, log, 0), onGone: finish });
      // Continue the run the client last heard of, if its events are still here; else join the run executing now.
      const resumed = /^(?<runId>[0-9a-f-]{36}):(?<n>\d+)$/.exec(options.lastEventId ?? '')?.groups;
      const resumedLog = resumed && events.readable(resumed.runId!);
      if (resumed && resumedLog) follow(resumed.runId!, resumedLog, Number(resumed.n) + 1);
      else if (options.executing) {
        const log = events.get(options.executing);
        if (log) follow(options.executing, log, 0);
      }
      sink.onClose(() => {
        clearInterval(heartbeat);
        unfollow();
        unwatch();
      });
    },
  };
}

const ALWAYS = '*';

/**
 * A comment line, and no blank line after it: a blank line would end an event, and the LangGraph
 * SDK's decoder then yields an empty event (it keeps the last event ID, so the block is not empty).
 */
const HEARTBEAT = ': heartbeat\n';

/** The stream mode an event belongs to; `metadata` and `error` belong to every stream (ALWAYS). */
function modeOf(event: string): string {
  const name = event.split('|')[0]!;
  if (name === 'messages') return 'messages-tuple';
  if (name.startsWith('messages/')) return 'messages';
  if (name === 'metadata' || name === 'error') return ALWAYS;
  return name;
}

/**
 * Whether an event belongs to one of the namespaces a stream asks for (the spec's `namespace`
 * parameter): `""` is the root graph, a subgraph's is its levels `<node>:<task id>` joined by `|`,
 * and a level given as the node alone matches any task of that node. An event belongs to the
 * namespace its name carries after the mode (none: the root), a `messages` event to the graph of
 * the node that made the message (its namespace less that node's task). Exact: a namespace does
 * not take in the subgraphs inside it.
 */
export function namespacesFilter(namespaces: readonly string[]): (event: string) => boolean {
  const wanted = namespaces.map((namespace) => (namespace === '' ? [] : namespace.split('|')));
  return (event) => {
    const [mode, ...levels] = event.split('|');
    const graph = mode === 'messages' ? levels.slice(0, -1) : levels;
    return wanted.some(
      (namespace) =>
        namespace.length === graph.length &&
        namespace.every((level, i) => level === graph[i] || (!level.includes(':') && graph[i]!.split(':')[0] === level)),
    );
  };
}

/**
 * Where a join starts reading a run's log: after the event a `Last-Event-ID` names; else, given
 * the checkpoint the client shows, after the run wrote it (from the first event when the run did
 * not write it); else `fallback`. `Last-Event-ID: -1` names no event: it asks for the whole run.
 */
export function joinFrom(
  lastEventId: string | undefined,
  checkpointId: string | undefined,
  log: RunEventLog | undefined,
  fallback: number | undefined,
): number | undefined {
  const afterEvent = resumeFrom(lastEventId);
  if (afterEvent !== undefined && afterEvent > 0) return afterEvent;
  if (checkpointId !== undefined) return log?.afterCheckpoint(checkpointId) ?? 0;
  return afterEvent ?? fallback;
}

/**
 * One event as an SSE frame; `data` is one line of JSON (JSON never holds a raw line break).
 * Every event has an ID, so that a client can resume after it.
 */
export function frameOf(event: string, data: unknown, id: string): string {
  return `event: ${event}\ndata: ${JSON.stringify(data) ?? 'null'}\nid: ${id}\n\n`;
}

/**
 * Where a stream resumes after `Last-Event-ID`: the event after it; `-1` (or anything before the
 * first event) replays from the start. Undefined when the header is absent or not a number.
 */
export function resumeFrom(lastEventId: string | undefined): number | undefined {
  if (lastEventId === undefined || !/^-?\d+$/.test(lastEventId.trim())) return undefined;
  return Math.max(Number(lastEventId) + 1, 0);
}
