// The one emulator fixture of the emulator's tests: an emulator on free ports (in-memory unless a
// file is given) that records what it reports through onError (contract violations, internal
// errors); `useEmulator` wraps it for a test file with typed clients and a movable revision
// clock. Also a raw HTTP sender for requests no typed client would make, and the spec's own
// validator for answers.
import http from 'node:http';
import net from 'node:net';
import { createAgentServerClient } from '@agentplane/agent-server';
import { createControlPlaneClient } from '@agentplane/control-plane';
import { createValidator, loadBundle } from '@agentplane/openapi-toolkit';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import WebSocket from 'ws';
import type { GraphDefinition } from '../../src/agent-server/graphs/graph-types.js';
import type { EmulatorConfig } from '../../src/config/config.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator.js';
import { startEmulator } from '../../src/emulator.js';

export interface TestEmulator extends RunningEmulator {
  /** Every message the emulator reported through onError, oldest first. */
  errors: string[];
  /** Every notice about the user's own setup (onNotice), such as a webhook that failed. */
  notices: string[];
}

export async function startTestEmulator(
  options: {
    config?: EmulatorConfig;
    graphs?: Record<string, GraphDefinition>;
    revisionStepMs?: number;
    db?: string;
    now?: () => number;
    streams?: EmulatorOptions['streams'];
  } = {},
): Promise<TestEmulator> {
  const errors: string[] = [];
  const notices: string[] = [];
  const emulator = await startEmulator({
    db: options.db ?? ':memory:',
    config: options.config,
    ...(options.graphs ? { graphs: options.graphs } : {}),
    controlPlanePort: 0,
    agentServerPort: 0,
    revisionStepMs: options.revisionStepMs ?? 50,
    validateResponses: true,
    onError: (message) => errors.push(message),
    onNotice: (message) => notices.push(message),
    ...(options.now ? { now: options.now } : {}),
    ...(options.streams ? { streams: options.streams } : {}),
  });
  return Object.assign(emulator, { errors, notices });
}

export interface Fixture {
  emulator: TestEmulator;
  agent: ReturnType<typeof createAgentServerClient>;
  control: ReturnType<typeof createControlPlaneClient>;
  /** Control-plane client with another API key (or none). */
  controlAs(apiKey: string): ReturnType<typeof createControlPlaneClient>;
  /** Moves the lifecycle clock forward. */
  advance(ms: number): void;
}

/**
 * An emulator for the whole test file, with typed clients of both APIs and a revision clock the
 * tests move; a test fails when the emulator reported a contract violation or internal error.
 */
export function useEmulator(options: { config?: EmulatorConfig; revisionStepMs?: number; apiKey?: string } = {}): Fixture {
  const fixture = {} as Fixture;
  let clock = Date.now();
  beforeAll(async () => {
    fixture.emulator = await startTestEmulator({
      config: options.config,
      revisionStepMs: options.revisionStepMs ?? 1000,
      now: () => clock,
    });
    const apiKey = options.apiKey ?? fixture.emulator.defaultApiKey!;
    fixture.agent = createAgentServerClient({ baseUrl: fixture.emulator.agentServerUrl, retry: false });
    fixture.controlAs = (key) => createControlPlaneClient({ baseUrl: fixture.emulator.controlPlaneUrl, apiKey: key, retry: false });
    fixture.control = fixture.controlAs(apiKey);
    fixture.advance = (ms) => {
      clock += ms;
    };
  });
  afterEach(() => {
    expect(fixture.emulator.errors.splice(0), 'the emulator reported contract violations or internal errors').toEqual([]);
  });
  afterAll(async () => {
    await fixture.emulator?.close();
  });
  return fixture;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  json: unknown;
}

export interface RawRequest {
  method: string;
  /** Sent verbatim as the request target: may be malformed on purpose. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked (no Content-Length), in 64 KiB chunks. */
  chunked?: boolean;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/**
 * Sends one request exactly as given (no normalisation of method, path, headers or body). A
 * request sent on a kept-alive socket that the server closed for idleness at that very moment
 * fails with ECONNRESET before the server read it; it is sent again once, on a new socket, as
 * Node's documentation of `request.reusedSocket` advises (seen once in a full `npm test` on two
 * cores, where timers run late).
 */
export async function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  try {
    return await sendRaw(baseUrl, request);
  } catch (error) {
    if (!(error instanceof StaleSocketError)) throw error;
    return sendRaw(baseUrl, request);
  }
}

class StaleSocketError extends Error {}

function sendRaw(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers = { ...request.headers };
  // node's client frames a body only for some methods (not GET, DELETE, OPTIONS...): frame it always.
  if (request.body !== undefined && !request.chunked && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(Buffer.byteLength(request.body));
  }
  if (request.chunked) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const message = `${request.method} ${request.path}: ${error.message}`;
      reject(req.reusedSocket && error.code === 'ECONNRESET' ? new StaleSocketError(message) : new Error(message));
    });
    if (request.chunked && request.body !== undefined) {
      const body = Buffer.from(request.body);
      for (let at = 0; at < body.length; at += 65_536) req.write(body.subarray(at, at + 65_536));
      req.end();
    } else {
      req.end(request.body);
    }
  });
}

/** POST/PATCH helper: a JSON body with the JSON content type. */
export function jsonRequest(method: string, path: string, body: unknown, headers: Record<string, string> = {}): RawRequest {
  return { method, path, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export type ApiName = 'agent-server' | 'control-plane';

/** The bundled spec of an API and a validator for its schemas (`#/components/schemas/X`). */
export function specOf(api: ApiName): { spec: any; validate: ReturnType<typeof createValidator> } {
  const spec = loadBundle(api);
  return { spec, validate: createValidator(spec) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isUuid = (value: unknown): boolean => typeof value === 'string' && UUID.test(value);

/**
 * Writes raw bytes on a fresh TCP connection and reads until the server closes it or `timeoutMs`
 * passes: for requests node's HTTP client refuses to send (unknown methods, bad framing).
 */
export function rawSocketExchange(
  baseUrl: string,
  bytes: string,
  timeoutMs = 2000,
): Promise<{ raw: string; status?: number; headers: Record<string, string>; body: string; closedWithoutAnswer: boolean }> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
      const headers = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ raw, status: status ? Number(status) : undefined, headers, body: rest.join('\r\n\r\n'), closedWithoutAnswer: raw === '' });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One answer is enough: stop once its declared body has arrived.
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(text.slice(end + 4)) >= Number(length)) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
    socket.write(bytes);
  });
}

/**
 * A WebSocket handshake with `url` (`http://...`, sent as `ws://...`): 101 and the open socket, or
 * the status and JSON body the server refused it with.
 */
export function socketHandshake(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body?: unknown; socket?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers });
    socket.once('open', () => resolve({ status: 101, socket }));
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
    });
    socket.once('error', (error) => reject(error));
  });
}
