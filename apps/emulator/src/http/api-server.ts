// The HTTP layer shared by both APIs: routes a request to the operation the spec declares for its
// method and path, checks credentials against the operation's security alternatives, validates
// path, query and body (422 in the spec's HTTPValidationError shape), calls the operation's
// handler, and in development and test mode checks every answer against the spec.
//
// Whatever a client sends, the answer is a 4xx with a `detail` body or a valid 2xx: a malformed
// request must never reach a handler, and a handler bug is reported loudly instead of hidden.
import http from 'node:http';
import type { CompiledApi, CompiledOperation, SecurityRequirement } from '../spec/compile-operations.js';
import type { ValidationIssue } from '../spec/validation-errors.js';

export interface ApiRequest<Principal = unknown> {
  operationId: string;
  path: Record<string, any>;
  query: Record<string, any>;
  /** The parsed JSON body with the spec's defaults applied; undefined when none was sent. */
  body: any;
  principal: Principal;
}

export interface ApiResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler<Principal> = (request: ApiRequest<Principal>) => ApiResponse;

/** The credentials a request presented, keyed by security scheme name. */
export type Credentials = Record<string, string>;

export interface Authenticator<Principal> {
  /**
   * Given the operation's alternatives and the credentials presented, the caller's principal,
   * or the 401 reason. `{}` among the alternatives lets anonymous callers in, unless the
   * authenticator was configured to require credentials.
   */
  authenticate(security: SecurityRequirement[], credentials: Credentials): { principal: Principal } | { reason: string };
}

export interface ApiServerOptions<Principal> {
  api: CompiledApi;
  handlers: Record<string, Handler<Principal>>;
  authenticator: Authenticator<Principal>;
  /** Check every answer against the spec; a violation becomes a loud 500 and is logged. */
  validateResponses: boolean;
  maxBodyBytes: number;
  /** Deepest JSON nesting accepted in a body; deeper ones are a 422 (they could exhaust the stack). */
  maxJsonDepth?: number;
  onContractViolation?: (message: string) => void;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail));
  }
}

export function validationError(issues: ValidationIssue[]): HttpError {
  return new HttpError(422, issues);
}

