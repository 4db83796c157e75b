// Record and replay: what a replayed recording costs, and what the recorder adds to a request.
//
// 1. A replayed run next to a scripted run of the same steps. The LangGraph JS server runs the
//    scripted graph of the runs benchmark (a tool call and its answer: the agent, the tool, the
//    agent); `agentplane-emulator record` in front of it records one run, and the recording is
//    replayed by an emulator started with `--config <recording> --time-scale 0` (no pauses: the
//    engine's cost, not the recorded timing). Beside it, an emulator runs the scripted graph
//    itself. Both as `npm start` runs them (the CLI, NODE_ENV=production) on a SQLite file (every
//    checkpoint committed before the next step), each alone on the machine while measured
//    (isolation.js): `POST /threads/{id}/runs/wait`, 10 connections, a new thread per run.
// 2. The recorder's cost: the same requests sent to an emulator directly and through a recorder in
//    front of it, in interleaved rounds, with one connection so that a latency is one request's.
//    The upstream must run while the recorder is measured, so the two are not isolated from each
//    other; the difference of the p50s is what the proxy adds (its own CPU per request beside it).
//    A request that ends a run (a wait) also waits for the recorder to read the run's thread (its
//    history and its runs, at once) before its answer ends: its target is what the proxy may add
//    and the time of that read, measured directly as the history of a thread a run filled.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopChild } from '@agentplane/mock/prism';
import { freePort } from '@agentplane/openapi-toolkit';
import { startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { cpuSeconds, EMULATOR_DIR, startEmulatorProcess } from './emulator-process.js';
import { GRAPHS, RUN_BODY, WAIT } from './emulator-runs.bench.js';
import { compare, fmtMs, fmtRate, load, perRequest, summarize } from './http-load.js';
import { printTable } from './table.js';

/** @typedef {import('./http-load.js').Endpoint} Endpoint */
/** @typedef {import('./http-load.js').Measurement} Measurement */

export const title = 'Emulator: a replayed recording next to the scripted graph it was recorded from; what the recorder adds';

const CONNECTIONS = 10;
const ROUND_S = 2;
const ROUNDS = 5;
const PROXY_ROUNDS = 5;

const EMULATOR_BIN = path.join(EMULATOR_DIR, 'bin', 'agentplane-emulator.js');

/**
 * `agentplane-emulator record` as a process, in front of `upstream`; resolves once it is ready.
 * @param {{upstream: string, out: string}} options
 */
async function startRecorderProcess({ upstream, out }) {
  const env = { ...process.env, NODE_ENV: 'production' };
  const args = [EMULATOR_BIN, 'record', '--upstream', upstream, '--out', out, '--agent-server-port', '0'];
  const child = spawn(process.execPath, args, { cwd: EMULATOR_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  /** @type {string} */
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the recorder did not print "ready" within 60 s:\n${output}`)), 60_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /record ready: agent server (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    exited.then((code) => reject(new Error(`the recorder exited (${code}) before it was ready:\n${output}`)));
  });
  return {
    url,
    pid: /** @type {number} */ (child.pid),
    output: () => output,
    /** SIGTERM: the recorder writes its file, then exits; resolves with its exit code. */
    finish: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    stop: () => stopChild(child, exited),
    /** SIGKILL: gone at once, nothing written. */
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** One run waited for on `url`; throws unless it ran the script to its end. */
async function runOnce(/** @type {string} */ url) {
  const response = await fetch(`${url}${WAIT.path()}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: WAIT.body?.(),
  });
  const answer = await response.json();
  if (response.status !== 200 || answer.messages?.at(-1)?.content !== 'It shipped yesterday.')
    throw new Error(`${url} did not run the script: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/** @param {string} name @param {Measurement} m @param {Measurement} [base] */
function row(name, m, base) {
  return [
    name,
    fmtRate(m.rps),
    fmtMs(m.p50),
    fmtMs(m.p99),
    `${fmtRate(perRequest(m))} µs`,
    base ? `${(perRequest(m) / perRequest(base)).toFixed(2)}×` : '',
    m.statuses,
  ];
}

async function replayNextToScript(/** @type {string} */ tmp) {
  // Record one run of the real server.
  const langgraph = await startLangGraphServer({ port: await freePort(), graphs: GRAPHS, log: console.log });
  const recording = path.join(tmp, 'orders.recording.yaml');
  try {
    const recorder = await startRecorderProcess({ upstream: langgraph.url, out: recording });
    try {
      await runOnce(recorder.url);
      const code = await recorder.finish();
      if (code !== 0) throw new Error(`the recorder exited ${code}:\n${recorder.output()}`);
    } finally {
      await recorder.stop();
    }
  } finally {
    await langgraph.stop();
  }
  const config = path.join(tmp, 'graphs.json');
  fs.writeFileSync(config, JSON.stringify({ graphs: GRAPHS }));
  const scripted = await startEmulatorProcess({ db: path.join(tmp, 'scripted.db'), production: true, args: ['--config', config] });
  const replayed = await startEmulatorProcess({
    db: path.join(tmp, 'replayed.db'),
    production: true,
    args: ['--config', recording, '--time-scale', '0'],
  });
  try {
    const [scriptedRun, replayedRun] = [await runOnce(scripted.url), await runOnce(replayed.url)];
    const shape = (/** @type {any} */ answer) => answer.messages.map((/** @type {any} */ m) => m.type).join(' → ');
    if (shape(scriptedRun) !== shape(replayedRun))
      throw new Error(`the replay does not run the same steps: ${shape(replayedRun)} vs ${shape(scriptedRun)}`);
    const [scriptedM, replayedM] = await compare(
      [
        { server: scripted, endpoint: WAIT },
        { server: replayed, endpoint: WAIT },
      ],
      { connections: CONNECTIONS, seconds: ROUND_S, rounds: ROUNDS },
    );
    console.log(
      `A run: ${shape(replayedRun)} (the same steps scripted and replayed), on a new thread each; a SQLite file, NODE_ENV=production.`,
    );
    console.log(`${CONNECTIONS} connections; each server alone, a 2 s warm-up, then ${ROUNDS} interleaved rounds of ${ROUND_S} s.\n`);
    printTable(
      ['server', 'runs/s', 'p50 ms', 'p99 ms', 'CPU/run', 'CPU vs scripted', 'answers'],
      [row('scripted graph (replies)', scriptedM), row('replayed recording', replayedM, scriptedM)],
      [0, 6],
    );
    const errors = scripted.stderrLines() + replayed.stderrLines();
    const ratio = perRequest(replayedM) / perRequest(scriptedM);
    console.log(`emulator stderr (contract violations, internal errors): ${errors} lines`);
    console.log(
      `target: a replayed run costs no more than a scripted run of the same steps: ${ratio <= 1.05 ? 'met' : 'MISSED'} (CPU per run ${ratio.toFixed(2)}× the scripted run's, runs/s ${(replayedM.rps / scriptedM.rps).toFixed(2)}×)`,
    );
  } finally {
    await scripted.stop();
    await replayed.stop();
  }
}

/** A run waited for: through the recorder, its answer ends once the recorder has read the run's thread. */
const WAIT_THROUGH = { name: 'POST /threads/{id}/runs/wait', method: /** @type {const} */ ('POST'), path: WAIT.path, body: WAIT.body };

async function recorderOverhead(/** @type {string} */ tmp) {
  const config = path.join(tmp, 'graphs.json');
  const upstream = await startEmulatorProcess({ db: ':memory:', production: true, args: ['--config', config] });
  const recorder = await startRecorderProcess({ upstream: upstream.url, out: path.join(tmp, 'overhead.recording.yaml') });
  try {
    const created = await fetch(`${upstream.url}/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { user: 'bench' } }),
    });
    const { thread_id: threadId } = await created.json();
    // A thread as a run leaves it: what the recorder reads when a run ends.
    const ran = WAIT.path();
    await fetch(`${upstream.url}${ran}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(RUN_BODY),
    });
    const ranThread = /\/threads\/([^/]+)\//.exec(ran)?.[1];
    /** The direct p50 of reading a run's thread, which a run-ending request through the recorder waits for. */
    let readP50 = 0;
    /** @type {(Endpoint & {directOnly?: boolean})[]} */
    const endpoints = [
      { name: 'GET /threads/{id}', method: 'GET', path: () => `/threads/${threadId}` },
      {
        name: "POST /threads/{id}/history (a run's thread)",
        method: 'POST',
        path: () => `/threads/${ranThread}/history`,
        body: () => '{"limit":1000}',
        directOnly: true,
      },
      WAIT_THROUGH,
    ];
    const direct = { url: upstream.url, pid: upstream.pid };
    const proxied = { url: recorder.url, pid: recorder.pid };
    /** @type {string[][]} */
    const rows = [];
    /** @type {string[]} */
    const verdicts = [];
    for (const endpoint of endpoints) {
      if (endpoint.directOnly) {
        await load({ server: direct, endpoint, connections: 1, duration: 1 });
        /** @type {import('./http-load.js').Sample[]} */
        const samples = [];
        for (let round = 0; round < PROXY_ROUNDS; round++)
          samples.push(await load({ server: direct, endpoint, connections: 1, duration: ROUND_S }));
        const read = summarize(samples);
        readP50 = read.p50;
        rows.push([endpoint.name, 'direct', fmtRate(read.rps), fmtMs(read.p50), fmtMs(read.p99), '', read.statuses]);
        continue;
      }
      for (const server of [direct, proxied]) await load({ server, endpoint, connections: 1, duration: 1 });
      /** @type {import('./http-load.js').Sample[][]} */
      const samples = [[], []];
      /** The recorder's own CPU seconds over its rounds. */
      let proxyCpu = 0;
      for (let round = 0; round < PROXY_ROUNDS; round++) {
        samples[0].push(await load({ server: direct, endpoint, connections: 1, duration: ROUND_S }));
        const before = cpuSeconds(recorder.pid);
        samples[1].push(await load({ server: proxied, endpoint, connections: 1, duration: ROUND_S }));
        proxyCpu += cpuSeconds(recorder.pid) - before;
      }
      const [d, p] = samples.map(summarize);
      const added = p.p50 - d.p50;
      rows.push([endpoint.name, 'direct', fmtRate(d.rps), fmtMs(d.p50), fmtMs(d.p99), '', d.statuses]);
      rows.push([
        '',
        'through the recorder',
        fmtRate(p.rps),
        fmtMs(p.p50),
        fmtMs(p.p99),
        `${fmtRate((proxyCpu / p.ok) * 1e6)} µs`,
        p.statuses,
      ]);
      // A run-ending request waits for the read of its run's thread too.
      const allowed = endpoint === WAIT_THROUGH ? 2 + readP50 : 2;
      verdicts.push(`${endpoint.name}: +${fmtMs(added)} ms p50 (at most ${fmtMs(allowed)}) ${added <= allowed ? 'met' : 'MISSED'}`);
    }
    console.log(
      `\nThe recorder in front of an emulator (in memory), one connection, ${PROXY_ROUNDS} interleaved rounds of ${ROUND_S} s:\n`,
    );
    const header = ['request', 'to', 'req/s', 'p50 ms', 'p99 ms', 'recorder CPU/req', 'answers'];
    printTable(header, rows, [0, 1, 6]);
    console.log(
      `target: the recorder adds at most 2 ms p50 to a proxied request, and to one that ends a run the read of its thread besides: ${verdicts.join('; ')}`,
    );
  } finally {
    // Its recording (thousands of runs read back) is not what is measured: killed, not finished.
    await recorder.kill();
    await upstream.stop();
  }
}

export async function run() {
  const started = performance.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-bench-replay-'));
  try {
    await replayNextToScript(tmp);
    await recorderOverhead(tmp);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`\n(bench time ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
