// Credentials travel as openapi-fetch middleware, so they are set on every request of a client
// (and on each retry, which re-sends the authenticated request).
import type { Middleware } from 'openapi-fetch';

/** A middleware that sets these headers on every request, overriding per-request values. */
export function headersMiddleware(headers: Record<string, string>): Middleware {
  const entries = Object.entries(headers);
  return {
    // Mutates the headers in place and returns nothing: the request object stays the one
    // openapi-fetch built (see OutgoingRequest).
    onRequest({ request }) {
      for (const [name, value] of entries) request.headers.set(name, value);
    },
  };
}
