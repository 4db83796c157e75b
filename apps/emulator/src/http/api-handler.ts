// The HTTP layer of one API, independent of any transport (decision E7): it routes a request to
// the operation the spec declares for its method and path, checks credentials against the
// operation's security alternatives, validates path, query and body (422 in the spec's
// HTTPValidationError shape), calls the operation's handler, and in development and test mode
// checks every answer against the spec. The node:http server and the in-process fetch function
// are thin adapters around it.
//
// Whatever a client sends, the answer is one the operation declares (a 4xx with a `detail` body
// or a valid 2xx; 404 and 405 when no operation matches): a malformed request never reaches a
// handler, and a handler bug is reported loudly instead of hidden.
import type { ApiContract, ContractOperation, RequestLimits } from '../contract/api-contract.js';
import { JsonText } from '../contract/json-text.js';
import type { ScalarTextType } from '../contract/parameter-text.js';
import { decodeParameter, readParameterText, splitQuery } from '../contract/parameter-text.js';
import type { ValidationIssue } from '../contract/validation-errors.js';
import type { CommitGroup } from '../store/commit-group.js';
import type { Authenticator, Credentials } from './authenticator.js';
import { checkedStream } from './checked-stream.js';
import type { AnyHandlers, RawAnswer } from './handler-types.js';
import { HttpError, validationError } from './http-error.js';
import { readJsonBody } from './json-body.js';
import type { SocketSession } from './socket-session.js';
import { checkedSocket } from './socket-session.js';
import type { StreamedBody } from './streamed-body.js';

/** A request as the adapters hand it over: its body already read. */
export interface Exchange {
  method: string;
  /** The request target as sent: path and query. */
  target: string;
  /** Request headers by lower-case name (node:http's own record, as it parsed them). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body's bytes; null when the request has no body. */
  body: Uint8Array | null;
  /** The body was larger than the contract's limit (`limits.bodyBytes`) and was not kept. */
  bodyTooLarge?: boolean;
  /**
   * Registers a listener called once if the client goes away before the answer is sent (a
   * handler that waits, such as waiting for a run, may cancel what it waits for).
   */
  onDisconnect?: (listener: () => void) => void;
  /** The request asks for a WebSocket (`Upgrade: websocket`) on a transport that can open one. */
  upgrade?: boolean;
}

/** An answer as the adapters write it: the body is JSON text (or its UTF-8 bytes in parts), or written while the response is open. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body?: string;
  /** The body's bytes, in parts written one after the other (a JsonText given as bytes). */
  bytes?: readonly Uint8Array[];
  stream?: StreamedBody;
  /** A WebSocket to open (a 101); only the node:http adapter's upgrade path asks for one. */
  socket?: SocketSession;
}

export interface ApiHandlerOptions<Principal> {
  contract: ApiContract;
  handlers: AnyHandlers<Principal>;
  authenticator: Authenticator<Principal>;
  /** Check every answer against the spec; a violation becomes a loud 500 and is reported. */
  validateResponses: boolean;
  onContractViolation?: (message: string) => void;
  /** The commit group of the store the handlers write to: answers wait for its COMMIT. */
  commits: Pick<CommitGroup, 'afterCommit' | 'read'>;
}

/**
 * One API's HTTP layer: `handle(exchange)` computes the reply, and the adapter hands it to
 * `deliver`, which sends it once what it reports is committed (at once when nothing waits). An
 * operation that waits for something (a run to end) answers later: its reply is a promise.
 */
export type ApiHandler = ((exchange: Exchange) => Reply | Promise<Reply>) & {
  /** The request limits the adapters enforce while reading a request. */
  limits: Readonly<RequestLimits>;
  deliver(reply: Reply, send: (reply: Reply) => void): void;
};

