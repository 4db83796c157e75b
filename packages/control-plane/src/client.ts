// The control plane client: openapi-fetch typed by the generated `paths` (assembled by
// client-core), the credential as middleware, retries as the spec's operations allow (only
// reads: a repeated create or update could make a second deployment or revision).
import type { BaseClientOptions, StrictClient } from '@agentplane/client-core';
import { createApiClient, retryPolicyFor } from '@agentplane/client-core/internal';
import { retryRules } from './generated/contract.js';
import type { paths } from './generated/openapi.js';

/** Exactly one credential: an API key (every operation), a tenant ID or a bearer token (getRevision only). */
export type ControlPlaneCredentials =
  | { apiKey: string; tenantId?: never; bearerToken?: never }
  | { tenantId: string; apiKey?: never; bearerToken?: never }
  | { bearerToken: string; apiKey?: never; tenantId?: never };

/** `baseUrl` is the control plane's root URL, without `/v2`, such as `https://api.example.com`. */
export type ControlPlaneClientOptions = ControlPlaneCredentials & BaseClientOptions;

/** openapi-fetch's client, with call signatures that also refuse unknown fields (see StrictClient). */
export type ControlPlaneClient = StrictClient<paths>;

export function createControlPlaneClient(options: ControlPlaneClientOptions): ControlPlaneClient {
  return createApiClient<paths>(options, {
    credentials: credentialsToHeaders(options),
    isRetryable: retryPolicyFor(retryRules),
  });
}

function credentialsToHeaders(options: ControlPlaneClientOptions): Record<string, string> {
  const given = (['apiKey', 'tenantId', 'bearerToken'] as const).filter((key) => typeof options[key] === 'string' && options[key] !== '');
  if (given.length !== 1) {
    throw new TypeError(
      `createControlPlaneClient needs exactly one of apiKey, tenantId or bearerToken (got ${given.length === 0 ? 'none' : given.join(', ')})`,
    );
  }
  if (options.apiKey) return { 'X-Api-Key': options.apiKey };
  if (options.tenantId) return { 'X-Tenant-Id': options.tenantId };
  return { Authorization: `Bearer ${options.bearerToken}` };
}
