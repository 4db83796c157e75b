// The control plane client: openapi-fetch typed by the generated `paths`, with the credential
// as middleware and retries in a wrapping fetch. Only GETs are retried: a repeated create or
// update could make a second deployment or revision.
import { createRetryingFetch, headersMiddleware, strict, type FetchLike, type RetryOptions, type StrictClient } from '@agentplane/client-core';
import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi.js';

/** Exactly one credential: an API key (every operation), a tenant ID or a bearer token (getRevision only). */
export type ControlPlaneCredentials =
  | { apiKey: string; tenantId?: never; bearerToken?: never }
  | { tenantId: string; apiKey?: never; bearerToken?: never }
  | { bearerToken: string; apiKey?: never; tenantId?: never };

export type ControlPlaneClientOptions = ControlPlaneCredentials & {
  /** Root URL of the control plane, without `/v2`, such as `https://api.example.com`. */
  baseUrl: string;
  /** fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
  /** Retry policy for GETs; `false` turns retries off. */
  retry?: RetryOptions | false;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
};

/** openapi-fetch's client, with call signatures that also refuse unknown fields (see StrictClient). */
export type ControlPlaneClient = StrictClient<paths>;

export function createControlPlaneClient(options: ControlPlaneClientOptions): ControlPlaneClient {
  const credentialHeaders = credentialsToHeaders(options);
  const baseFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: createRetryingFetch(baseFetch, options.retry, (request) => request.method === 'GET' || request.method === 'HEAD'),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  client.use(headersMiddleware(credentialHeaders));
  return strict(client);
}

function credentialsToHeaders(options: ControlPlaneClientOptions): Record<string, string> {
  const given = (['apiKey', 'tenantId', 'bearerToken'] as const).filter((key) => typeof options[key] === 'string' && options[key] !== '');
  if (given.length !== 1) {
    throw new TypeError(`createControlPlaneClient needs exactly one of apiKey, tenantId or bearerToken (got ${given.length === 0 ? 'none' : given.join(', ')})`);
  }
  if (options.apiKey) return { 'X-Api-Key': options.apiKey };
  if (options.tenantId) return { 'X-Tenant-Id': options.tenantId };
  return { Authorization: `Bearer ${options.bearerToken}` };
}