export function createApiHandler<Principal>(options: ApiHandlerOptions<Principal>): ApiHandler {
  const { contract, handlers } = options;
  const missing = contract.operations.filter((op) => !handlers[op.operationId]).map((op) => op.operationId);
  const unknown = Object.keys(handlers).filter((id) => !contract.operations.some((op) => op.operationId === id));
  if (missing.length || unknown.length) {
    throw new Error(
      `handlers do not match the spec: missing ${missing.join(', ') || 'none'}; not in the spec ${unknown.join(', ') || 'none'}`,
    );
  }
  const { bodyBytes, jsonDepth } = contract.limits;
  const readers = credentialReaders(contract);

  const checked = (operation: ContractOperation, answer: RawAnswer): RawAnswer => {
    if (!options.validateResponses) return answer;
    const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    const body = answer.body instanceof JsonText ? JSON.parse(answer.body.text) : answer.body;
    const problem = operation.checkResponse(answer.status, body, headers);
    if (problem === null) {
      if (answer.socket) {
        const report = (problem: string) => options.onContractViolation?.(`${operation.operationId} ${problem}`);
        return {
          ...answer,
          socket: checkedSocket(answer.socket, (message) => operation.checkSocketMessage(answer.status, 'server', message), report),
        };
      }
      if (!answer.stream) return answer;
      const status = answer.status;
      const report = (event: string) => options.onContractViolation?.(`${operation.operationId} streamed against the spec: ${event}`);
      return { ...answer, stream: checkedStream(answer.stream, (event) => operation.checkEvent(status, event), report) };
    }
    const message = `${operation.operationId} answered ${answer.status} against the spec: ${problem}`;
    options.onContractViolation?.(message);
    return { status: 500, body: { detail: `Emulator contract violation: ${message}` } };
  };

  /** An error thrown by a handler or by the layer, as the answer it means (rethrown when it means none). */
  const errorAnswer = (error: unknown, operation: ContractOperation | undefined): RawAnswer => {
    if (!(error instanceof HttpError)) throw error;
    const reply: RawAnswer = { status: error.status, body: { detail: error.detail }, headers: error.headers };
    // Every error of a known operation is part of its contract too; 404 and 405 without one are the API's.
    return operation ? checked(operation, reply) : reply;
  };

  const answer = (exchange: Exchange): RawAnswer | Promise<RawAnswer> => {
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
      // The body of an operation that declares none is not looked at (HTTP gives it no meaning).
      if (operation.body && exchange.bodyTooLarge)
        throw new HttpError(413, `Request body larger than ${bodyBytes} bytes.`, { connection: 'close' });

      const issues: ValidationIssue[] = [];
      const path: Record<string, unknown> = {};
      for (const [name, raw] of route.params) {
        const text = decodeParameter(raw, false);
        if (text === null) issues.push(notUtf8('path', name));
        else path[name] = text;
      }
      readTexts(path, operation);
      issues.push(...(operation.checkPath(path) ?? []));
      const query: Record<string, unknown> = {};
      if (queryAt >= 0) {
        for (const [name, text] of splitQuery(exchange.target.slice(queryAt + 1))) {
          // Undeclared parameters are ignored, whatever they hold; of a repeated one the first
          // counts, unless it is a list, which it repeats.
          const textType = operation.textTypes[name];
          if (textType === undefined) continue;
          const isList = textType.endsWith('[]');
          if (!isList && Object.hasOwn(query, name)) continue;
          if (text === null) issues.push(notUtf8('query', name));
          else if (isList) query[name] = [...((query[name] as string[] | undefined) ?? []), text];
          else query[name] = text;
        }
        readTexts(query, operation);
      }
      issues.push(...(operation.checkQuery(query) ?? []));

      let body: unknown;
      if (operation.body && exchange.body !== null && exchange.body.length > 0) {
        body = readBody(exchange, operation.body.mediaTypes, contract.jsonMediaTypes, jsonDepth);
        issues.push(...(operation.body.check(body) ?? []));
      } else if (operation.body?.required) {
        issues.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
      }
      if (issues.length > 0) throw validationError(issues);

      const handler = handlers[operation.operationId]!;
      const request = {
        operationId: operation.operationId,
        path,
        query,
        body,
        headers: exchange.headers,
        principal: auth.principal,
        onDisconnect: exchange.onDisconnect ?? ignoreDisconnect,
        upgradable: exchange.upgrade === true,
      };
      const answered = options.commits.read(() => handler(request));
      if (!(answered instanceof Promise)) return checked(operation, answered);
      const waited = operation;
      return answered.then(
        (later) => checked(waited, later),
        (error: unknown) => errorAnswer(error, waited),
      );
    } catch (error) {
      return errorAnswer(error, operation);
    }
  };

  const internalError = (exchange: Exchange, error: unknown): RawAnswer => {
    options.onContractViolation?.(`internal error on ${exchange.method} ${exchange.target}: ${(error as Error)?.stack ?? error}`);
    return INTERNAL_ERROR;
  };
  const handle = (exchange: Exchange): Reply | Promise<Reply> => {
    let raw: RawAnswer | Promise<RawAnswer>;
    try {
      raw = answer(exchange);
    } catch (error) {
      raw = internalError(exchange, error);
    }
    if (raw instanceof Promise) return raw.then(toReply, (error: unknown) => toReply(internalError(exchange, error)));
    return toReply(raw);
  };
  const deliver = (reply: Reply, send: (reply: Reply) => void): void =>
    options.commits.afterCommit((committed) => send(committed ? reply : toReply(NOT_STORED)));
  return Object.assign(handle, { limits: contract.limits, deliver });
}

