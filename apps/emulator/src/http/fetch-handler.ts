// The in-process adapter of an API handler: a `fetch`-compatible function, so that a test can
// hand it to our clients, the LangGraph SDK or any client that takes a fetch implementation, and
// talk to the emulator with no port and no socket (decision E7). The host part of the URL is not
// looked at.
import type { ApiHandler, Exchange, Reply } from './api-handler.js';
import type { FetchFunction } from './fetch-function.js';
import type { StreamedBody } from './streamed-body.js';
import { createBodySink } from './streamed-body.js';

export function createFetchHandler(handle: ApiHandler): FetchFunction {
  return async (input, init) => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    const url = new URL(request.url);
    const body = request.body === null ? { body: null } : await readBody(request.body, handle.limits.bodyBytes);
    const handled = await handle({
      method: request.method,
      target: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(request.headers),
      ...body,
      // The caller aborting its request is a client going away.
      onDisconnect: (listener) => request.signal.addEventListener('abort', listener, { once: true }),
    });
    const reply = await new Promise<Reply>((resolve) => handle.deliver(handled, resolve));
    if (reply.stream) return new Response(streamOf(reply.stream, request.signal), { status: reply.status, headers: reply.headers });
    const answer = reply.bytes ? Buffer.concat(reply.bytes) : (reply.body ?? null);
    return new Response(answer, { status: reply.status, headers: reply.headers });
  };
}

/** A streamed body as a web stream: the reader cancelling it, or the request aborting, is the client going away. */
function streamOf(body: StreamedBody, signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let gone: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.start(
        createBodySink({
          send: (text) => controller.enqueue(encoder.encode(text)),
          finish: () => controller.close(),
          whenGone: (listener) => {
            gone = listener;
            signal.addEventListener('abort', listener, { once: true });
          },
        }),
      );
    },
    cancel() {
      gone?.();
    },
  });
}

async function readBody(stream: ReadableStream<Uint8Array>, limit: number): Promise<Pick<Exchange, 'body' | 'bodyTooLarge'>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.length;
    if (size > limit) {
      await reader.cancel();
      return { body: null, bodyTooLarge: true };
    }
    chunks.push(read.value);
  }
  return { body: Buffer.concat(chunks, size) };
}
