// A body written while the response is open, through both adapters (node:http and fetch): the
// headers go out before the first frame, each frame reaches the client as it is written, the
// client going away is heard once, and nothing is written after the end or after the client left.
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiHandler, Reply } from '../src/http/api-handler.js';
import { createFetchHandler } from '../src/http/fetch-handler.js';
import { createNodeServer } from '../src/http/node-server.js';
import type { BodySink } from '../src/http/streamed-body.js';

/** A handler whose every answer is a stream the test drives through the sink it is given. */
function streamingHandler(): { handle: ApiHandler; sink: Promise<BodySink> } {
  let started!: (sink: BodySink) => void;
  const sink = new Promise<BodySink>((resolve) => {
    started = resolve;
  });
  const reply = (): Reply => ({
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'content-location': '/runs/1' },
    stream: { start: started },
  });
  const handle = Object.assign(reply, {
    limits: { bodyBytes: 1024, headerBytes: 16_384, jsonDepth: 10 },
    deliver: (ready: Reply, send: (reply: Reply) => void) => send(ready),
  });
  return { handle, sink };
}

/** Reads a web stream's chunks as text, one `read()` at a time. */
function textReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  return {
    async next(): Promise<string | null> {
      const { done, value } = await reader.read();
      return done ? null : decoder.decode(value);
    },
    cancel: () => reader.cancel(),
  };
}

const closes = new Set<() => Promise<void>>();
afterEach(async () => {
  for (const close of closes) await close();
  closes.clear();
});

async function overNodeHttp(handle: ApiHandler): Promise<string> {
  const server = createNodeServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closes.add(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const transports = {
  'node:http': async (handle: ApiHandler, signal: AbortSignal) => fetch(`${await overNodeHttp(handle)}/stream`, { signal }),
  fetch: (handle: ApiHandler, signal: AbortSignal) => createFetchHandler(handle)('http://emulator/stream', { signal }),
};

describe.each(Object.entries(transports))('a streamed body over %s', (_name, request) => {
  it('sends the headers at once and each frame as it is written, then ends', async () => {
    const { handle, sink } = streamingHandler();
    const response = await request(handle, new AbortController().signal);
    // The response is there before any frame was written: the headers did not wait for a body.
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('content-location')).toBe('/runs/1');
    const writer = await sink;
    const reader = textReader(response.body!);
    expect(writer.write('event: one\n\n')).toBe(true);
    expect(await reader.next()).toBe('event: one\n\n');
    writer.write('event: two\n\n');
    expect(await reader.next()).toBe('event: two\n\n');
    writer.end();
    expect(writer.closed).toBe(true);
    expect(writer.write('event: late\n\n')).toBe(false);
    writer.end();
    expect(await reader.next()).toBeNull();
  });

  it('hears the client going away once, and writes nothing after it', async () => {
    const { handle, sink } = streamingHandler();
    const abort = new AbortController();
    const response = await request(handle, abort.signal);
    const writer = await sink;
    let heard = 0;
    const gone = new Promise<void>((resolve) =>
      writer.onClose(() => {
        heard++;
        resolve();
      }),
    );
    const reader = textReader(response.body!);
    writer.write('event: one\n\n');
    expect(await reader.next()).toBe('event: one\n\n');
    abort.abort();
    await gone;
    expect(writer.closed).toBe(true);
    expect(writer.write('event: after\n\n')).toBe(false);
    writer.end();
    expect(heard).toBe(1);
  });

  it('does not call a close listener once the producer ended the response', async () => {
    const { handle, sink } = streamingHandler();
    const response = await request(handle, new AbortController().signal);
    const writer = await sink;
    let heard = 0;
    writer.onClose(() => heard++);
    writer.write('event: only\n\n');
    writer.end();
    expect(await response.text()).toBe('event: only\n\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).toBe(0);
  });
});
