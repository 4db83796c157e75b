// Load generation and its figures, shared by the emulator benchmarks: autocannon runs of one
// endpoint against one server, contenders measured in interleaved rounds, the summary of each
// (median round's req/s, latencies from autocannon's per-response events at µs precision, server
// CPU from /proc), the bare node:http floor server, number formats, and the one percentile every
// benchmark reads its figures with. Why it measures this way: the header of emulator.bench.js.
import { spawn } from 'node:child_process';
import { stopChild } from '@agentplane/mock/prism';
import autocannon from 'autocannon';
import { cpuSeconds } from './emulator-process.js';
import { isolate } from './isolation.js';

export const WARMUP_S = 2; // long enough for V8 to optimise the request path: 1 s left the first round slow
export const ROUNDS = 3; // odd, so that the median is one round's rate
/** The thread ID of the spec's examples: what Prism answers, and what the floor server returns. */
export const PRISM_THREAD_ID = '8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f';

/**
 * One run against one server.
 * @typedef {object} Sample
 * @property {number[]} latencies ms, 2xx answers only
 * @property {number} seconds wall time
 * @property {number} serverCpu CPU seconds the server process used meanwhile
 * @property {number} loadCpu CPU seconds this process (the load generator) used meanwhile
 * @property {Record<string, number>} statuses answers per status code, plus `errors`/`timeouts`
 */

/**
 * Several samples of one contender, summed up.
 * @typedef {object} Measurement
 * @property {number} rps 2xx answers per second of wall time: the median of the rounds' rates, so
 *   that one round disturbed by other work on the machine does not move it
 * @property {number} p50 ms
 * @property {number} p99 ms
 * @property {number} serverCpu server CPU time / wall time (1 = one core busy)
 * @property {number} cpuPerAnswer server CPU seconds per 2xx answer, over all rounds
 * @property {number} loadCpu load generator CPU time / wall time
 * @property {number} ok number of 2xx answers
 * @property {number} failed answers that were not a 2xx, socket errors and timeouts
 * @property {string} statuses such as `200×41233`
 */

/**
 * @typedef {object} Endpoint
 * @property {string} name
 * @property {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} method
 * @property {() => string} path a path per request (GET targets vary, as real traffic does)
 * @property {() => string} [body] a JSON body per request
 * @property {(options: {server: Server, connections: number, duration?: number, amount?: number}) => Promise<Sample>} [sample]
 *   how to measure it when one operation is more than one request (a run created, then joined);
 *   by default, one autocannon run of the request (`load`)
 */

/** @typedef {{url: string, pid: number}} Server */

/**
 * One autocannon run of `endpoint` against `server`: `duration` seconds, or `amount` requests.
 * `onAnswer` receives each answer's status and body (autocannon then keeps the bodies).
 * @param {{server: Server, endpoint: Endpoint, connections: number, duration?: number, amount?: number, onAnswer?: (status: number, body: string) => void}} options
 * @returns {Promise<Sample>}
 */
export async function load({ server, endpoint, connections, duration, amount, onAnswer }) {
  const { body, path: nextPath } = endpoint;
  const request = {
    method: endpoint.method,
    ...(body ? { headers: { 'content-type': 'application/json' } } : {}),
    setupRequest: (/** @type {Record<string, unknown>} */ req) => ({ ...req, path: nextPath(), ...(body ? { body: body() } : {}) }),
    ...(onAnswer ? { onResponse: onAnswer } : {}),
  };
  /** @type {number[]} */
  const latencies = [];
  /** @type {Record<string, number>} */
  const statuses = {};
  const serverBefore = cpuSeconds(server.pid);
  const loadBefore = process.cpuUsage();
  const started = performance.now();
  let lastAnswer = started;
  const instance = autocannon({ url: server.url, connections, ...(amount ? { amount } : { duration }), requests: [request], timeout: 30 });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    lastAnswer = performance.now();
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  // A run of `amount` requests ends on autocannon's next 1 s sampling tick, not at its last
  // answer: its wall time is measured up to that answer.
  const seconds = ((amount ? lastAnswer : performance.now()) - started) / 1000;
  const loadUsage = process.cpuUsage(loadBefore);
  if (result.errors) statuses.errors = result.errors;
  if (result.timeouts) statuses.timeouts = result.timeouts;
  return {
    latencies,
    seconds,
    serverCpu: cpuSeconds(server.pid) - serverBefore,
    loadCpu: (loadUsage.user + loadUsage.system) / 1e6,
    statuses,
  };
}

