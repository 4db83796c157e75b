// The generative tests' referee: which operation of the spec a request reaches (worked out from
// the bundled spec, not asked of the emulator), whether the answer is one that operation
// declares (its status, its body's schema, its required headers), and a ledger of every answer
// for the figures a run prints.
import type { ListedOperation } from '@agentplane/openapi-toolkit';
import { listOperations, resolveRef } from '@agentplane/openapi-toolkit';
import { expect } from 'vitest';
import type { ApiName, RawRequest, RawResponse } from './harness.js';
import { specOf } from './harness.js';

export const SPECS = { 'agent-server': specOf('agent-server'), 'control-plane': specOf('control-plane') } as const;

export type Issue = { loc: (string | number)[]; type: string; msg: string };

interface Route {
  operation: ListedOperation;
  matcher: RegExp;
  params: string[];
}

const routes: Record<ApiName, Route[]> = { 'agent-server': [], 'control-plane': [] };
for (const api of Object.keys(routes) as ApiName[]) {
  routes[api] = listOperations(SPECS[api].spec)
    .map((operation) => ({
      operation,
      matcher: new RegExp(
        `^${operation.path
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('([^/]+)')}$`,
      ),
      params: [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
    }))
    // A literal path wins over a template that also matches it (`/threads/search`).
    .sort((a, b) => a.params.length - b.params.length);
}

export type Routing =
  | { kind: 'operation'; operation: ListedOperation }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

/** What the spec says a request reaches: an operation, a path without that method, or nothing. */
export function routeOf(api: ApiName, method: string, target: string): Routing {
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const allowed: string[] = [];
  let matched: string | undefined;
  for (const route of routes[api]) {
    // Once a path matches, it is the route: its other methods are a 405 (OpenAPI matches concrete paths first).
    if (matched !== undefined && route.operation.path !== matched) continue;
    if (!route.matcher.test(path)) continue;
    matched = route.operation.path;
    if (route.operation.method.toUpperCase() === method) return { kind: 'operation', operation: route.operation };
    allowed.push(route.operation.method.toUpperCase());
  }
  return allowed.length ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
}

/** A declared response of an operation, its `$ref` resolved. */
export function declaredResponse(api: ApiName, operation: ListedOperation, status: number): any {
  const declared = operation.operation.responses?.[String(status)];
  return declared ? resolveRef(SPECS[api].spec, declared) : undefined;
}

export interface LedgerEntry {
  api: ApiName;
  /** The operation reached, or `(no operation)`. */
  operation: string;
  /** What the request was meant to be: `invalid`, `valid`, `edge`, `random`. */
  kind: string;
  status: number;
}

/** Every answer the generative tests checked, for the figures printed at the end of a run. */
export class AnswerLedger {
  readonly entries: LedgerEntry[] = [];
  undocumented = 0;
  serverErrors = 0;
  acceptedInvalid = 0;

  record(entry: LedgerEntry): void {
    this.entries.push(entry);
    if (entry.status >= 500) this.serverErrors++;
  }

  summary(): string {
    const count = (key: (e: LedgerEntry) => string) => {
      const counts = new Map<string, number>();
      for (const entry of this.entries) counts.set(key(entry), (counts.get(key(entry)) ?? 0) + 1);
      return [...counts]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ');
    };
    return [
      `${this.entries.length} requests (${count((e) => e.api)})`,
      `by kind: ${count((e) => e.kind)}`,
      `by status: ${count((e) => String(e.status))}`,
      `by kind and status class: ${count((e) => `${e.kind} ${String(e.status)[0]}xx`)}`,
      `undocumented answers: ${this.undocumented}, invalid requests accepted: ${this.acceptedInvalid}, 5xx: ${this.serverErrors}`,
    ].join('\n');
  }
}

const describeExchange = (request: RawRequest, response: RawResponse) =>
  `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers ?? {}).slice(0, 300)} ${String(request.body ?? '').slice(0, 300)}\n→ ${response.status} ${response.text.slice(0, 500)}`;

export { describeExchange };

/**
 * Checks that an answer is one the spec declares for the request (its operation's status, body
 * schema and required headers; a 404 or 405 `{detail}` when no operation matches), records it,
 * and returns the issues of a 422.
 */
export function expectDocumented(ledger: AnswerLedger, api: ApiName, kind: string, request: RawRequest, response: RawResponse): Issue[] {
  const where = describeExchange(request, response);
  const routing = routeOf(api, request.method, request.path);
  const operationId = routing.kind === 'operation' ? routing.operation.operationId : '(no operation)';
  ledger.record({ api, operation: operationId, kind, status: response.status });
  const { validate } = SPECS[api];
  const fail = (message: string) => {
    ledger.undocumented++;
    expect.fail(`${message}\n${where}`);
  };
  if (response.status >= 500) fail('a 5xx answer');
  // Node's parser answers requests it cannot read (oversized headers, broken framing) before
  // any routing, with the shared BadRequest and RequestHeaderFieldsTooLarge responses.
  const beforeRouting = response.status === 400 || response.status === 431;

  if (routing.kind !== 'operation' && !beforeRouting) {
    const expected = routing.kind === 'not-found' ? 404 : 405;
    if (response.status !== expected) fail(`expected ${expected}: the spec has no ${request.method} operation for this path`);
    if (request.method !== 'HEAD' && validate('#/components/schemas/ErrorDetail', response.json).errors)
      fail('the body is not an ErrorDetail');
    if (
      expected === 405 &&
      response.headers.allow?.split(', ').sort().join() !== [...new Set((routing as { allowed: string[] }).allowed)].sort().join()
    )
      fail('the Allow header does not list the path methods');
    return [];
  }
  const declared =
    routing.kind === 'operation' ? declaredResponse(api, routing.operation, response.status) : sharedResponse(api, response.status);
  if (!declared) {
    fail(`status ${response.status} is not declared for ${operationId}`);
    return [];
  }
  const schema = declared.content?.['application/json']?.schema;
  if (request.method === 'HEAD') return [];
  if (!schema) {
    if (response.text !== '') fail(`status ${response.status} of ${operationId} is declared without a body`);
    return [];
  }
  if (!/^application\/json\b/.test(response.headers['content-type'] ?? '')) fail('the answer is not application/json');
  const result = validate(schema, response.json);
  if (result.errors) fail(`the body breaks the declared schema: ${result.errors}`);
  for (const [name, header] of Object.entries<any>(declared.headers ?? {})) {
    if (resolveRef(SPECS[api].spec, header).required && response.headers[name.toLowerCase()] === undefined)
      fail(`header ${name} is missing`);
  }
  return response.status === 422 ? (response.json as { detail: Issue[] }).detail : [];
}

/** The shared responses every operation declares (decision S8), for answers given before routing. */
function sharedResponse(api: ApiName, status: number): any {
  const name = status === 400 ? 'BadRequest' : status === 431 ? 'RequestHeaderFieldsTooLarge' : undefined;
  return name ? SPECS[api].spec.components.responses[name] : undefined;
}
