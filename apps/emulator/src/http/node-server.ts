// The node:http adapter of an API handler: reads the body (bounded), hands the exchange over and
// writes the reply, with no WHATWG Request or Response in between (decision E7: building those
// per request would cost the GET path more than the handler itself).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiHandler, Exchange, Reply } from './api-handler.js';
import { createBodySink } from './streamed-body.js';

export function createNodeServer(handle: ApiHandler): http.Server {
  const { bodyBytes, headerBytes } = handle.limits;
  const server = http.createServer({ maxHeaderSize: headerBytes }, (req, res) => {
    const exchange: Exchange = {
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      headers: req.headers,
      body: null,
      onDisconnect: (listener) => res.once('close', () => res.writableFinished || listener()),
    };
    const deliver = (reply: Reply | Promise<Reply>) => {
      if (reply instanceof Promise) reply.then(deliver);
      else handle.deliver(reply, (ready) => send(res, ready));
    };
    // Without Content-Length or Transfer-Encoding an HTTP/1.1 request has no body (RFC 9112
    // §6.3): answer at once, the common case of every GET. Node discards the empty stream.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      deliver(handle(exchange));
      return;
    }
    readBody(req, bodyBytes).then(
      (body) => deliver(handle(Object.assign(exchange, body))),
      () => res.destroy(),
    );
  });
  // Requests Node's parser refuses (an unknown method, broken framing, oversized headers) never
  // reach the handler above; answer them in the same JSON shape instead of Node's bare 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    writeRaw(socket, status, status === 431 ? 'Request headers too large.' : `Malformed HTTP request (${error.code ?? 'parse error'}).`);
  });
  // CONNECT (a proxy tunnel request) bypasses the request handler too. Its target is a host, not a
  // path, and allows no method: a 405 with an empty Allow (RFC 9110 §10.2.1).
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => writeRaw(socket, 405, 'Method Not Allowed', 'allow: \r\n'));
  server.keepAliveTimeout = 30_000;
  return server;
}

function readBody(req: http.IncomingMessage, limit: number): Promise<Pick<Exchange, 'body' | 'bodyTooLarge'>> {
  const declared = Number(req.headers['content-length'] ?? 0);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? { body: null, bodyTooLarge: true } : { body: Buffer.concat(chunks, size) }));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, reply: Reply): void {
  // A client that went away while its answer was being made is not written to.
  if (res.destroyed) return;
  if (reply.stream) {
    res.writeHead(reply.status, reply.headers);
    // The headers go now, not with the first write: a client sees the stream open at once.
    res.flushHeaders();
    reply.stream.start(
      createBodySink({
        send: (text) => res.write(text),
        finish: () => res.end(),
        whenGone: (listener) => res.once('close', () => res.writableFinished || listener()),
      }),
    );
    return;
  }
  if (reply.bytes) {
    // Written part by part, as they are (no copy joins them); corked, they leave in one write.
    let length = 0;
    for (const part of reply.bytes) length += part.byteLength;
    reply.headers['content-length'] = String(length);
    res.writeHead(reply.status, reply.headers);
    res.cork();
    for (const part of reply.bytes) res.write(part);
    res.end();
    return;
  }
  if (reply.body === undefined) {
    res.writeHead(reply.status, reply.headers).end();
    return;
  }
  // The reply and its headers are this request's own: add the length in place.
  reply.headers['content-length'] = String(Buffer.byteLength(reply.body));
  res.writeHead(reply.status, reply.headers).end(reply.body);
}

function writeRaw(socket: Duplex, status: number, detail: string, extraHeaders = ''): void {
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extraHeaders}connection: close\r\n\r\n${body}`,
  );
}
