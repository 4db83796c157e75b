// The recorder's proxy: every request goes to the upstream agent server as it came (with the
// upstream's API key when one is given), and every answer comes back unchanged, streams included,
// each chunk passed on as it arrives. Beside that it keeps a copy of each exchange (the request's
// body, the answer's body and when each chunk of it arrived), which the recording is made from.
//
// node:http on both sides with a keep-alive agent: the proxy adds no parsing of its own to the
// path a request and its answer take (the copy is taken from the same buffers), so what it costs
// a request is one loopback hop.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request and its answer, as the proxy saw them pass. */
export interface RecordedExchange {
  method: string;
  /** The request target: path and query. */
  target: string;
  requestHeaders: Readonly<Record<string, string | string[] | undefined>>;
  requestBody: Buffer;
  /** Whether the upstream got another body than the client sent (rewriteBody). */
  rewritten: boolean;
  status: number;
  responseHeaders: Readonly<Record<string, string | string[] | undefined>>;
  /** The answer's body in the chunks it arrived in, each with its arrival in ms after the request was sent. */
  responseChunks: { at: number; data: Buffer }[];
  /** When the request arrived (epoch ms). */
  startedAt: number;
}

export interface RecordingProxyOptions {
  upstream: URL;
  /** Sent as X-Api-Key on every request to the upstream (in place of the client's). */
  apiKey?: string | undefined;
  port: number;
  host: string;
  /**
   * Each exchange once the upstream's answer has ended; the client gets the answer's end once what
   * it returns has settled (the recorder reads a run's history as the run ends, before the client
   * can go on and delete the thread).
   */
  onExchange(exchange: RecordedExchange): Promise<unknown> | undefined;
  /**
   * Called before a request is passed on; the request waits for it. The recorder reads what a
   * thread holds before a request deletes it.
   */
  beforeForward?(method: string, target: string): Promise<void> | void;
  /** The body the upstream gets in place of the client's (the recorder keeps a stateless run's thread to read it). */
  rewriteBody?(method: string, target: string, body: Buffer): Buffer;
}

export interface RecordingProxy {
  url: string;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and those the proxy sets itself. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
]);

export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const { upstream } = options;
  const secure = upstream.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const basePath = upstream.pathname.replace(/\/$/, '');

  const server = http.createServer((req, res) => {
    const startedAt = Date.now();
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', async () => {
      const method = req.method ?? 'GET';
      const target = req.url ?? '/';
      const requestBody = Buffer.concat(body);
      const forwardedBody = options.rewriteBody?.(method, target, requestBody) ?? requestBody;
      try {
        await options.beforeForward?.(method, target);
      } catch {
        // What the recorder could not read first is left out of the recording; the request goes on.
      }
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) if (!NOT_FORWARDED.has(name) && value !== undefined) headers[name] = value;
      if (options.apiKey) headers['x-api-key'] = options.apiKey;
      if (forwardedBody.length > 0) headers['content-length'] = forwardedBody.length;
      const sent = performance.now();
      const forward = (secure ? https : http).request(
        {
          protocol: upstream.protocol,
          hostname: upstream.hostname,
          port: upstream.port || (secure ? 443 : 80),
          method,
          path: `${basePath}${target}`,
          headers: { ...headers, host: upstream.host },
          agent,
        },
        (answer) => {
          const responseHeaders: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(answer.headers))
            if (!NOT_FORWARDED.has(name) && value !== undefined) responseHeaders[name] = value;
          res.writeHead(answer.statusCode ?? 502, responseHeaders);
          // A stream's events are passed on as they come: no buffering in between.
          res.flushHeaders();
          const chunks: RecordedExchange['responseChunks'] = [];
          answer.on('data', (chunk: Buffer) => {
            chunks.push({ at: performance.now() - sent, data: chunk });
            res.write(chunk);
          });
          answer.on('end', () => {
            const settled = Promise.resolve()
              .then(() =>
                options.onExchange({
                  method,
                  target,
                  requestHeaders: req.headers,
                  requestBody,
                  rewritten: forwardedBody !== requestBody,
                  status: answer.statusCode ?? 502,
                  responseHeaders: answer.headers,
                  responseChunks: chunks,
                  startedAt,
                }),
              )
              // What the recorder could not read it says itself; the client gets its answer all the same.
              .catch(() => undefined);
            void settled.then(() => res.end());
          });
          answer.on('error', () => res.destroy());
          // The client went away: so does the request upstream (a stream with on_disconnect
          // cancel is then cancelled there, as it would be without the proxy).
          res.on('close', () => {
            if (!res.writableFinished) answer.destroy();
          });
        },
      );
      forward.on('error', (error) => {
        if (res.headersSent) return res.destroy();
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: `The upstream agent server ${upstream.origin} could not be reached: ${error.message}` }));
      });
      forward.end(forwardedBody);
    });
  });
  server.keepAliveTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
