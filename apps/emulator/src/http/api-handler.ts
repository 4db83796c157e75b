// The HTTP layer of one API, independent of any transport (decision E7): it routes a request to
// the operation the spec declares for its method and path, checks credentials against the
// operation's security alternatives, validates path, query and body (422 in the spec's
// HTTPValidationError shape), calls the operation's handler, and in development and test mode
// checks every answer against the spec. The node:http server and the in-process fetch function
// are thin adapters around it.
//
// Whatever a client sends, the answer is a 4xx with a `detail` body or a valid 2xx: a malformed
// request never reaches a handler, and a handler bug is reported loudly instead of hidden.
import type { ApiContract, ContractOperation } from '../contract/api-contract.js';
import type { AnyHandlers, RawAnswer } from '../contract/handler-types.js';
import type { ValidationIssue } from '../contract/validation-errors.js';
import type { Authenticator, Credentials } from './authenticator.js';
import { HttpError, validationError } from './http-error.js';

/** A request as the adapters hand it over: its body already read. */
export interface Exchange {
  method: string;
  /** The request target as sent: path and query. */
  target: string;
  /** Request headers by lower-case name (node:http's own record, as it parsed them). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body's bytes; null when the request has no body. */
  body: Uint8Array | null;
  /** The body was larger than the limit and was not kept. */
  bodyTooLarge?: boolean;
}

/** An answer as the adapters write it: the body is JSON text. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

export interface ApiHandlerOptions<Principal> {
  contract: ApiContract;
  handlers: AnyHandlers<Principal>;
  authenticator: Authenticator<Principal>;
  /** Check every answer against the spec; a violation becomes a loud 500 and is reported. */
  validateResponses: boolean;
  /** Largest body accepted, in bytes (the adapters enforce it and say so in `bodyTooLarge`). */
  maxBodyBytes: number;
  /** Deepest JSON nesting accepted in a body; deeper ones are a 422 (they could exhaust the stack). */
  maxJsonDepth?: number;
  onContractViolation?: (message: string) => void;
}

export type ApiHandler = (exchange: Exchange) => Reply;

