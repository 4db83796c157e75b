// Retries live in a wrapping `fetch`, below openapi-fetch and its middleware: the client's
// typed result stays the answer of the last attempt, and every attempt carries the same auth.
//
// What is retried: network errors and 429/502/503/504 answers, and only for requests that are
// safe to repeat (the caller's `isRetryable` decides, per API). Delays grow exponentially with
// full jitter, and a `Retry-After` header wins, up to a cap. An aborted signal stops everything.

import type { RequestLike } from './outgoing-request.js';
import { isReusable } from './outgoing-request.js';

export interface RetryOptions {
  /** Total attempts, the first included (default 3; 1 means no retry). */
  attempts?: number;
  /** Delay cap of the first retry before jitter, in ms (default 250); doubles each retry. */
  baseDelayMs?: number;
  /** Largest computed backoff delay, in ms (default 8000). */
  maxDelayMs?: number;
  /** Largest wait a `Retry-After` header can impose, in ms (default 30000). */
  maxRetryAfterMs?: number;
  /** Status codes that are retried (default 429, 502, 503, 504). */
  retryOn?: readonly number[];
  /** Source of jitter in [0, 1) (default Math.random); injectable for tests. */
  random?: () => number;
  /** Called before each retry with the attempt that failed and the chosen delay. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** The attempt that failed, 1-based. */
  attempt: number;
  delayMs: number;
  /** The retried status, or the network error. */
  reason: { status: number } | { error: unknown };
  request: RequestLike;
}

export type FetchLike = (input: RequestLike) => Promise<Response>;
/** Decides whether a request is safe to send again (it may read the request's body). */
export type IsRetryable = (request: RequestLike) => boolean | Promise<boolean>;

export const DEFAULT_RETRY: Required<Omit<RetryOptions, 'onRetry'>> = {
  attempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
  retryOn: [429, 502, 503, 504],
  random: Math.random,
};

/**
 * Wraps `fetchImpl` with retries. `options === false` returns a fetch that never retries.
 */
export function createRetryingFetch(fetchImpl: FetchLike, options: RetryOptions | false | undefined, isRetryable: IsRetryable): FetchLike {
  if (options === false) return fetchImpl;
  const settings = { ...DEFAULT_RETRY, ...options };
  if (!Number.isInteger(settings.attempts) || settings.attempts < 1) {
    throw new RangeError(`retry.attempts must be an integer ≥ 1, got ${settings.attempts}`);
  }
  if (settings.attempts === 1) return fetchImpl;

  return async (request) => {
    // A real Request's body can be read once: such a request gets a pristine copy before the
    // first attempt, for the predicate and the attempts after it. The clients' own requests (and
    // every body-less one) are re-sent as they are. One that cannot be copied is sent once.
    const reusable = isReusable(request);
    let pristine: RequestLike = request;
    if (!reusable) {
      try {
        pristine = request.clone();
      } catch {
        return fetchImpl(request);
      }
    }
    const copy = () => (reusable ? request : pristine.clone());
    // Asked only once an attempt failed in a way worth retrying, so a call that succeeds pays
    // nothing for it (the agent server's predicate parses a thread create's body).
    let safeToRepeat: boolean | undefined;
    const mayRepeat = async () => (safeToRepeat ??= await isRetryable(copy()));
    for (let attempt = 1; ; attempt++) {
      const current = attempt === 1 ? request : copy();
      let response: Response;
      try {
        response = await fetchImpl(current);
      } catch (error) {
        if (attempt >= settings.attempts || isAbort(error, request.signal) || !(await mayRepeat())) throw error;
        const delayMs = backoffDelay(attempt, settings);
        options?.onRetry?.({ attempt, delayMs, reason: { error }, request: pristine });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (!settings.retryOn.includes(response.status) || attempt >= settings.attempts || !(await mayRepeat())) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const delayMs = retryAfter === undefined ? backoffDelay(attempt, settings) : Math.min(retryAfter, settings.maxRetryAfterMs);
      options?.onRetry?.({ attempt, delayMs, reason: { status: response.status }, request: pristine });
      await response.body?.cancel().catch(() => undefined);
      await sleep(delayMs, request.signal);
    }
  };
}

/** Full-jitter exponential backoff: uniform in [0, min(maxDelay, base · 2^(attempt−1))). */
export function backoffDelay(attempt: number, settings: Pick<Required<RetryOptions>, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(settings.random() * ceiling);
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date always names its day and month; anything else (such as "-1") is unreadable.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'));
}

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
