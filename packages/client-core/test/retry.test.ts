import { describe, expect, it, vi } from 'vitest';
import type { RequestLike } from '../src/outgoing-request.js';
import type { FetchLike, RetryOptions } from '../src/retry.js';
import { backoffDelay, createRetryingFetch, parseRetryAfter } from '../src/retry.js';

/** A fetch that answers from a script: a status number, a Response, or an Error to throw. */
function scripted(steps: (number | Response | Error)[]) {
  const calls: { method: string; body: string }[] = [];
  const fetch: FetchLike = async (request) => {
    calls.push({ method: request.method, body: await request.text() });
    const step = steps[Math.min(calls.length - 1, steps.length - 1)]!;
    if (step instanceof Error) throw step;
    return typeof step === 'number' ? new Response(JSON.stringify({ status: step }), { status: step }) : step;
  };
  return { fetch, calls };
}

const always = () => true;
const never = () => false;
const fast: RetryOptions = { baseDelayMs: 1, maxDelayMs: 2, random: () => 0 };
const get = () => new Request('http://api.test/v2/deployments/x');
const post = (body = '{"a":1}') =>
  new Request('http://api.test/threads', { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('createRetryingFetch', () => {
  it.each([429, 502, 503, 504])('retries %i until success', async (status) => {
    const { fetch, calls } = scripted([status, status, 200]);
    const response = await createRetryingFetch(fetch, fast, always)(get());
    expect(response.status).toBe(200);
    expect(calls).toHaveLength(3);
  });

  it.each([400, 401, 404, 409, 422, 500, 501])('does not retry %i', async (status) => {
    const { fetch, calls } = scripted([status, 200]);
    expect((await createRetryingFetch(fetch, fast, always)(get())).status).toBe(status);
    expect(calls).toHaveLength(1);
  });

  it('retries network errors and rethrows the last one when attempts run out', async () => {
    const failure = new TypeError('fetch failed');
    const { fetch, calls } = scripted([failure]);
    await expect(createRetryingFetch(fetch, { ...fast, attempts: 4 }, always)(get())).rejects.toBe(failure);
    expect(calls).toHaveLength(4);
  });

  it('returns the last retryable answer when attempts run out', async () => {
    const { fetch, calls } = scripted([503]);
    expect((await createRetryingFetch(fetch, { ...fast, attempts: 2 }, always)(get())).status).toBe(503);
    expect(calls).toHaveLength(2);
  });

  it('never retries a request that is not safe to repeat', async () => {
    const { fetch, calls } = scripted([503, 200]);
    expect((await createRetryingFetch(fetch, fast, never)(post())).status).toBe(503);
    await expect(createRetryingFetch(scripted([new TypeError('x')]).fetch, fast, never)(post())).rejects.toThrow('x');
    expect(calls).toHaveLength(1);
  });

  it('re-sends the same body on every attempt', async () => {
    const { fetch, calls } = scripted([502, 502, 201]);
    await createRetryingFetch(fetch, fast, always)(post('{"thread_id":"t"}'));
    expect(calls.map((c) => c.body)).toEqual(['{"thread_id":"t"}', '{"thread_id":"t"}', '{"thread_id":"t"}']);
    expect(calls.every((c) => c.method === 'POST')).toBe(true);
  });

  it('asks the predicate only after a retryable failure, and once per call', async () => {
    const predicate = vi.fn(always);
    await createRetryingFetch(scripted([200]).fetch, fast, predicate)(post());
    expect(predicate).not.toHaveBeenCalled();
    const { fetch, calls } = scripted([503, new TypeError('x'), 200]);
    expect((await createRetryingFetch(fetch, fast, predicate)(post())).status).toBe(200);
    expect(calls).toHaveLength(3);
    expect(predicate).toHaveBeenCalledTimes(1);
  });

  it('sends once a request whose body cannot be copied', async () => {
    const { fetch, calls } = scripted([503, 200]);
    const streamed = {
      method: 'POST',
      body: new ReadableStream(),
      clone: () => {
        throw new TypeError('a request with a streamed body cannot be cloned');
      },
      text: async () => '',
    } as unknown as RequestLike;
    expect((await createRetryingFetch(fetch, fast, always)(streamed)).status).toBe(503);
    expect(calls).toHaveLength(1);
  });

  it('lets the predicate read the body without consuming it', async () => {
    const { fetch, calls } = scripted([503, 200]);
    const hasThreadId = async (request: RequestLike) => 'thread_id' in ((await request.json()) as object);
    expect((await createRetryingFetch(fetch, fast, hasThreadId)(post('{"thread_id":"t"}'))).status).toBe(200);
    expect(calls[0]!.body).toBe('{"thread_id":"t"}');
  });

  it('is switched off with retry: false or attempts: 1', async () => {
    for (const options of [false, { attempts: 1 }] as const) {
      const { fetch, calls } = scripted([503, 200]);
      expect((await createRetryingFetch(fetch, options, always)(get())).status).toBe(503);
      expect(calls).toHaveLength(1);
    }
  });

  it('refuses a nonsensical attempt count', () => {
    expect(() => createRetryingFetch(scripted([200]).fetch, { attempts: 0 }, always)).toThrow(RangeError);
  });

  it('honours Retry-After (seconds) up to the cap', async () => {
    const delays: number[] = [];
    const { fetch } = scripted([
      new Response('', { status: 429, headers: { 'retry-after': '0' } }),
      new Response('', { status: 429, headers: { 'retry-after': '120' } }),
      200,
    ]);
    vi.useFakeTimers();
    try {
      const pending = createRetryingFetch(fetch, { ...fast, maxRetryAfterMs: 50, onRetry: (e) => delays.push(e.delayMs) }, always)(get());
      await vi.runAllTimersAsync();
      expect((await pending).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
    expect(delays).toEqual([0, 50]);
  });

  it('waits the jittered exponential backoff between attempts, within its bounds', async () => {
    const delays: number[] = [];
    const { fetch } = scripted([503, 503, 503, 503, 200]);
    vi.useFakeTimers();
    try {
      const pending = createRetryingFetch(
        fetch,
        { attempts: 5, baseDelayMs: 100, maxDelayMs: 300, random: () => 0.999, onRetry: (e) => delays.push(e.delayMs) },
        always,
      )(get());
      await vi.runAllTimersAsync();
      await pending;
    } finally {
      vi.useRealTimers();
    }
    expect(delays).toEqual([99, 199, 299, 299]);
  });

  it('stops waiting and rejects with the reason when the signal aborts', async () => {
    const controller = new AbortController();
    const { fetch, calls } = scripted([503, 200]);
    const pending = createRetryingFetch(
      fetch,
      { baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0.5 },
      always,
    )(new Request('http://api.test/x', { signal: controller.signal }));
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
    expect(calls).toHaveLength(1);
  });

  it('does not retry an aborted request', async () => {
    const controller = new AbortController();
    controller.abort();
    const abortError = new DOMException('aborted', 'AbortError');
    const { fetch, calls } = scripted([abortError]);
    await expect(createRetryingFetch(fetch, fast, always)(new Request('http://api.test/x', { signal: controller.signal }))).rejects.toBe(
      abortError,
    );
    expect(calls).toHaveLength(1);
  });
});

describe('backoffDelay', () => {
  it('stays in [0, min(max, base·2^(n−1)))', () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      for (const r of [0, 0.25, 0.999999]) {
        const delay = backoffDelay(attempt, { baseDelayMs: 250, maxDelayMs: 8000, random: () => r });
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(Math.min(8000, 250 * 2 ** (attempt - 1)));
      }
    }
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates, and ignores garbage', () => {
    const now = Date.parse('2026-11-20T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});
