// What the recorder learns from the traffic it passes on: which runs the client made, on which
// threads, with what input, and, for a streamed run (or a joined stream), every event the upstream
// sent, each with when it arrived. The steps of a run are read afterwards from the upstream's
// history (upstream.ts); the streams add what only they carry: the chunks of a model's reply,
// custom events, tool events and timing.
import { createParser } from 'eventsource-parser';
import type { RecordedExchange } from './recording-proxy.js';

type Values = Record<string, unknown>;

/** An event of a run's stream, and when it arrived (ms after the request was sent). */
export interface StreamedEvent {
  at: number;
  event: string;
  data: unknown;
}

/** A run the client made (or streamed), as far as the traffic shows it. */
export interface RunSighting {
  runId: string;
  /** Undefined for a stateless run whose thread the answer did not name. */
  threadId: string | undefined;
  /** A stateless run (made on /runs): a thread of its own. */
  stateless: boolean;
  /** What the run was asked: its input, command and stream settings (the request body of the run's creation). */
  body: Values | undefined;
  /** When the request that made or joined it was sent (epoch ms). */
  startedAt: number;
  /** Its stream, when the client read it (several readers: the longest). */
  events: StreamedEvent[];
}

const UUID = '[0-9a-fA-F-]{36}';
const RUN_CREATE = new RegExp(`^/(?:threads/(${UUID})/)?runs(?:/(wait|stream))?$`);
const RUN_JOIN_STREAM = new RegExp(`^/threads/(${UUID})/runs/(${UUID})/stream$`);
const THREAD_PATH = new RegExp(`^/threads/(${UUID})(?:/|$)`);
/** A command of the thread-centric protocol: `run.start`, `input.respond` and `state.fork` make runs. */
const PROTOCOL_COMMAND = new RegExp(`^/threads/(${UUID})/commands$`);

/** The path of a request target, without its query. */
export const pathOf = (target: string): string => target.split('?')[0]!.replace(/\/+$/, '') || '/';

/** The thread a request is about, when its path names one. */
export function threadOf(target: string): string | undefined {
  return THREAD_PATH.exec(pathOf(target))?.[1]?.toLowerCase();
}

/** The run an exchange made or joined, if it did: read from its path, its answer's headers and body, or its stream's `metadata`. */
export function runSightingOf(exchange: RecordedExchange): RunSighting | undefined {
  if (exchange.status >= 300) return undefined;
  const path = pathOf(exchange.target);
  const commanded = exchange.method === 'POST' ? PROTOCOL_COMMAND.exec(path) : null;
  if (commanded) return commandSightingOf(exchange, commanded[1]!);
  const created = exchange.method === 'POST' ? RUN_CREATE.exec(path) : null;
  const joined = exchange.method === 'GET' ? RUN_JOIN_STREAM.exec(path) : null;
  if (!created && !joined) return undefined;
  const body = created ? parseJson(exchange.requestBody) : undefined;
  const isStream = String(exchange.responseHeaders['content-type'] ?? '').startsWith('text/event-stream');
  const events = isStream ? streamedEvents(exchange.responseChunks) : [];
  const answer = isStream ? undefined : parseJson(Buffer.concat(exchange.responseChunks.map((chunk) => chunk.data)));
  const location = String(exchange.responseHeaders['content-location'] ?? '');
  const metadata = events.find((event) => event.event === 'metadata')?.data as Values | undefined;
  const runId =
    joined?.[2] ??
    (typeof metadata?.run_id === 'string' ? metadata.run_id : undefined) ??
    new RegExp(`/runs/(${UUID})`).exec(location)?.[1] ??
    (typeof (answer as Values | undefined)?.run_id === 'string' ? ((answer as Values).run_id as string) : undefined);
  if (!runId) return undefined;
  const threadId =
    joined?.[1] ??
    created?.[1] ??
    new RegExp(`/threads/(${UUID})/`).exec(location)?.[1] ??
    ((answer as Values | undefined)?.thread_id as string | undefined);
  return {
    runId: runId.toLowerCase(),
    threadId: threadId?.toLowerCase(),
    stateless: created !== null && created[1] === undefined,
    body: body as Values | undefined,
    startedAt: exchange.startedAt,
    events,
  };
}

/**
 * A run a protocol command made (its answer names it), with the body a runs API request for the
 * same run would have had. Its events are the thread's stream's, which this does not read: the run
 * is recorded from the thread's history, each reply whole.
 */
function commandSightingOf(exchange: RecordedExchange, threadId: string): RunSighting | undefined {
  const command = parseJson(exchange.requestBody) as { method?: unknown; params?: Values } | undefined;
  const answer = parseJson(Buffer.concat(exchange.responseChunks.map((chunk) => chunk.data))) as
    | { type?: unknown; result?: { run_id?: unknown } }
    | undefined;
  const runId = answer?.type === 'success' ? answer.result?.run_id : undefined;
  if (typeof runId !== 'string') return undefined;
  const params = command?.params ?? {};
  const responses = (Array.isArray(params.responses) ? params.responses : [params]) as { interrupt_id?: string; response?: unknown }[];
  const body: Values =
    command?.method === 'input.respond'
      ? { command: { resume: Object.fromEntries(responses.map((entry) => [entry.interrupt_id, entry.response])) } }
      : command?.method === 'state.fork'
        ? { input: params.input ?? null, checkpoint_id: params.checkpoint_id }
        : { assistant_id: params.assistant_id, input: params.input ?? null };
  return {
    runId: runId.toLowerCase(),
    threadId: threadId.toLowerCase(),
    stateless: false,
    body,
    startedAt: exchange.startedAt,
    events: [],
  };
}

/** The events of a stream's body, read from its chunks as they arrived. */
export function streamedEvents(chunks: RecordedExchange['responseChunks']): StreamedEvent[] {
  const events: StreamedEvent[] = [];
  let at = 0;
  const parser = createParser({
    onEvent(message) {
      events.push({ at, event: message.event ?? 'message', data: parseJsonText(message.data) });
    },
  });
  const decoder = new TextDecoder();
  for (const chunk of chunks) {
    at = chunk.at;
    parser.feed(decoder.decode(chunk.data, { stream: true }));
  }
  return events;
}

function parseJson(bytes: Buffer): unknown {
  return bytes.length === 0 ? undefined : parseJsonText(bytes.toString('utf8'));
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