export function createApiServer<Principal>(options: ApiServerOptions<Principal>): http.Server {
  const missing = options.api.operations.filter((op) => !options.handlers[op.operationId]).map((op) => op.operationId);
  const unknown = Object.keys(options.handlers).filter((id) => !options.api.operations.some((op) => op.operationId === id));
  if (missing.length || unknown.length) {
    throw new Error(
      `handlers do not match the spec: missing ${missing.join(', ') || 'none'}; not in the spec ${unknown.join(', ') || 'none'}`,
    );
  }
  const maxDepth = options.maxJsonDepth ?? 64;
  const readers = credentialReaders(options.api);
  const server = http.createServer((req, res) => {
    handle(req, options, maxDepth, readers).then(
      (answer) => send(res, answer),
      (error: unknown) => {
        options.onContractViolation?.(`internal error on ${req.method} ${req.url}: ${(error as Error)?.stack ?? error}`);
        send(res, { status: 500, body: { detail: 'Internal emulator error; see its log.' } });
      },
    );
  });
  // Requests Node's parser refuses (an unknown method, broken framing, oversized headers) never
  // reach the handler above; answer them in the same JSON shape instead of Node's bare 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify({
      detail: status === 431 ? 'Request headers too large.' : `Malformed HTTP request (${error.code ?? 'parse error'}).`,
    });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  // CONNECT (a proxy tunnel request) bypasses the request handler too; no route accepts it.
  server.on('connect', (_req: http.IncomingMessage, socket: import('node:net').Socket) => {
    const body = JSON.stringify({ detail: 'Method Not Allowed' });
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  server.keepAliveTimeout = 30_000;
  return server;
}

async function handle<Principal>(
  req: http.IncomingMessage,
  options: ApiServerOptions<Principal>,
  maxDepth: number,
  readers: Map<CompiledOperation, CredentialReader[]>,
): Promise<ApiResponse> {
  let operation: CompiledOperation | undefined;
  try {
    // Split by hand: `new URL` reads a path starting with `//` as a host name and throws.
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
    const searchParams = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
    const route = matchRoute(options.api.operations, req.method ?? 'GET', pathname);
    if (route.kind === 'not-found') throw new HttpError(404, 'Not Found');
    if (route.kind === 'method-not-allowed') throw new HttpError(405, 'Method Not Allowed', { allow: route.allowed.join(', ') });
    operation = route.operation;

    const auth = options.authenticator.authenticate(operation.security, credentialsOf(req, readers.get(operation)!));
    if ('reason' in auth) {
      await discardBody(req);
      throw new HttpError(401, auth.reason);
    }

    const issues: ValidationIssue[] = [];
    const path = route.params;
    issues.push(...(operation.checkPath(path) ?? []));
    const query: Record<string, unknown> = {};
    for (const [name, value] of searchParams) if (!Object.hasOwn(query, name)) query[name] = value;
    issues.push(...(operation.checkQuery(query) ?? []));

    const raw = await readBody(req, options.maxBodyBytes);
    let body: unknown;
    if (operation.body && raw.length > 0) {
      const contentType = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (!operation.body.mediaTypes.includes(contentType)) {
        throw new HttpError(
          415,
          `Unsupported Content-Type ${contentType ? `"${contentType}"` : '(none)'}: send the body as ${operation.body.mediaTypes.join(' or ')}.`,
        );
      }
      body = parseJson(raw, maxDepth);
      issues.push(...(operation.body.check(body) ?? []));
    } else if (operation.body?.required) {
      issues.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
    }
    if (issues.length > 0) throw validationError(issues);

    const answer = options.handlers[operation.operationId]!({
      operationId: operation.operationId,
      path,
      query,
      body,
      principal: auth.principal,
    });
    return checkAnswer(operation, answer, options);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const answer: ApiResponse = { status: error.status, body: { detail: error.detail }, headers: error.headers };
    // Errors of a known operation are part of its contract too (405/413/415 are transport-level).
    return operation && [401, 404, 409, 422].includes(error.status) ? checkAnswer(operation, answer, options) : answer;
  }
}

function checkAnswer<Principal>(operation: CompiledOperation, answer: ApiResponse, options: ApiServerOptions<Principal>): ApiResponse {
  if (!options.validateResponses) return answer;
  const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const problem = operation.checkResponse(answer.status, answer.body, headers);
  if (problem === null) return answer;
  const message = `${operation.operationId} answered ${answer.status} against the spec: ${problem}`;
  options.onContractViolation?.(message);
  return { status: 500, body: { detail: `Emulator contract violation: ${message}` } };
}

type RouteMatch =
  | { kind: 'found'; operation: CompiledOperation; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

function matchRoute(operations: CompiledOperation[], method: string, pathname: string): RouteMatch {
  const allowed: string[] = [];
  for (const operation of operations) {
    const match = operation.matcher.exec(pathname);
    if (!match) continue;
    if (operation.method !== method) {
      allowed.push(operation.method);
      continue;
    }
    const params: Record<string, string> = {};
    operation.paramNames.forEach((name, i) => (params[name] = safeDecode(match[i + 1]!)));
    return { kind: 'found', operation, params };
  }
  return allowed.length ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Reads one security scheme's credential from a request: its value, or undefined when absent. */
type CredentialReader = { scheme: string; read: (req: http.IncomingMessage) => string | undefined };

/**
 * For every operation, the readers of the schemes its security alternatives name, built once:
 * a request only pays for the credentials its operation can accept.
 */
function credentialReaders(api: CompiledApi): Map<CompiledOperation, CredentialReader[]> {
  const readerOf = (name: string): CredentialReader | undefined => {
    const scheme = api.securitySchemes[name];
    if (scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name) {
      const header = scheme.name.toLowerCase();
      return {
        scheme: name,
        read: (req) => {
          const value = req.headers[header];
          return typeof value === 'string' && value !== '' ? value : undefined;
        },
      };
    }
    if (scheme?.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') {
      return { scheme: name, read: (req) => /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] };
    }
    return undefined;
  };
  return new Map(
    api.operations.map((operation) => {
      const names = new Set(operation.security.flatMap((requirement) => Object.keys(requirement)));
      return [operation, [...names].map(readerOf).filter((reader) => reader !== undefined)];
    }),
  );
}

function credentialsOf(req: http.IncomingMessage, readers: CredentialReader[]): Credentials {
  const credentials: Credentials = {};
  for (const { scheme, read } of readers) {
    const value = read(req);
    if (value !== undefined) credentials[scheme] = value;
  }
  return credentials;
}

const NO_BODY = Buffer.alloc(0);

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> | Buffer {
  // Without Content-Length or Transfer-Encoding an HTTP/1.1 request has no body (RFC 9112 §6.3):
  // skip the stream machinery, the common case of every GET. Node discards the empty stream.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return NO_BODY;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return discardBody(req).then(() => Promise.reject(tooLarge(limit)));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) overflow = true;
      if (!overflow) chunks.push(chunk);
    });
    req.on('end', () => (overflow ? reject(tooLarge(limit)) : resolve(Buffer.concat(chunks, size))));
    req.on('error', reject);
  });
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body larger than ${limit} bytes.`, { connection: 'close' });
}

function discardBody(req: http.IncomingMessage): Promise<void> {
  if (req.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    req.on('end', resolve).on('error', () => resolve());
    req.resume();
  });
}

function parseJson(raw: Buffer, maxDepth: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
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

function send(res: http.ServerResponse, answer: ApiResponse): void {
  const headers: Record<string, string | number> = { ...(answer.headers ?? {}) };
  if (answer.body === undefined) {
    res.writeHead(answer.status, headers).end();
    return;
  }
  const text = JSON.stringify(answer.body);
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(text);
  res.writeHead(answer.status, headers).end(text);
}
