// Shared by the SDK, fuzz, crash and concurrency tests: an in-process emulator on free ports that
// records what it reports through onError (contract violations, internal errors), a raw HTTP
// sender for requests no typed client would make, and the spec's own validator for answers.
import http from 'node:http';
import { createValidator, loadBundle } from '../../../../scripts/lib/openapi.js';
import type { EmulatorConfig } from '../../src/config.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator.js';

export interface TestEmulator extends RunningEmulator {
  /** Every message the emulator reported through onError, oldest first. */
  errors: string[];
}

export async function startTestEmulator(options: { config?: EmulatorConfig; revisionStepMs?: number; db?: string } = {}): Promise<TestEmulator> {
  const errors: string[] = [];
  const emulator = await startEmulator({
    db: options.db ?? ':memory:',
    config: options.config,
    controlPlanePort: 0,
    agentServerPort: 0,
    revisionStepMs: options.revisionStepMs ?? 50,
    validateResponses: true,
    onError: (message) => errors.push(message),
  });
  return Object.assign(emulator, { errors });
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
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** Sends one request exactly as given (no normalisation of method, path, headers or body). */
export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers: request.headers ?? {}, agent },
      (res) => {
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
      },
    );
    req.on('error', (error) => reject(new Error(`${request.method} ${request.path}: ${error.message}`)));
    req.end(request.body);
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
