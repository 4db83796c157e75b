// The agent server client: openapi-fetch typed by the generated `paths` (assembled by
// client-core), the optional API key as middleware, retries as the spec's operations allow
// (`x-retry-safe`: reads, the read-only POSTs search and history, and a thread create that names
// its `thread_id`, which a repeat answers with 409 or the same thread, never a second one).
import type { BaseClientOptions, StrictClient } from '@agentplane/client-core';
import type { IsRetryable } from '@agentplane/client-core/internal';
import { createApiClient, retryPolicyFor } from '@agentplane/client-core/internal';
import { retryRules } from './generated/contract.js';
import type { paths } from './generated/openapi.js';

export interface AgentServerClientOptions extends BaseClientOptions {
  /** Sent as `X-Api-Key` when given; required only by deployments configured for it. */
  apiKey?: string;
}

/** openapi-fetch's client, with call signatures that also refuse unknown fields (see StrictClient). */
export type AgentServerClient = StrictClient<paths>;

/**
 * Whether sending this request twice has the same effect as sending it once, as the spec's
 * `x-retry-safe` says: from the method and path, and for a thread create from its body (a
 * promise then). The retry layer asks only after an attempt failed in a retryable way.
 */
export const isSafeToRepeat: IsRetryable = retryPolicyFor(retryRules);

export function createAgentServerClient(options: AgentServerClientOptions): AgentServerClient {
  return createApiClient<paths>(options, {
    ...(options.apiKey ? { credentials: { 'X-Api-Key': options.apiKey } } : {}),
    isRetryable: isSafeToRepeat,
  });
}
