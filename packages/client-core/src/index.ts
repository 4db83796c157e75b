// Runtime shared by the agentplane client packages: retries, errors, auth middleware.
export { ApiError, describeErrorBody, unwrap, type FetchResult, type ValidationIssue } from './errors.js';
export { headersMiddleware } from './auth.js';
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
