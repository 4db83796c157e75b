// The agent server client: openapi-fetch typed by the generated `paths` (assembled by
// client-core), the optional API key as middleware. Retried: GETs, the read-only POSTs (search,
// history), and a thread create that names its `thread_id` (a repeat answers 409 or, with
// `if_exists: do_nothing`, the same thread, never a second one).
import { type BaseClientOptions, createApiClient, type RequestLike, type StrictClient } from '@agentplane/client-core';
import type { paths } from './generated/openapi.js';

export interface AgentServerClientOptions extends BaseClientOptions {
  /** Sent as `X-Api-Key` when given; required only by deployments configured for it. */
  apiKey?: string;
}

/** openapi-fetch's client, with call signatures that also refuse unknown fields (see StrictClient). */
export type AgentServerClient = StrictClient<paths>;

export function createAgentServerClient(options: AgentServerClientOptions): AgentServerClient {
  return createApiClient<paths>(options, {
    ...(options.apiKey ? { credentials: { 'X-Api-Key': options.apiKey } } : {}),
    isRetryable: isSafeToRepeat,
  });
}

const READ_ONLY_POST = [/\/threads\/search$/, /\/threads\/[^/]+\/history$/];

/**
 * Whether sending this request twice has the same effect as sending it once: from the method
 * and path, and for a thread create from its body (a promise then). The retry layer asks only
 * after an attempt failed in a retryable way.
 */
export function isSafeToRepeat(request: RequestLike): boolean | Promise<boolean> {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  if (request.method !== 'POST') return false;
  const path = new URL(request.url).pathname;
  if (READ_ONLY_POST.some((pattern) => pattern.test(path))) return true;
  if (/\/threads$/.test(path)) return namesThreadId(request);
  return false;
}

async function namesThreadId(request: RequestLike): Promise<boolean> {
  const body: unknown = await request.json().catch(() => undefined);
  return !!body && typeof body === 'object' && typeof (body as { thread_id?: unknown }).thread_id === 'string';
}
