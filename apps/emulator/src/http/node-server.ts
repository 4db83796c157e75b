// The node:http adapter of an API handler: reads the body (bounded), hands the exchange over and
// writes the reply, with no WHATWG Request or Response in between (decision E7: building those
// per request would cost the GET path more than the handler itself). A request to upgrade to a
// WebSocket goes through the same handler (routing, credentials, CORS origins, validation) before
// the handshake, which only an answer with a socket completes (the `ws` package does it).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { ApiHandler, Exchange, Reply } from './api-handler.js';
import type { SocketSession } from './socket-session.js';
import { createBodySink } from './streamed-body.js';

/** A silent WebSocket is pinged this often, and closed when the previous ping got no pong (decision A18's cadence). */
const SOCKET_PING_MS = 5_000;

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
  const sockets = new WebSocketServer({ noServer: true, maxPayload: bodyBytes });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const exchange: Exchange = {
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      headers: req.headers,
      body: null,
      upgrade: (req.headers.upgrade ?? '').toLowerCase() === 'websocket',
    };
    const deliver = (reply: Reply | Promise<Reply>) => {
      if (reply instanceof Promise) reply.then(deliver);
      else
        handle.deliver(reply, (ready) => {
          const session = ready.status === 101 ? ready.socket : undefined;
          if (session && exchange.upgrade) sockets.handleUpgrade(req, socket, head, (connection) => serveSocket(connection, session));
          else
            writeReply(
              socket,
              ready.socket ? { status: 500, headers: {}, body: '{"detail":"Internal emulator error; see its log."}' } : ready,
            );
        });
    };
    deliver(handle(exchange));
  });
  // Stopping the server (closeAllConnections) closes its WebSockets too, which it no longer tracks.
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const connection of sockets.clients) connection.terminate();
  };
  server.keepAliveTimeout = 30_000;
  return server;
}

function serveSocket(connection: WebSocket, session: SocketSession): void {
  const listener = session.open({
    send: (text) => {
      if (connection.readyState === WebSocket.OPEN) connection.send(text);
    },
    close: (code, reason) => connection.close(code, reason),
  });
  let answered = true;
  const ping = setInterval(() => {
    if (!answered) return connection.terminate();
    answered = false;
    connection.ping();
  }, SOCKET_PING_MS);
  ping.unref();
  connection.on('pong', () => {
    answered = true;
  });
  // ws hands a message as one Buffer (its default binaryType); binary messages are read as UTF-8 too.
  connection.on('message', (data: Buffer) => {
    answered = true;
    listener.message(data.toString('utf8'));
  });
  connection.on('close', () => {
    clearInterval(ping);
    listener.closed();
  });
  connection.on('error', () => connection.terminate());
}

/** An answer written on a socket that was not upgraded, and the socket closed. */
function writeReply(socket: Duplex, reply: Reply): void {
  if (!socket.writable) return void socket.destroy();
  const body = reply.body ?? '';
  const headers = Object.entries({ ...reply.headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${reply.status} ${http.STATUS_CODES[reply.status] ?? ''}\r\n${headers}\r\n${body}`);
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
