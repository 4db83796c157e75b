// Canned answers for unit tests that inject `fetch`.

/** A JSON `Response` with this status, body and extra headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}
