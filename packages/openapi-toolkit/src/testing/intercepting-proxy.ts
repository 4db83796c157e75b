// An HTTP proxy in front of a server under test, which lets a test answer (or hold) chosen requests
// itself: a rate limiter's 429s, a request that never gets its answer. Everything else is
// forwarded as it came, and answered as the server answered, a WebSocket's handshake included:
// a proxy that dropped it would leave the client waiting for an answer that never comes.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface InterceptingProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `upstream` on a free local port. `intercept` sees each request first: it
 * returns true when it answered (or keeps) the request itself, false to forward it. A request to
 * switch protocols (a WebSocket's handshake) is forwarded without being shown to it: there is no
 * response object to answer it with.
 */
export async function startInterceptingProxy(
  upstream: string,
  intercept: (request: http.IncomingMessage, response: http.ServerResponse) => boolean,
): Promise<InterceptingProxy> {
  const proxy = http.createServer((request, response) => {
    if (intercept(request, response)) return;
    const forwarded = http.request(
      new URL(request.url ?? '/', upstream),
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  // Upgraded connections leave the server's keeping: closing the proxy ends them itself.
  const upgraded = new Set<Duplex>();
  proxy.on('upgrade', (request: http.IncomingMessage, client: Socket, head: Buffer) => {
    const forwarded = http.request(new URL(request.url ?? '/', upstream), { method: request.method, headers: request.headers });
    const end = () => {
      for (const socket of pair) socket.destroy();
    };
    const pair: Duplex[] = [client];
    upgraded.add(client);
    client.on('error', end).on('close', () => upgraded.delete(client));
    forwarded.on('upgrade', (answer, server, serverHead) => {
      pair.push(server);
      upgraded.add(server);
      server.on('error', end).on('close', () => upgraded.delete(server));
      client.write(statusAndHeaders(answer));
      if (serverHead.length > 0) client.write(serverHead);
      if (head.length > 0) server.write(head);
      server.pipe(client).pipe(server);
    });
    // Refused before the switch (a 401, a 403, a 426): that answer, as the server gave it.
    forwarded.on('response', (answer) => {
      client.write(statusAndHeaders(answer));
      answer.pipe(client);
    });
    forwarded.on('error', end);
    forwarded.end();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}

/** An answer's status line and headers, as they came, for a raw socket. */
function statusAndHeaders(answer: http.IncomingMessage): string {
  const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`];
  for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
