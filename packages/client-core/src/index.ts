// @agentplane/client-core: what users of the agentplane clients call and name (the client
// packages re-export it). What the client packages share among themselves is in
// `@agentplane/client-core/internal`.
export type { BaseClientOptions, UserFetch } from './create-client.js';
export { ApiError, type ErrorBody, type FetchResult, isApiError, unwrap, type ValidationIssue } from './errors.js';
export type { RetryEvent, RetryOptions } from './retry.js';
export type { StrictClient, StrictMethod } from './strict-client.js';
