// Builds a valid request for any operation of a bundle from the spec itself: path parameters and
// required query parameters from their examples, the body from the first named request example. The contract tests then
// vary one thing at a time (the Prefer header, a credential, one bad value).
import type { listOperations } from '@agentplane/openapi-toolkit';
import { resolveRef } from '@agentplane/openapi-toolkit';

export type Operation = ReturnType<typeof listOperations>[number];

export interface RequestParts {
  url: string;
  init: RequestInit & { headers: Record<string, string> };
}

export function validRequest(
  spec: any,
  baseUrl: string,
  op: Operation,
  overrides: { pathParams?: Record<string, string>; body?: unknown } = {},
): RequestParts {
  let route = op.path;
  for (const parameter of op.parameters.filter((p: any) => p.in === 'path')) {
    const value = overrides.pathParams?.[parameter.name] ?? String(parameter.example ?? parameter.schema?.example);
    route = route.replace(`{${parameter.name}}`, encodeURIComponent(value));
  }
  const required = op.parameters
    .filter((p: any) => p.in === 'query' && p.required)
    .map((p: any) => `${p.name}=${encodeURIComponent(String(p.example ?? p.schema?.example))}`);
  if (required.length > 0) route = `${route}?${required.join('&')}`;
  // An operation that answers a stream accepts it too (decision S10): Prism answers 406 otherwise.
  const accept = streams(spec, op) ? 'application/json, text/event-stream' : 'application/json';
  const headers: Record<string, string> = { accept, 'x-api-key': 'contract-test-key' };
  const init: RequestParts['init'] = { method: op.method.toUpperCase(), headers };
  const body = 'body' in overrides ? overrides.body : firstRequestExample(spec, op);
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return { url: `${baseUrl}${route}`, init };
}

export function firstRequestExample(spec: any, op: Operation): unknown {
  const requestBody = op.operation.requestBody ? resolveRef(spec, op.operation.requestBody) : undefined;
  const examples = requestBody?.content?.['application/json']?.examples;
  if (!examples) return undefined;
  return resolveRef(spec, Object.values(examples)[0]).value;
}

/**
 * Whether the operation's body schema declares itself open (`additionalProperties: true`, as the
 * protocol's command envelope does): an unknown field there is ignored, not refused.
 */
export function openBody(spec: any, op: Operation): boolean {
  const requestBody = op.operation.requestBody ? resolveRef(spec, op.operation.requestBody) : undefined;
  const schema = requestBody?.content?.['application/json']?.schema;
  return schema !== undefined && resolveRef(spec, schema).additionalProperties === true;
}

/**
 * The status the mock answers when `Prefer: code=<status>` asks for `status`. A 101 switches the
 * connection to a WebSocket, and the mock has no sockets: its front answers the spec's 426 for a
 * server that does not upgrade instead (the thread's WebSocket is the emulator's).
 */
export function mockStatus(status: string): string {
  return status === '101' ? '426' : status;
}

/** Whether a success of the operation is a stream of events (`text/event-stream`). */
export function streams(spec: any, op: Operation): boolean {
  return Object.entries(op.operation.responses).some(
    ([status, response]) => status.startsWith('2') && resolveRef(spec, response).content?.['text/event-stream'] !== undefined,
  );
}

/** The media type of that answer's body: JSON, or a stream's text (whose schema is a string). */
function bodyMedia(spec: any, op: Operation, status: string): any {
  const content = resolveRef(spec, op.operation.responses[status]).content;
  return content?.['application/json'] ?? content?.['text/event-stream'];
}

/** The JSON schema of that answer's body, or undefined for an answer without a body (204). */
export function responseSchema(spec: any, op: Operation, status: string): object | undefined {
  return bodyMedia(spec, op, status)?.schema;
}

export function responseExamples(spec: any, op: Operation, status: string): [string, unknown][] {
  const examples = bodyMedia(spec, op, status)?.examples ?? {};
  return Object.entries(examples).map(([name, example]) => [name, resolveRef(spec, example).value]);
}

export async function send({ url, init }: RequestParts): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // leave non-JSON bodies as text: the assertion that follows names them
  }
  return { status: response.status, headers: response.headers, body };
}
