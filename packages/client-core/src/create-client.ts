// The one place an agentplane API client is assembled: openapi-fetch with the light
// OutgoingRequest, the retrying fetch (safe requests only, as the API decides), and the
// credential headers as middleware, typed as a StrictClient.
//
// The serializers are openapi-fetch's defaults, made once: the query serializer is the one
// openapi-fetch would otherwise create anew on every call (`createQuerySerializer()`), and the
// path serializer answers what its default answers, in one pass (see path-serializer.ts).
import createClient, { createQuerySerializer } from 'openapi-fetch';
import { headersMiddleware } from './auth.js';
import { OutgoingRequest, sendRequest } from './outgoing-request.js';
import { pathSerializer } from './path-serializer.js';
import type { IsRetryable, RetryOptions } from './retry.js';
import { createRetryingFetch } from './retry.js';
import type { StrictClient } from './strict-client.js';
import { strict } from './strict-client.js';

/** A fetch supplied by the user; it always receives a real Request. */
export type UserFetch = (input: Request) => Promise<Response>;

/** Options every agentplane client takes. */
export interface BaseClientOptions {
  /** Root URL of the API. */
  baseUrl: string;
  /** fetch implementation (default: the global fetch). */
  fetch?: UserFetch;
  /** Retry policy for requests safe to repeat; `false` turns retries off. */
  retry?: RetryOptions | false;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

const querySerializer = createQuerySerializer();

// biome-ignore lint/suspicious/noExplicitAny: openapi-fetch constrains path maps to Record<string, any>; a generated `paths` interface has no index signature, so `unknown` would not fit.
export function createApiClient<Paths extends Record<string, any>>(
  options: BaseClientOptions,
  api: { isRetryable: IsRetryable; credentials?: Record<string, string> },
): StrictClient<Paths> {
  const client = createClient<Paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    Request: OutgoingRequest as unknown as typeof Request,
    querySerializer,
    pathSerializer,
    fetch: createRetryingFetch((request) => sendRequest(request, options.fetch), options.retry, api.isRetryable) as (
      input: Request,
    ) => Promise<Response>,
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (api.credentials && Object.keys(api.credentials).length > 0) client.use(headersMiddleware(api.credentials));
  return strict(client);
}
