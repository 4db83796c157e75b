// The real LangGraph JS SDK's client as the tests drive the emulator with it. apiKey null: no key
// from LANGGRAPH_API_KEY & co. of the environment; maxRetries 0: an error must surface at once,
// never be retried into a different answer. The recording variant keeps each request and answer,
// so what the SDK puts on the wire and reads back is asserted, not assumed.
import { Client } from '@langchain/langgraph-sdk';
import { expect } from 'vitest';

/** One request the SDK sent and the status and headers it got back. */
export interface WireRecord {
  method: string;
  path: string;
  body: any;
  status: number;
  headers: Headers;
}

/** The SDK's client on `apiUrl`; with `wire`, every request it sends is appended there. */
export function sdkClient(apiUrl: string, options: { apiKey?: string | null; wire?: WireRecord[] } = {}): Client {
  const { wire } = options;
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    wire?.push({
      method: init?.method ?? 'GET',
      path: url.pathname + url.search,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body,
      status: response.status,
      headers: response.headers,
    });
    return response;
  };
  return new Client({
    apiUrl,
    apiKey: options.apiKey ?? null,
    callerOptions: { maxRetries: 0, ...(wire ? { fetch: recordingFetch } : {}) },
  });
}

/** The SDK's client of an in-process emulator (createEmulator): requests go to its fetch function, no port. */
export function inProcessClient(emulator: { agentServer: { url: string; fetch: typeof fetch } }): Client {
  return new Client({
    apiUrl: emulator.agentServer.url,
    apiKey: null,
    callerOptions: { fetch: emulator.agentServer.fetch, maxRetries: 0 },
  });
}

/**
 * A request to an in-process emulator as a client the tests cannot run sends it (the Python SDK:
 * httpx, a JSON body): its status and its answer parsed, undefined when empty.
 */
export async function inProcessRequest(
  emulator: { agentServer: { url: string; fetch: typeof fetch } },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await emulator.agentServer.fetch(
    new Request(`${emulator.agentServer.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The SDK's HTTPError of a call that must fail: its `status` and the answer's `detail`. */
export async function sdkError(promise: Promise<unknown>): Promise<{ status: number; detail: unknown }> {
  const error = (await promise.then(
    () => expect.unreachable('the SDK call should have failed'),
    (e: unknown) => e,
  )) as { status?: number; text?: string; message?: string };
  expect(error.status, String(error.message)).toBeTypeOf('number');
  return { status: error.status!, detail: JSON.parse(error.text!).detail };
}