const ignoreDisconnect = (): void => {};

/**
 * The body as JSON, read by its media type: one the operation declares (`application/json`), or
 * one of the API's `x-json-media-types` (the agent server's `text/plain`) when it holds JSON. Any
 * other media type, and a body of such a type that is not JSON, is a 415.
 */
function readBody(exchange: Exchange, declared: readonly string[], alsoJson: readonly string[], maxDepth: number): unknown {
  const contentType = (header(exchange, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const accepted = [...declared, ...alsoJson];
  const refuse = (why: string) => new HttpError(415, `Unsupported Content-Type ${why}: send the body as ${accepted.join(' or ')}.`);
  if (declared.includes(contentType)) return readJsonBody(exchange.body!, maxDepth);
  if (!alsoJson.includes(contentType)) throw refuse(contentType ? `"${contentType}"` : '(none)');
  try {
    return readJsonBody(exchange.body!, maxDepth);
  } catch (error) {
    // Plain text that is not JSON is a body of another kind; JSON this API refuses is refused as JSON.
    if (error instanceof HttpError && isNotJson(error)) throw refuse(`"${contentType}" with a body that is not JSON`);
    throw error;
  }
}

const isNotJson = (error: HttpError): boolean =>
  Array.isArray(error.detail) && (error.detail as ValidationIssue[]).some((issue) => issue.type === 'json_invalid');

const INTERNAL_ERROR: RawAnswer = { status: 500, body: { detail: 'Internal emulator error; see its log.' } };
const NOT_STORED: RawAnswer = {
  status: 500,
  body: { detail: 'The emulator could not store the changes of this moment; nothing of them was kept. See its log.' },
};

function toReply(raw: RawAnswer): Reply {
  const headers: Record<string, string> = {};
  if (raw.headers) for (const name in raw.headers) headers[name] = String(raw.headers[name]);
  if (raw.stream) return { status: raw.status, headers, stream: raw.stream };
  if (raw.socket) return { status: raw.status, headers, socket: raw.socket };
  if (raw.body === undefined) return { status: raw.status, headers };
  headers['content-type'] = 'application/json';
  if (raw.body instanceof JsonText && raw.body.bytes) return { status: raw.status, headers, bytes: raw.body.bytes };
  return { status: raw.status, headers, body: raw.body instanceof JsonText ? raw.body.text : JSON.stringify(raw.body) };
}

const notUtf8 = (where: 'path' | 'query', name: string): ValidationIssue => ({
  loc: [where, name],
  msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
  type: 'string_unicode',
});

type RouteMatch =
  /** `params`: each path parameter's raw (still percent-encoded) segment. */
  | { kind: 'found'; operation: ContractOperation; params: [name: string, raw: string][] }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

/** Reads the text of each parameter as its schema's type, in place. */
function readTexts(values: Record<string, unknown>, operation: ContractOperation): void {
  for (const name in values) {
    const textType = operation.textTypes[name]!;
    const value = values[name];
    if (textType.endsWith('[]')) {
      const itemType = textType.slice(0, -2) as ScalarTextType;
      values[name] = (value as string[]).map((text) => readParameterText(text, itemType));
    } else values[name] = readParameterText(value as string, textType as ScalarTextType);
  }
}

/**
 * The operation for a method and path. `operations` come most concrete first: the first path that
 * matches is the route, and its other methods make a 405, however many templated paths would
 * match too.
 */
function matchRoute(operations: ContractOperation[], method: string, pathname: string): RouteMatch {
  const allowed: string[] = [];
  let route: string | undefined;
  for (const operation of operations) {
    if (route !== undefined && operation.pathTemplate !== route) continue;
    const match = operation.matcher.exec(pathname);
    if (!match) continue;
    route = operation.pathTemplate;
    if (operation.method !== method) {
      allowed.push(operation.method);
      continue;
    }
    return { kind: 'found', operation, params: operation.paramNames.map((name, i) => [name, match[i + 1]!]) };
  }
  return allowed.length ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
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
