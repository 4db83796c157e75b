// Runtime shared by the agentplane client packages: retries, errors, auth middleware.

export { headersMiddleware } from './auth.js';
export { type BaseClientOptions, createApiClient, type UserFetch } from './create-client.js';
export { ApiError, describeErrorBody, type FetchResult, unwrap, type ValidationIssue } from './errors.js';
export { isOutgoingRequest, isReusable, OutgoingRequest, type RequestLike, sendRequest } from './outgoing-request.js';
export {
  backoffDelay,
  createRetryingFetch,
  DEFAULT_RETRY,
  type FetchLike,
  type IsRetryable,
  parseRetryAfter,
  type RetryEvent,
  type RetryOptions,
  sleep,
} from './retry.js';
export { type StrictClient, type StrictMethod, strict } from './strict-client.js';