/** @param {Sample[]} samples @returns {Measurement} */
export function summarize(samples) {
  const latencies = samples.flatMap((s) => s.latencies);
  const seconds = samples.reduce((sum, s) => sum + s.seconds, 0);
  /** @type {Record<string, number>} */
  const statuses = {};
  for (const sample of samples) for (const [code, n] of Object.entries(sample.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    rps: percentile(
      samples.map((s) => s.latencies.length / s.seconds),
      50,
    ),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    serverCpu: samples.reduce((sum, s) => sum + s.serverCpu, 0) / seconds,
    cpuPerAnswer: samples.reduce((sum, s) => sum + s.serverCpu, 0) / Math.max(1, latencies.length),
    loadCpu: samples.reduce((sum, s) => sum + s.loadCpu, 0) / seconds,
    ok: latencies.length,
    failed: total - latencies.length,
    statuses: Object.entries(statuses)
      .map(([code, n]) => `${code}×${n}`)
      .join(' '),
  };
}

/**
 * Measures several contenders alike: a warm-up each, then `rounds` interleaved rounds, each of
 * `seconds`, or of `amount` requests (for writes that consume their targets, such as deletes:
 * the number of targets each contender needs is then known in advance, `amount × (rounds + 1)`).
 * Each runs alone, the others stopped, from a quiet start (isolation.js); `bystanders` are the
 * pids of other servers of the benchmark, stopped throughout.
 * @param {{server: Server, endpoint: Endpoint}[]} contenders
 * @param {{connections: number, seconds?: number, amount?: number, warmup?: number, rounds?: number, bystanders?: number[]}} options
 * @returns {Promise<Measurement[]>}
 */
export async function compare(contenders, { connections, seconds, amount, warmup = WARMUP_S, rounds = ROUNDS, bystanders = [] }) {
  const length = amount ? { amount } : { duration: seconds };
  const machine = isolate([...contenders.map(({ server }) => server.pid), ...bystanders]);
  try {
    const measure = (/** @type {Endpoint} */ endpoint, /** @type {Parameters<typeof load>[0]} */ options) =>
      endpoint.sample ? endpoint.sample(options) : load(options);
    for (const { server, endpoint } of contenders) {
      await machine.alone(server.pid);
      await measure(endpoint, { server, endpoint, connections, ...(amount ? { amount } : { duration: warmup }) });
    }
    /** @type {Sample[][]} */
    const samples = contenders.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, { server, endpoint }] of contenders.entries()) {
        await machine.alone(server.pid);
        samples[i].push(await measure(endpoint, { server, endpoint, connections, ...length }));
      }
    }
    return samples.map(summarize);
  } finally {
    machine.resumeAll();
  }
}

/**
 * The floor of any Node server on the machine running the bench, at that moment: a bare node:http process that
 * answers every request with the same thread JSON, doing no routing, validation or storage.
 */
export async function startFloorServer() {
  const thread = {
    thread_id: PRISM_THREAD_ID,
    created_at: '2026-11-19T14:02:11.204Z',
    updated_at: '2026-11-19T14:02:11.217Z',
    metadata: { graph_id: 'support', tenant: 'tenant-7', user: 'user-42' },
    status: 'idle',
    config: {},
  };
  const script = `
    const body = ${JSON.stringify(JSON.stringify(thread))};
    const server = require('node:http').createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body));
    });
    server.keepAliveTimeout = 30000;
    server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  /** @type {string} */
  const port = await new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code})`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    pid: /** @type {number} */ (child.pid),
    stop: () => stopChild(child, exited),
  };
}

/**
 * The `p`th percentile (0–100) of `values`, NaN when there are none: the value at 0-based index
 * ⌊p/100 · n⌋ of the n values sorted ascending (the last one when that index is n), with no
 * interpolation, so that it is always one of the measured values. For p = 50 and an even count
 * that is the upper of the two middle values (not their mean): the median of every benchmark
 * here, the median round included. Every figure the benchmarks print is read with this one
 * definition, so that their p50s, p99s and medians compare.
 * @param {number[]} values not changed (a sorted copy is read)
 * @param {number} p
 */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export const fmtMs = (/** @type {number} */ v) =>
  !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
export const fmtRate = (/** @type {number} */ v) => Math.round(v).toLocaleString('en-US');
export const fmtShare = (/** @type {number} */ v) => `${Math.round(v * 100)}%`;
export const fmtCount = (/** @type {number} */ v) => v.toLocaleString('en-US');
/** Server CPU µs per 2xx answer. */
export const perRequest = (/** @type {Measurement} */ m) => m.cpuPerAnswer * 1e6;
