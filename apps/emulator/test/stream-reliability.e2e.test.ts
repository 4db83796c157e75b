// Streams under abuse, against the built CLI in its own process (as users run it): clients that
// leave mid-stream (with and without `on_disconnect: cancel`), a reader that stops reading for a
// while, and a thousand streams opened at once and dropped. Afterwards no run is left pending or
// running, no thread busy, every stream that was read to its end is whole, and the emulator
// reported nothing (in this mode it checks every event it sends against the spec). Memory under
// the same load is a figure of the streams benchmark (apps/bench), not an assertion here.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCli } from './support/cli-process.js';
import { children, startCli } from './support/cli-process.js';

const WORDS = 'one two three four five six seven eight nine ten';
const GRAPHS = {
  // Ten words, 20 ms before each: a run streams for about 200 ms.
  paced: { replies: [{ text: WORDS }], stream: { chunk: 'word', delay_ms: 20 } },
};
/** metadata, values (input), ten `messages`, values (reply). */
const EVENTS_PER_RUN = 13;

let cli: RunningCli;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-stream-reliability-'));
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ graphs: GRAPHS }));
  cli = await startCli(path.join(dir, 'emulator.db'), config);
}, 60_000);
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const agent = new http.Agent({ keepAlive: false, maxSockets: 1000 });
const body = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    assistant_id: 'paced',
    input: { messages: [{ type: 'human', content: 'go' }] },
    stream_mode: ['values', 'messages-tuple'],
    if_not_exists: 'create',
    ...extra,
  });

interface Opened {
  threadId: string;
  runId: Promise<string>;
  /** Resolves with the whole body once the response ended. */
  text: Promise<string>;
  request: http.ClientRequest;
  response: Promise<http.IncomingMessage>;
}

/** Opens a stream of a new run on a new thread. */
function open(extra: Record<string, unknown> = {}): Opened {
  const threadId = crypto.randomUUID();
  let request!: http.ClientRequest;
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    request = http.request(
      `${cli.agentServerUrl}/threads/${threadId}/runs/stream`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': cli.apiKey } },
      resolve,
    );
    request.on('error', reject);
    request.end(body(extra));
  });
  const runId = response.then((res) => /\/runs\/([0-9a-f-]{36})$/.exec(String(res.headers['content-location']))![1]!);
  const text = response.then(
    (res) =>
      new Promise<string>((resolve) => {
        let all = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (all += chunk));
        res.on('end', () => resolve(all));
        res.on('close', () => resolve(all));
      }),
  );
  return { threadId, runId, text, request, response };
}

const events = (text: string) => (text.match(/^event: /gm) ?? []).length;

async function api<T>(method: string, route: string, payload?: unknown): Promise<T> {
  const response = await fetch(`${cli.agentServerUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': cli.apiKey },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  return (await response.json()) as T;
}

const runOf = (threadId: string, runId: string) => api<{ status: string }>('GET', `/threads/${threadId}/runs/${runId}`);
const busyThreads = () => api<number>('POST', '/threads/count', { status: 'busy' });

async function settled(what: string): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 100) {
    if ((await busyThreads()) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`threads still busy after 60 s (${what})`);
}

describe('streams that end badly leave nothing stuck', () => {
  it('a client that leaves mid-stream: the run goes on to success, or is cancelled with on_disconnect: cancel', async () => {
    const leaving = async (extra: Record<string, unknown>) => {
      const stream = open(extra);
      const res = await stream.response;
      // Leave after the first bytes, mid-run.
      await new Promise<void>((resolve) => res.once('data', () => resolve()));
      stream.request.destroy();
      return { threadId: stream.threadId, runId: await stream.runId };
    };
    const continued = await Promise.all(Array.from({ length: 20 }, () => leaving({})));
    const cancelled = await Promise.all(Array.from({ length: 20 }, () => leaving({ on_disconnect: 'cancel' })));
    await settled('clients that left');
    const statuses = async (runs: { threadId: string; runId: string }[]) =>
      new Set(await Promise.all(runs.map(async ({ threadId, runId }) => (await runOf(threadId, runId)).status)));
    expect(await statuses(continued)).toEqual(new Set(['success']));
    expect(await statuses(cancelled)).toEqual(new Set(['interrupted']));
  }, 120_000);

  it('a reader that stops reading for a while still gets every event, in order', async () => {
    const stream = open();
    const res = await stream.response;
    res.pause();
    // The run ends while nobody reads: its events wait in the connection's buffers.
    const runId = await stream.runId;
    for (let waited = 0; (await runOf(stream.threadId, runId)).status !== 'success'; waited += 50) {
      if (waited > 20_000) throw new Error('the run did not end');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    res.resume();
    const text = await stream.text;
    expect(events(text)).toBe(EVENTS_PER_RUN);
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual(Array.from({ length: EVENTS_PER_RUN }, (_, i) => i));
  }, 60_000);

  it('a thousand streams opened at once and dropped: every run ends, no thread stays busy, the emulator reports nothing', async () => {
    const streams = Array.from({ length: 1000 }, () => open());
    // Drop each as soon as its answer begins.
    await Promise.all(streams.map(async (stream) => (await stream.response).destroy()));
    await settled('a thousand dropped streams');
    const sample = await Promise.all(streams.slice(0, 50).map(async (s) => (await runOf(s.threadId, await s.runId)).status));
    expect(new Set(sample)).toEqual(new Set(['success']));
    // The emulator still streams whole runs afterwards.
    const after = open();
    expect(events(await after.text)).toBe(EVENTS_PER_RUN);
    expect(cli.stderr()).toBe('');
  }, 180_000);
});
