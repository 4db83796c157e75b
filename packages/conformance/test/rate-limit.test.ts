// 429 answers are waited out, not counted: a rate-limiting proxy (node:http) in front of the
// emulator answers 429 to some requests, with Retry-After in both of its forms (seconds and an
// HTTP date), and the run still passes every check, its report saying how many it waited out.
// The proxy forwards the protocol check's WebSocket handshake as a real proxy does (one that
// dropped it left that check waiting for an answer that never came, and the test timed out).
import type { RunningEmulator } from '@agentplane/emulator';
import { startEmulator } from '@agentplane/emulator';
import type { InterceptingProxy } from '@agentplane/openapi-toolkit/testing';
import { startInterceptingProxy } from '@agentplane/openapi-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimitWait } from '../src/index.js';
import { rateLimitLine, runConformance, summaryTable } from '../src/index.js';

/** Which requests (1-based, in arrival order) the proxy refuses, and the Retry-After it sends. */
const REFUSED: Record<number, () => string> = {
  3: () => '1',
  // An HTTP date has whole seconds: one second ahead is at most a second's wait.
  8: () => new Date(Date.now() + 1_000).toUTCString(),
  12: () => '0',
};

let emulator: RunningEmulator;
let proxy: InterceptingProxy;
let proxyUrl: string;
const refusedRequests: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ db: ':memory:', controlPlanePort: 0, agentServerPort: 0 });
  let seen = 0;
  proxy = await startInterceptingProxy(emulator.agentServerUrl, (request, response) => {
    seen++;
    const retryAfter = REFUSED[seen]?.();
    if (retryAfter === undefined) return false;
    refusedRequests.push(`${request.method} ${request.url}`);
    request.resume();
    response.writeHead(429, { 'Retry-After': retryAfter, 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ detail: 'Too many requests.' }));
    return true;
  });
  proxyUrl = proxy.url;
});
afterAll(async () => {
  await proxy?.close();
  await emulator?.close();
});

describe('a run behind a rate-limiting proxy', () => {
  it('waits out every 429 (Retry-After in seconds and as a date), and passes every check', async () => {
    const waits: RateLimitWait[] = [];
    const report = await runConformance({ agentServer: { url: proxyUrl, allowRuns: true }, onRateLimit: (wait) => waits.push(wait) });
    const table = summaryTable(report);
    console.log(table);
    expect(refusedRequests).toHaveLength(Object.keys(REFUSED).length);
    // Only the checks that need the conformance script are skipped: this emulator runs its echo graph.
    expect(report.results.filter((result) => result.verdict !== 'pass').map((result) => [result.id, result.verdict])).toEqual(
      [
        'runs:input-and-command',
        'runs:tool-call',
        'runs:node-error',
        'runs:recursion-limit',
        'runs:interrupt',
        'runs:strict-resume',
        'runs:keyed-by-interrupt-id',
        'streams:interrupt',
        'streams:node-error',
        'protocol:interrupt',
        'protocol:events',
      ].map((id) => [id, 'skipped']),
    );
    expect(report.ok).toBe(true);
    expect(report.rateLimited.answers).toBe(3);
    expect(waits.map((wait) => wait.waitMs)).toEqual([1_000, expect.any(Number), 0]);
    expect(waits[1]!.waitMs).toBeLessThanOrEqual(1_000);
    expect(rateLimitLine(waits[0]!)).toMatch(/^… agent-server \w+: 429, waiting 1\.0 s as Retry-After says \(not a failure\)$/);
    expect(table).toMatch(/rate limited: waited out 3 429 answer\(s\), [\d.]+ s in all/);
    expect(report.cleanup.deleted).toBe(report.cleanup.created);
    // A whole conformance run (178 checks since the protocol's and the SDK fields' came) through the
    // proxy: 19.5 s alone, past 60 s in the clean-clone CI run beside the other suites.
  }, 180_000);
});
