// The typed stream readers with an injected fetch: events parsed from SSE frames however the bytes
// are cut, errors before the stream as ApiError, a broken connection rejoined at the stream's
// Location with Last-Event-ID, and an AbortSignal that stops everything.
import { json } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';
import type { RunStreamEvent } from '../src/index.js';
import { ApiError, createAgentServerClient, joinStream, streamRun, streamStatelessRun } from '../src/index.js';

const THREAD_ID = '8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f';
const RUN_ID = '0193a1b2-7c4d-7e5f-8a6b-9c0d1e2f3a4b';
const STREAM_URL = `/threads/${THREAD_ID}/runs/${RUN_ID}/stream`;

const frame = (id: number, event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\nid: ${id}\n\n`;
const FRAMES = [
  frame(0, 'metadata', { run_id: RUN_ID, attempt: 1 }),
  frame(1, 'values', { messages: [{ type: 'human', content: 'hi' }] }),
  ': heartbeat\n',
  frame(2, 'messages', [{ type: 'ai', content: 'Hel', id: 'run-1' }, { langgraph_node: 'agent' }]),
  frame(3, 'values', {
    messages: [
      { type: 'human', content: 'hi' },
      { type: 'ai', content: 'Hello' },
    ],
  }),
];

/** A body that sends `chunks`, then ends, or breaks (errors) when `breakAfter` is set. */
function body(chunks: string[], breakAfter = false): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  // Pulled one chunk at a time: a stream that errors drops what it still queues, and a broken
  // connection has delivered what came before the break.
  return new ReadableStream({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(encoder.encode(chunks[next++]!));
      else if (breakAfter) controller.error(new TypeError('terminated'));
      else controller.close();
    },
  });
}

const sse = (stream: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream', ...headers } });

function client(answer: (request: Request, n: number) => Response) {
  const requests: Request[] = [];
  const fetch = async (request: Request) => {
    requests.push(request);
    return answer(request, requests.length);
  };
  return { api: createAgentServerClient({ baseUrl: 'http://as.test', fetch }), requests };
}

async function collect(events: AsyncIterable<RunStreamEvent>): Promise<RunStreamEvent[]> {
  const seen: RunStreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('streamRun', () => {
  it('yields each event with its data parsed, however the bytes are cut, and skips comment lines', async () => {
    const text = FRAMES.join('');
    // Cut in 7-byte pieces: frames, lines and JSON split anywhere.
    const pieces = Array.from({ length: Math.ceil(text.length / 7) }, (_, i) => text.slice(i * 7, i * 7 + 7));
    const { api, requests } = client(() => sse(body(pieces)));
    const events = await collect(streamRun(api, THREAD_ID, { assistant_id: 'agent', stream_mode: ['values', 'messages-tuple'] }));
    expect(events.map((event) => [event.event, event.id])).toEqual([
      ['metadata', '0'],
      ['values', '1'],
      ['messages', '2'],
      ['values', '3'],
    ]);
    expect(events[2]!.data).toEqual([{ type: 'ai', content: 'Hel', id: 'run-1' }, { langgraph_node: 'agent' }]);
    expect(requests[0]!.method).toBe('POST');
    expect(new URL(requests[0]!.url).pathname).toBe(`/threads/${THREAD_ID}/runs/stream`);
    expect(await requests[0]!.json()).toEqual({ assistant_id: 'agent', stream_mode: ['values', 'messages-tuple'] });
  });

  it('throws the ApiError of a refused request before any event', async () => {
    const { api } = client(() => json(409, { detail: 'Thread is already running a task.' }));
    const error = await collect(streamRun(api, THREAD_ID, { assistant_id: 'agent' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, detail: 'Thread is already running a task.' });
  });

  it('rejoins a broken stream at its Location after the last event it read, without losing or repeating one', async () => {
    const { api, requests } = client((_request, n) =>
      n === 1 ? sse(body(FRAMES.slice(0, 2), true), { location: STREAM_URL }) : sse(body(FRAMES.slice(3))),
    );
    const events = await collect(streamRun(api, THREAD_ID, { assistant_id: 'agent' }));
    expect(events.map((event) => event.id)).toEqual(['0', '1', '2', '3']);
    expect(requests[1]!.method).toBe('GET');
    expect(new URL(requests[1]!.url).pathname).toBe(STREAM_URL);
    expect(requests[1]!.headers.get('last-event-id')).toBe('1');
  });

  it('gives up after `reconnects` attempts, and never rejoins a stream without a Location', async () => {
    const broken = client(() => sse(body(FRAMES.slice(0, 1), true), { location: STREAM_URL }));
    await expect(collect(streamRun(broken.api, THREAD_ID, { assistant_id: 'agent' }, { reconnects: 1 }))).rejects.toThrow('terminated');
    expect(broken.requests).toHaveLength(2);
    const nowhere = client(() => sse(body(FRAMES.slice(0, 1), true)));
    await expect(collect(streamStatelessRun(nowhere.api, { assistant_id: 'agent' }))).rejects.toThrow('terminated');
    expect(nowhere.requests).toHaveLength(1);
  });

  it('stops when the signal aborts', async () => {
    const abort = new AbortController();
    const { api } = client(() =>
      sse(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(FRAMES[0]!));
          },
        }),
        { location: STREAM_URL },
      ),
    );
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of streamRun(api, THREAD_ID, { assistant_id: 'agent' }, { signal: abort.signal })) {
        seen.push(event.event);
        abort.abort();
      }
    })();
    await expect(reading).resolves.toBeUndefined();
    expect(seen).toEqual(['metadata']);
  });
});

describe('joinStream', () => {
  it('sends Last-Event-ID, the stream modes and cancel_on_disconnect as the spec names them', async () => {
    const { api, requests } = client(() => sse(body(FRAMES.slice(4))));
    const events = await collect(
      joinStream(api, THREAD_ID, RUN_ID, { lastEventId: '2', streamMode: ['values'], cancelOnDisconnect: true }),
    );
    expect(events.map((event) => event.event)).toEqual(['values']);
    const url = new URL(requests[0]!.url);
    expect(url.pathname).toBe(STREAM_URL);
    expect(url.searchParams.getAll('stream_mode')).toEqual(['values']);
    expect(url.searchParams.get('cancel_on_disconnect')).toBe('true');
    expect(requests[0]!.headers.get('last-event-id')).toBe('2');
  });
});
