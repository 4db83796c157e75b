// Streamed runs as async iterables of typed events (RunStreamEvent, from the spec's
// `x-event-schema`): `for await (const event of streamRun(client, threadId, body))`.
//   - The SSE framing is read by eventsource-parser; each event's `data` is parsed as JSON.
//   - An AbortSignal stops the iteration and closes the connection (the server keeps the run
//     unless the run asked for `on_disconnect: cancel`).
//   - A connection that breaks mid-stream is resumed: the stream answers with `Location`, the URL
//     of the run's stream, and the client rejoins it there with `Last-Event-ID`, so no event is
//     lost or repeated (a bounded number of times, with a growing pause between attempts).
// A refused request (404, 409, 422, ...) throws the ApiError every other call throws.
import { ApiError } from '@agentplane/client-core';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { AgentServerClient } from './client.js';
import type { operations, RunCreate, RunStreamEvent } from './generated/openapi.js';

export interface StreamOptions {
  signal?: AbortSignal;
  /**
   * How many times a broken connection is rejoined before the error is thrown (default 5; 0
   * never rejoins). Only a stream that named its URL (`Location`) can be rejoined.
   */
  reconnects?: number;
}

export interface JoinStreamOptions extends StreamOptions {
  /** Continue after this event (`-1`: every event from the first). */
  lastEventId?: string;
  /** Only the events of these stream modes (`metadata` and `error` always come). */
  streamMode?: NonNullable<NonNullable<operations['joinRunStream']['parameters']['query']>['stream_mode']>;
  /** Cancel the run when this client goes away before it ended. */
  cancelOnDisconnect?: boolean;
}

/** Creates a run on a thread and yields its events as they happen. */
export function streamRun(
  client: AgentServerClient,
  threadId: string,
  body: RunCreate,
  options: StreamOptions = {},
): AsyncGenerator<RunStreamEvent, void, undefined> {
  return follow(
    client,
    () =>
      client.POST('/threads/{thread_id}/runs/stream', {
        params: { path: { thread_id: threadId } },
        body,
        parseAs: 'stream',
        ...signalOf(options),
      } as never),
    options,
  );
}

/** Creates a stateless run (on a thread of its own) and yields its events as they happen. */
export function streamStatelessRun(
  client: AgentServerClient,
  body: RunCreate,
  options: StreamOptions = {},
): AsyncGenerator<RunStreamEvent, void, undefined> {
  return follow(client, () => client.POST('/runs/stream', { body, parseAs: 'stream', ...signalOf(options) } as never), options);
}

/** Yields a run's events: after `lastEventId`, or from its first while it is in flight. */
export function joinStream(
  client: AgentServerClient,
  threadId: string,
  runId: string,
  options: JoinStreamOptions = {},
): AsyncGenerator<RunStreamEvent, void, undefined> {
  return follow(
    client,
    () =>
      client.GET('/threads/{thread_id}/runs/{run_id}/stream', {
        params: {
          path: { thread_id: threadId, run_id: runId },
          query: {
            ...(options.streamMode ? { stream_mode: options.streamMode } : {}),
            ...(options.cancelOnDisconnect ? { cancel_on_disconnect: true } : {}),
          },
          ...(options.lastEventId !== undefined ? { header: { 'Last-Event-ID': options.lastEventId } } : {}),
        },
        parseAs: 'stream',
        ...signalOf(options),
      } as never),
    options,
  );
}

const signalOf = (options: StreamOptions) => (options.signal ? { signal: options.signal } : {});

type StreamResult = { data?: unknown; error?: unknown; response: Response };

/** Reads a stream's events, rejoining it at its `Location` with `Last-Event-ID` when the connection breaks. */
async function* follow(
  client: AgentServerClient,
  open: () => Promise<unknown>,
  options: StreamOptions,
): AsyncGenerator<RunStreamEvent, void, undefined> {
  const reconnects = options.reconnects ?? 5;
  let request = open;
  let lastEventId: string | undefined;
  for (let attempt = 0; ; attempt++) {
    const result = (await request()) as StreamResult;
    if (!result.response.ok || result.error !== undefined)
      throw new ApiError(result.response.status, result.error, result.response.url || 'request');
    const location = result.response.headers.get('location');
    try {
      for await (const event of eventsOf(result.data as ReadableStream<Uint8Array>, options.signal)) {
        if (event.id !== undefined) lastEventId = event.id;
        yield event;
      }
      return;
    } catch (error) {
      if (options.signal?.aborted || !location || attempt >= reconnects) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 5000)));
    const resumeAfter = lastEventId ?? '-1';
    request = () =>
      client.GET(
        location as never,
        {
          params: { header: { 'Last-Event-ID': resumeAfter } },
          parseAs: 'stream',
          ...signalOf(options),
        } as never,
      );
  }
}

/** The events of an SSE body, each `data` read as JSON, until the body ends or `signal` aborts. */
export async function* eventsOf<Event = RunStreamEvent>(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
): AsyncGenerator<Event, void, undefined> {
  const reader = body
    // TypeScript's DOM lib types the decoder's input as BufferSource, which a byte stream is.
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  let finished = false;
  const stop = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const { event, data, id } = read.value;
      yield { event, data: JSON.parse(data), ...(id === undefined ? {} : { id }) } as Event;
    }
    finished = true;
  } finally {
    // A consumer that stops early (break, return) closes the connection.
    signal?.removeEventListener('abort', stop);
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
