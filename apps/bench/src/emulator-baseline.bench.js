// This checkout's emulator next to another checkout's (a baseline: the previous release, or main
// before a change), on the reads of short threads and a run: whether a change made any of them
// slower. Both are the CLI on a SQLite file (NODE_ENV=production), hold the same threads made
// through the API with the same requests, and are measured alike (`compare`: interleaved rounds,
// each server alone). The baseline is the checkout named by AGENTPLANE_BENCH_BASELINE, built there
// (`npm ci && npm run build`); without it the benchmark says so and measures nothing.
//
// A short thread is what most apps hold: RUNS_PER_THREAD exchanges with the default echo graph
// (two messages each, a checkpoint per step), on each of THREADS threads with metadata to search by.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmulatorProcess } from './emulator-process.js';
import { compare, fmtMs, fmtRate, perRequest } from './http-load.js';
import { printTable } from './table.js';

/** @typedef {import('./http-load.js').Endpoint} Endpoint */

export const title = "Emulator: this checkout's short-thread reads and runs next to a baseline checkout's";

const BASELINE = process.env.AGENTPLANE_BENCH_BASELINE;
const CONNECTIONS = 10;
const THREADS = 200;
const RUNS_PER_THREAD = 3;
const ROUND_S = 2;

/**
 * Makes the same short threads on `url`; returns their IDs and, for each, a checkpoint of its
 * middle (the state at a checkpoint is read there).
 * @param {string} url
 */
async function seed(url) {
  /** @type {{threadId: string, checkpointId: string}[]} */
  const threads = [];
  const post = async (/** @type {string} */ target, /** @type {unknown} */ body) => {
    const response = await fetch(`${url}${target}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${target} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  for (let i = 0; i < THREADS; i++) {
    const threadId = crypto.randomUUID();
    await post('/threads', { thread_id: threadId, metadata: { team: `team-${i % 10}`, user: `user-${i}` } });
    for (let run = 1; run <= RUNS_PER_THREAD; run++)
      await post(`/threads/${threadId}/runs/wait`, {
        assistant_id: 'agent',
        input: { messages: [{ type: 'human', content: `Question ${run} about order ${4500 + i}?` }] },
      });
    const history = /** @type {{checkpoint: {checkpoint_id: string}}[]} */ (await post(`/threads/${threadId}/history`, { limit: 100 }));
    threads.push({ threadId, checkpointId: history[Math.floor(history.length / 2)].checkpoint.checkpoint_id });
  }
  return threads;
}

/**
 * The rows: each an endpoint over the threads seeded on one server (their IDs differ per server).
 * @param {{threadId: string, checkpointId: string}[]} threads
 * @returns {Endpoint[]}
 */
function endpointsOver(threads) {
  let i = 0;
  const next = () => threads[i++ % threads.length];
  return [
    { name: 'GET /threads/{id}', method: 'GET', path: () => `/threads/${next().threadId}` },
    { name: 'GET /threads/{id}/state', method: 'GET', path: () => `/threads/${next().threadId}/state` },
    {
      name: 'GET /threads/{id}/state/{checkpoint_id}',
      method: 'GET',
      path: () => {
        const thread = next();
        return `/threads/${thread.threadId}/state/${thread.checkpointId}`;
      },
    },
    { name: 'GET /threads/{id}/state?subgraphs=true', method: 'GET', path: () => `/threads/${next().threadId}/state?subgraphs=true` },
    {
      name: 'POST /threads/{id}/history (limit 10)',
      method: 'POST',
      path: () => `/threads/${next().threadId}/history`,
      body: () => JSON.stringify({ limit: 10 }),
    },
    {
      name: 'POST /threads/search (metadata, with values)',
      method: 'POST',
      path: () => '/threads/search',
      body: () => JSON.stringify({ metadata: { team: `team-${i++ % 10}` }, limit: 10 }),
    },
    {
      name: 'POST /threads/{id}/runs/wait (a 4th exchange)',
      method: 'POST',
      path: () => `/threads/${next().threadId}/runs/wait`,
      body: () => JSON.stringify({ assistant_id: 'agent', input: { messages: [{ type: 'human', content: 'And when will it arrive?' }] } }),
    },
  ];
}

export async function run() {
  if (!BASELINE) {
    console.log('Set AGENTPLANE_BENCH_BASELINE to another checkout of this repository, built (npm ci && npm run build), to compare with.');
    return;
  }
  const baselineBin = path.join(path.resolve(BASELINE), 'apps', 'emulator', 'bin', 'agentplane-emulator.js');
  if (!fs.existsSync(baselineBin)) throw new Error(`no emulator CLI at ${baselineBin}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-bench-baseline-'));
  const current = await startEmulatorProcess({ db: path.join(dir, 'current.db'), production: true });
  const baseline = await startEmulatorProcess({ db: path.join(dir, 'baseline.db'), production: true, bin: baselineBin });
  try {
    const [currentRows, baselineRows] = [endpointsOver(await seed(current.url)), endpointsOver(await seed(baseline.url))];
    console.log(
      `${THREADS} threads of ${RUNS_PER_THREAD} exchanges with the echo graph on each server; ${CONNECTIONS} connections, rounds of ${ROUND_S} s.`,
    );
    console.log(`This checkout against ${path.resolve(BASELINE)}. A ratio above 1.00× is this checkout slower.\n`);
    /** @type {string[][]} */
    const rows = [];
    for (const [i, endpoint] of currentRows.entries()) {
      const [now, before] = await compare(
        [
          { server: { url: current.url, pid: current.pid }, endpoint },
          { server: { url: baseline.url, pid: baseline.pid }, endpoint: baselineRows[i] },
        ],
        { connections: CONNECTIONS, seconds: ROUND_S },
      );
      rows.push([
        endpoint.name,
        fmtRate(now.rps),
        fmtRate(before.rps),
        fmtMs(now.p50),
        fmtMs(before.p50),
        `${fmtRate(perRequest(now))} µs`,
        `${fmtRate(perRequest(before))} µs`,
        `${(before.rps / now.rps).toFixed(2)}×`,
        `${now.statuses} / ${before.statuses}`,
      ]);
    }
    printTable(
      [
        'operation',
        'req/s now',
        'req/s before',
        'p50 now ms',
        'p50 before ms',
        'CPU/req now',
        'CPU/req before',
        'time now/before',
        'answers',
      ],
      rows,
      [0, 8],
    );
    console.log(`emulator stderr (contract violations, internal errors): ${current.stderrLines()} / ${baseline.stderrLines()} lines`);
  } finally {
    await current.stop();
    await baseline.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
