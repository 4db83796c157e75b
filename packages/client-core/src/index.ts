// Runtime shared by the agentplane client packages: retries, errors, auth middleware.
export { ApiError, describeErrorBody, unwrap, type FetchResult, type ValidationIssue } from './errors.js';
export { headersMiddleware } from './auth.js';
export { OutgoingRequest, isOutgoingRequest, isReusable, sendRequest, type RequestLike } from './outgoing-request.js';
export {
  DEFAULT_RETRY,
  backoffDelay,
  createRetryingFetch,
  parseRetryAfter,
  sleep,
  type FetchLike,
  type IsRetryable,
  type RetryEvent,
  type RetryOptions,
} from './retry.js';
export { strict, type StrictClient, type StrictMethod } from './strict-client.js';
export { createApiClient, type BaseClientOptions, type UserFetch } from './create-client.js';
