// CORS for one API (decision E20), as a decorator of its ApiHandler so that both adapters
// (node:http and fetch) answer it and the HTTP layer itself never sees a preflight: a browser
// sends a preflight without credentials and with no operation's parameters, so routing,
// authentication and validation must not look at it. Every other request, OPTIONS included, goes
// through as before (an OPTIONS that is not a preflight is still the API's 404 or 405) and gets
// the CORS headers its origin is entitled to on whatever it is answered.
import type { ApiContract } from '../contract/api-contract.js';
import type { ApiHandler, Exchange, Reply } from './api-handler.js';

/** Which origins may call: any (`*`), or these (`*` among them means any too). */
export type CorsOrigins = string | readonly string[];

/**
 * Response headers a script reads without their being exposed (the Fetch standard's CORS-safelisted
 * ones), and Connection, which describes the connection rather than the answer.
 */
const READABLE_ANYWAY = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
  'connection',
]);

export function withCors(
  handle: ApiHandler,
  contract: Pick<ApiContract, 'operations' | 'responseHeaders'>,
  origins: CorsOrigins,
): ApiHandler {
  const list = typeof origins === 'string' ? [origins] : origins;
  const anyOrigin = list.includes('*');
  const allowed = new Set(list.map(normaliseOrigin));
  const methods = [...new Set(contract.operations.map((op) => op.method))].sort().join(', ');
  // Exactly what the spec says some answer carries: a client reads nothing else.
  const exposed = contract.responseHeaders.filter((name) => !READABLE_ANYWAY.has(name)).join(', ');

  // With any origin allowed the headers are the same for every request, so no answer varies by
  // Origin, and credentials are not allowed: browsers refuse `*` with them (a client needs none
  // to send its X-Api-Key or Authorization header; only cookies and TLS client certificates are
  // credentials to CORS). With a list, the allowed origin is echoed and trusted with credentials,
  // so that a page that fetches with `credentials: 'include'` works too.
  const openHeaders: Record<string, string> = {
    'access-control-allow-origin': '*',
    ...(exposed ? { 'access-control-expose-headers': exposed } : {}),
  };
  const headersFor = (origin: string | undefined): Record<string, string> | null => {
    if (anyOrigin) return openHeaders;
    if (origin === undefined || !allowed.has(normaliseOrigin(origin))) return null;
    return {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      ...(exposed ? { 'access-control-expose-headers': exposed } : {}),
    };
  };

  const decorate = (reply: Reply, origin: string | undefined): Reply => {
    const headers = headersFor(origin);
    if (headers) Object.assign(reply.headers, headers);
    // Caches must not hand one origin's answer to another.
    if (!anyOrigin) appendVary(reply.headers, 'origin');
    return reply;
  };

  const preflights = new WeakSet<Reply>();
  const refusal = (origin: string): Reply => {
    // The browser only reports "CORS error"; the status and detail say why to whoever looks.
    const body = JSON.stringify({ detail: `Origin ${origin} is not allowed: the emulator's cors.origins does not list it.` });
    const reply: Reply = { status: 403, headers: { 'content-type': 'application/json' }, body };
    preflights.add(reply);
    return reply;
  };
  const preflight = (exchange: Exchange, origin: string): Reply => {
    const headers = headersFor(origin);
    let reply: Reply;
    if (headers === null) {
      reply = refusal(origin);
    } else {
      reply = { status: 204, headers: { ...headers, 'access-control-allow-methods': methods } };
      // Whatever headers the page wants to send are allowed, as the LangGraph server allows them:
      // the origin is trusted, and a header the API does not know is ignored anyway.
      const requested = headerOf(exchange, 'access-control-request-headers');
      const names = requested
        ?.split(',')
        .map((name) => name.trim())
        .filter(Boolean)
        .join(', ');
      if (names) reply.headers['access-control-allow-headers'] = names;
      if (requested !== undefined) appendVary(reply.headers, 'access-control-request-headers');
    }
    if (!anyOrigin) appendVary(reply.headers, 'origin');
    preflights.add(reply);
    return reply;
  };

  const cors = (exchange: Exchange): Reply | Promise<Reply> => {
    const origin = headerOf(exchange, 'origin');
    if (exchange.method === 'OPTIONS' && origin !== undefined && headerOf(exchange, 'access-control-request-method') !== undefined)
      return preflight(exchange, origin);
    // Browsers apply no CORS to a WebSocket: the handshake itself is refused to a page of another origin.
    if (exchange.upgrade && origin !== undefined && headersFor(origin) === null) {
      const refused = refusal(origin);
      appendVary(refused.headers, 'origin');
      return refused;
    }
    const reply = handle(exchange);
    return reply instanceof Promise ? reply.then((later) => decorate(later, origin)) : decorate(reply, origin);
  };
  // A preflight reports nothing the store holds: it is sent at once, not after a commit. An answer
  // the store replaces when its commit failed gets the CORS headers of the one it replaces, so
  // that the page can read the 500.
  const deliver = (reply: Reply, send: (reply: Reply) => void): void => {
    if (preflights.has(reply)) send(reply);
    else handle.deliver(reply, (final) => send(final === reply ? final : withCorsHeadersOf(reply, final)));
  };
  return Object.assign(cors, { limits: handle.limits, deliver });
}

/**
 * An origin as browsers send it (scheme and host lower-case, no default port), so that a
 * configured `http://LocalHost:80` matches; an origin with no such form (an extension's) is kept.
 */
function normaliseOrigin(origin: string): string {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? origin : url.origin;
  } catch {
    return origin;
  }
}

function headerOf(exchange: Exchange, name: string): string | undefined {
  const value = exchange.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function appendVary(headers: Record<string, string>, name: string): void {
  headers.vary = headers.vary ? `${headers.vary}, ${name}` : name;
}

function withCorsHeadersOf(from: Reply, to: Reply): Reply {
  for (const name in from.headers) if (name.startsWith('access-control-') || name === 'vary') to.headers[name] = from.headers[name]!;
  return to;
}
