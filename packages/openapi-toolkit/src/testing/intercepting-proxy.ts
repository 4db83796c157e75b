// An HTTP proxy in front of a server under test, which lets a test answer (or hold) chosen requests
// itself: a rate limiter's 429s, a request that never gets its answer. Everything else is
// forwarded as it came, and answered as the server answered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface InterceptingProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `upstream` on a free local port. `intercept` sees each request first: it
 * returns true when it answered (or keeps) the request itself, false to forward it.
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
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
