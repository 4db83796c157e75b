// A long thread, as a new user would make one (decision E29): one thread of the default echo
// graph, one client, runs waited for one after the other, each adding a 200-character human
// message and its echo. The emulator runs as `npm start` runs it (the CLI, NODE_ENV=production) on
// a SQLite file, where each step's checkpoint is committed before the next.
//
// Printed at 10, 100 and 1,000 runs: the p50 of the last ten runs' waits (the whole exchange,
// the answer's bytes read, not parsed), the server's CPU per run over them (from /proc, steadier
// than a latency on a shared machine), the database's bytes per message (the pages in use, read
// through the WAL, and the file and its WAL as they lie on disk), and the ratios of the 1,000-run
// figures to the 10- and 100-run ones. Before any of it, the server is warmed on another thread.
// Each thread is measured REPEATS times, on a fresh file each, and the median is shown.
//
// The marks are minutes apart, and this machine's speed is not the same from one minute to the
// next (the same run's server CPU has varied by half between two runs of this bench). So the
// ratio the target is set on is also measured side by side: once the thread is past its last mark,
// its next SIDE_BY_SIDE runs alternate with the 10th run of as many other threads, each taken to 9
// runs beforehand, and the two p50s come from the same seconds.
//
// Then runs/s as the runs benchmark measures them (emulator-runs.bench.js: the tool loop, a new
// thread per run, 10 clients, the file database, an answer only once committed), for the emulator
// alone.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { cpuSeconds, startEmulatorProcess } from './emulator-process.js';
import { GRAPHS, WAIT } from './emulator-runs.bench.js';
import { compare, fmtMs, fmtRate, percentile } from './http-load.js';
import { printTable } from './table.js';

export const title = 'Emulator: one long thread (runs waited for one after another) and runs/s';

const MARKS = [10, 100, 1000];
const LAST_MARK = MARKS[MARKS.length - 1] ?? 0;
const WINDOW = 10;
/** Pairs of runs in the side-by-side comparison: more than a mark's window, as it costs little. */
const SIDE_BY_SIDE = 30;
const REPEATS = 3;
const WARMUP_RUNS = 300;
const CONTENT_CHARS = 200;

/**
 * One request on a kept-alive connection: its status, and the answer's bytes counted, not decoded.
 * @param {http.Agent} agent @param {string} url @param {string} body
 * @returns {Promise<{status: number, bytes: number}>}
 */
function post(agent, url, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** The bytes of the database's pages in use (the file as the WAL has it), and the file and its WAL on disk. */
function databaseBytes(/** @type {string} */ file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const pageSize = /** @type {number} */ (db.pragma('page_size', { simple: true }));
    const pages = /** @type {number} */ (db.pragma('page_count', { simple: true }));
    const free = /** @type {number} */ (db.pragma('freelist_count', { simple: true }));
    const onDisk = ['', '-wal'].reduce((sum, suffix) => sum + (fs.existsSync(file + suffix) ? fs.statSync(file + suffix).size : 0), 0);
    return { used: (pages - free) * pageSize, onDisk };
  } finally {
    db.close();
  }
}

/**
 * One thread taken to the last mark on a fresh file: at each mark, the p50 of the last WINDOW
 * waits, the server's CPU per run over them, and the database's bytes.
 */
