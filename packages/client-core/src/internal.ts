// @agentplane/client-core/internal: what the agentplane client packages build on (assembling a
// client, the retry policy from the spec, paging, waiting). Not for applications: it changes
// with the client packages, without a deprecation period.
export { createApiClient } from './create-client.js';
export type { RequestLike } from './outgoing-request.js';
export { checkPageSize, type Page, paginate } from './pagination.js';
export { type IsRetryable, sleep } from './retry.js';
export { type RetryPolicy, type RetryRule, retryPolicyFor } from './retry-policy.js';
