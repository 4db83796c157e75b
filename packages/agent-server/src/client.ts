// The agent server client: openapi-fetch typed by the generated `paths`, the optional API key as
// middleware, retries in a wrapping fetch. Retried: GETs, the read-only POSTs (search,
// history), and a thread create that names its `thread_id` (a repeat answers 409 or, with
// `if_exists: do_nothing`, the same thread, never a second one).
import { createRetryingFetch, headersMiddleware, strict, type FetchLike, type RetryOptions, type StrictClient } from '@agentplane/client-core';
import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi.js';

export interface AgentServerClientOptions {
  /** URL of the deployment, such as `https://my-agent.example.com`. */
  baseUrl: string;
  /** Sent as `X-Api-Key` when given; required only by deployments configured for it. */
  apiKey?: string;
  /** fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
  /** Retry policy for requests safe to repeat; `false` turns retries off. */
  retry?: RetryOptions | false;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/** openapi-fetch's client, with call signatures that also refuse unknown fields (see StrictClient). */
export type AgentServerClient = StrictClient<paths>;

export function createAgentServerClient(options: AgentServerClientOptions): AgentServerClient {
  const baseFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: createRetryingFetch(baseFetch, options.retry, isSafeToRepeat),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (options.apiKey) client.use(headersMiddleware({ 'X-Api-Key': options.apiKey }));
  return strict(client);
}

const READ_ONLY_POST = [/\/threads\/search$/, /\/threads\/[^/]+\/history$/];

/** Whether sending this request twice has the same effect as sending it once. */
export async function isSafeToRepeat(request: Request): Promise<boolean> {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  if (request.method !== 'POST') return false;
  const path = new URL(request.url).pathname;
  if (READ_ONLY_POST.some((pattern) => pattern.test(path))) return true;
  if (/\/threads$/.test(path)) {
    const body: unknown = await request.json().catch(() => undefined);
    return !!body && typeof body === 'object' && typeof (body as { thread_id?: unknown }).thread_id === 'string';
  }
  return false;
}