export function createApiHandler<Principal>(options: ApiHandlerOptions<Principal>): ApiHandler {
  const { contract, handlers } = options;
  const missing = contract.operations.filter((op) => !handlers[op.operationId]).map((op) => op.operationId);
  const unknown = Object.keys(handlers).filter((id) => !contract.operations.some((op) => op.operationId === id));
  if (missing.length || unknown.length) {
    throw new Error(
      `handlers do not match the spec: missing ${missing.join(', ') || 'none'}; not in the spec ${unknown.join(', ') || 'none'}`,
    );
  }
  const maxDepth = options.maxJsonDepth ?? 64;
  const readers = credentialReaders(contract);

  const checked = (operation: ContractOperation, answer: RawAnswer): RawAnswer => {
    if (!options.validateResponses) return answer;
    const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    const problem = operation.checkResponse(answer.status, answer.body, headers);
    if (problem === null) return answer;
    const message = `${operation.operationId} answered ${answer.status} against the spec: ${problem}`;
    options.onContractViolation?.(message);
    return { status: 500, body: { detail: `Emulator contract violation: ${message}` } };
  };

  const answer = (exchange: Exchange): RawAnswer => {
    let operation: ContractOperation | undefined;
    try {
      // Split by hand: `new URL` reads a path starting with `//` as a host name and throws.
      const queryAt = exchange.target.indexOf('?');
      const pathname = queryAt < 0 ? exchange.target : exchange.target.slice(0, queryAt);
      const route = matchRoute(contract.operations, exchange.method, pathname);
      if (route.kind === 'not-found') throw new HttpError(404, 'Not Found');
      if (route.kind === 'method-not-allowed') throw new HttpError(405, 'Method Not Allowed', { allow: route.allowed.join(', ') });
      operation = route.operation;

      const auth = options.authenticator.authenticate(operation.security, credentialsOf(exchange, readers.get(operation)!));
      if ('reason' in auth) throw new HttpError(401, auth.reason);
      if (exchange.bodyTooLarge)
        throw new HttpError(413, `Request body larger than ${options.maxBodyBytes} bytes.`, { connection: 'close' });

      const issues: ValidationIssue[] = [];
      const path = route.params;
      issues.push(...(operation.checkPath(path) ?? []));
      const query: Record<string, unknown> = {};
      if (queryAt >= 0) {
        for (const [name, value] of new URLSearchParams(exchange.target.slice(queryAt + 1))) {
          if (!Object.hasOwn(query, name)) query[name] = value;
        }
      }
      issues.push(...(operation.checkQuery(query) ?? []));

      let body: unknown;
      if (operation.body && exchange.body !== null && exchange.body.length > 0) {
        const contentType = (header(exchange, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (!operation.body.mediaTypes.includes(contentType)) {
          const given = contentType ? `"${contentType}"` : '(none)';
          throw new HttpError(415, `Unsupported Content-Type ${given}: send the body as ${operation.body.mediaTypes.join(' or ')}.`);
        }
        body = parseJson(exchange.body, maxDepth);
        issues.push(...(operation.body.check(body) ?? []));
      } else if (operation.body?.required) {
        issues.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
      }
      if (issues.length > 0) throw validationError(issues);

      const handler = handlers[operation.operationId]!;
      return checked(operation, handler({ operationId: operation.operationId, path, query, body, principal: auth.principal }));
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const reply: RawAnswer = { status: error.status, body: { detail: error.detail }, headers: error.headers };
      // Errors of a known operation are part of its contract too (405/413/415 are transport-level).
      return operation && [401, 404, 409, 422].includes(error.status) ? checked(operation, reply) : reply;
    }
  };

  return (exchange) => {
    let raw: RawAnswer;
    try {
      raw = answer(exchange);
    } catch (error) {
      options.onContractViolation?.(`internal error on ${exchange.method} ${exchange.target}: ${(error as Error)?.stack ?? error}`);
      raw = { status: 500, body: { detail: 'Internal emulator error; see its log.' } };
    }
    const headers: Record<string, string> = {};
    if (raw.headers) for (const name in raw.headers) headers[name] = String(raw.headers[name]);
    if (raw.body === undefined) return { status: raw.status, headers };
    headers['content-type'] = 'application/json';
    return { status: raw.status, headers, body: JSON.stringify(raw.body) };
  };
}

type RouteMatch =
  | { kind: 'found'; operation: ContractOperation; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

function matchRoute(operations: ContractOperation[], method: string, pathname: string): RouteMatch {
  const allowed: string[] = [];
  for (const operation of operations) {
    const match = operation.matcher.exec(pathname);
    if (!match) continue;
    if (operation.method !== method) {
      allowed.push(operation.method);
      continue;
    }
    const params: Record<string, string> = {};
    operation.paramNames.forEach((name, i) => {
      params[name] = safeDecode(match[i + 1]!);
    });
    return { kind: 'found', operation, params };
  }
  return allowed.length ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
}

function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Reads one security scheme's credential from a request: its value, or undefined when absent. */
type CredentialReader = { scheme: string; read: (exchange: Exchange) => string | undefined };

/**
 * For every operation, the readers of the schemes its security alternatives name, built once:
 * a request only pays for the credentials its operation can accept.
 */
function credentialReaders(contract: ApiContract): Map<ContractOperation, CredentialReader[]> {
  const readerOf = (name: string): CredentialReader | undefined => {
    const scheme = contract.securitySchemes[name];
    if (scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name) {
      const headerName = scheme.name.toLowerCase();
      return { scheme: name, read: (exchange) => header(exchange, headerName) || undefined };
    }
    if (scheme?.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') {
      return { scheme: name, read: (exchange) => /^Bearer\s+(\S+)\s*$/i.exec(header(exchange, 'authorization') ?? '')?.[1] };
    }
    return undefined;
  };
  return new Map(
    contract.operations.map((operation) => {
      const names = new Set(operation.security.flatMap((requirement) => Object.keys(requirement)));
      return [operation, [...names].map(readerOf).filter((reader) => reader !== undefined)];
    }),
  );
}

/** A request header's value; repeated ones joined as HTTP joins them. */
function header(exchange: Exchange, name: string): string | undefined {
  const value = exchange.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function credentialsOf(exchange: Exchange, readers: CredentialReader[]): Credentials {
  const credentials: Credentials = {};
  for (const { scheme, read } of readers) {
    const value = read(exchange);
    if (value !== undefined) credentials[scheme] = value;
  }
  return credentials;
}

// ignoreBOM keeps a byte order mark in the text, so JSON.parse refuses it as before (a BOM is not JSON).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function parseJson(raw: Uint8Array, maxDepth: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(raw));
  } catch (error) {
    const position = /position (\d+)/.exec(String((error as Error).message))?.[1];
    throw validationError([
      { loc: ['body', Number(position ?? 0)], msg: `JSON decode error: ${(error as Error).message}`, type: 'json_invalid' },
    ]);
  }
  if (nestingDepth(value, maxDepth) > maxDepth) {
    throw validationError([{ loc: ['body'], msg: `JSON nested deeper than ${maxDepth} levels`, type: 'json_too_deep' }]);
  }
  return value;
}

/** Depth of a parsed JSON value, counted without recursion and stopping past `limit`. */
function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return deepest;
}