async function longThread() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-bench-long-'));
  const file = path.join(dir, 'emulator.db');
  const server = await startEmulatorProcess({ db: file, production: true });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const run = async (/** @type {string} */ threadId, /** @type {number} */ i) => {
      const content = `message ${i}: `.padEnd(CONTENT_CHARS, 'abcdefghij');
      const body = JSON.stringify({ assistant_id: 'agent', input: { messages: [{ type: 'human', content }] }, if_not_exists: 'create' });
      const started = performance.now();
      const answer = await post(agent, `${server.url}/threads/${threadId}/runs/wait`, body);
      if (answer.status !== 200) throw new Error(`run ${i} of thread ${threadId} answered ${answer.status}`);
      return { ms: performance.now() - started, bytes: answer.bytes };
    };
    const warmup = crypto.randomUUID();
    for (let i = 1; i <= WARMUP_RUNS; i++) await run(warmup, i);
    await post(agent, `${server.url}/threads/prune`, JSON.stringify({ thread_ids: [warmup], strategy: 'delete' }));
    const empty = databaseBytes(file).used;
    const threadId = crypto.randomUUID();
    /** @type {{runs: number, p50: number, cpuPerRun: number, answerBytes: number, usedPerMessage: number, addedPerMessage: number, onDiskPerMessage: number}[]} */
    const marks = [];
    /** @type {number[]} */
    let window = [];
    let cpuBefore = cpuSeconds(server.pid);
    let answerBytes = 0;
    for (let i = 1; i <= LAST_MARK; i++) {
      if (MARKS.some((mark) => mark - WINDOW === i - 1)) {
        window = [];
        cpuBefore = cpuSeconds(server.pid);
      }
      const { ms, bytes } = await run(threadId, i);
      window.push(ms);
      answerBytes = bytes;
      if (!MARKS.includes(i)) continue;
      const cpuPerRun = (cpuSeconds(server.pid) - cpuBefore) / window.length;
      const { used, onDisk } = databaseBytes(file);
      const messages = 2 * i;
      marks.push({
        runs: i,
        p50: percentile(window, 50),
        cpuPerRun: cpuPerRun * 1000,
        answerBytes,
        usedPerMessage: used / messages,
        addedPerMessage: (used - empty) / messages,
        onDiskPerMessage: onDisk / messages,
      });
    }
    // The short threads of the side-by-side comparison, made once the database's bytes are measured.
    const shortThreads = Array.from({ length: SIDE_BY_SIDE }, () => crypto.randomUUID());
    for (const shortThread of shortThreads) for (let i = 1; i < MARKS[0]; i++) await run(shortThread, i);
    // Side by side: the long thread's next runs alternate with the short threads' 10th, which goes first every other time.
    /** @type {number[]} */
    const short = [];
    /** @type {number[]} */
    const long = [];
    for (const [k, shortThread] of shortThreads.entries()) {
      const pair = [
        () => run(shortThread, MARKS[0]).then(({ ms }) => short.push(ms)),
        () => run(threadId, LAST_MARK + 1 + k).then(({ ms }) => long.push(ms)),
      ];
      for (const one of k % 2 === 0 ? pair : pair.reverse()) await one();
    }
    return { marks, sideBySide: { short: percentile(short, 50), long: percentile(long, 50) }, errors: server.stderrLines() };
  } finally {
    agent.destroy();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The runs benchmark's figure, for the emulator on a file alone: runs/s of the tool loop with 10 clients. */
async function runsPerSecond() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-bench-runs-'));
  const config = path.join(dir, 'graphs.json');
  fs.writeFileSync(config, JSON.stringify({ graphs: GRAPHS }));
  const server = await startEmulatorProcess({ db: path.join(dir, 'emulator.db'), production: true, args: ['--config', config] });
  try {
    const [measured] = await compare([{ server: { url: server.url, pid: server.pid }, endpoint: WAIT }], { connections: 10, seconds: 3 });
    return { measured, errors: server.stderrLines() };
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const started = performance.now();
  /** @type {Awaited<ReturnType<typeof longThread>>[]} */
  const threads = [];
  for (let i = 0; i < REPEATS; i++) {
    threads.push(await longThread());
    console.log(`  measured thread ${i + 1} of ${REPEATS}`);
  }
  const at = (
    /** @type {number} */ index,
    /** @type {'p50' | 'cpuPerRun' | 'usedPerMessage' | 'addedPerMessage' | 'onDiskPerMessage' | 'answerBytes'} */ field,
  ) =>
    percentile(
      threads.map((thread) => thread.marks[index][field]),
      50,
    );
  console.log(
    `\nOne thread of the echo graph on a SQLite file, one client, runs waited for one after another (${CONTENT_CHARS}-character messages; a run adds two);`,
  );
  console.log(
    `the median of ${REPEATS} threads, each on a fresh file after ${WARMUP_RUNS} warm-up runs on another thread. p50 and CPU over the ${WINDOW} runs up to the mark.\n`,
  );
  const rows = MARKS.map((runs, i) => [
    String(runs),
    String(2 * runs),
    fmtMs(at(i, 'p50')),
    fmtMs(at(i, 'cpuPerRun')),
    fmtRate(at(i, 'answerBytes')),
    fmtRate(at(i, 'usedPerMessage')),
    fmtRate(at(i, 'addedPerMessage')),
    fmtRate(at(i, 'onDiskPerMessage')),
  ]);
  printTable(
    ['runs', 'messages', 'wait p50 ms', 'CPU/run ms', 'answer bytes', 'db bytes/msg', 'added bytes/msg', 'db+WAL on disk/msg'],
    rows,
    [],
  );
  const last = MARKS.length - 1;
  const ratio = (/** @type {Parameters<typeof at>[1]} */ field, /** @type {number} */ from) => at(last, field) / at(from, field);
  console.log(
    `\n1,000 runs against 10: wait p50 ${ratio('p50', 0).toFixed(2)}× (target ≤ 1.3×), CPU per run ${ratio('cpuPerRun', 0).toFixed(2)}×`,
  );
  console.log(
    `1,000 runs against 100: db bytes per message ${ratio('usedPerMessage', 1).toFixed(2)}×, added bytes per message ${ratio('addedPerMessage', 1).toFixed(2)}× (target ≤ 1.5×), on disk ${ratio('onDiskPerMessage', 1).toFixed(2)}×`,
  );
  const sideBySide = (/** @type {'short' | 'long'} */ which) =>
    percentile(
      threads.map((thread) => thread.sideBySide[which]),
      50,
    );
  const ratios = threads.map((thread) => thread.sideBySide.long / thread.sideBySide.short);
  console.log(
    `Side by side, in the same seconds (runs ${LAST_MARK + 1} to ${LAST_MARK + SIDE_BY_SIDE} of the long thread alternating with the ${MARKS[0]}th run of ${SIDE_BY_SIDE} other threads): wait p50 ${fmtMs(sideBySide('long'))} ms against ${fmtMs(sideBySide('short'))} ms, ${percentile(ratios, 50).toFixed(2)}× (target ≤ 1.3×; per thread ${ratios.map((ratio) => `${ratio.toFixed(2)}×`).join(', ')})`,
  );
  const errors = threads.reduce((sum, thread) => sum + thread.errors, 0);

  const runs = await runsPerSecond();
  const m = runs.measured;
  console.log(
    '\nRuns/s as the runs benchmark measures them (tool loop, a new thread per run, file database, 10 clients, 3 rounds of 3 s):',
  );
  console.log(
    `  ${fmtRate(m.rps)} runs/s (target ≥ 1,000), p50 ${fmtMs(m.p50)} ms, p99 ${fmtMs(m.p99)} ms, server CPU ${fmtRate(m.cpuPerAnswer * 1e6)} µs per run, ${m.statuses}`,
  );
  console.log(`emulator stderr (contract violations, internal errors): ${errors + runs.errors} lines`);
  console.log(`\n(bench time ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
