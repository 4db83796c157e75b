// Runs of a scripted graph on the emulator next to the real LangGraph JS server running the same
// script (reference-servers/langgraph-js: LangGraph's loop over a scripted chat model). The
// emulator runs as `npm start` runs it (the CLI, NODE_ENV=production) on a SQLite file, where
// every step's checkpoint is committed before the next begins, and on an in-memory database, as
// the LangGraph JS dev server keeps its store in memory.
//
// The script is a tool call and its answer: one run is the input, `__start__`, the agent's tool
// call, the tool's answer and the agent's reply (five checkpoints). Each run gets a thread of its
// own (`if_not_exists: create`), so runs never wait for each other on a thread.
//
// Rows: a run waited for (POST /threads/{id}/runs/wait) under CONNECTIONS connections and with
// one; a background run created and then joined (POST .../runs, GET .../join: one operation of two
// requests).
import http from 'node:http';
import { cpuSeconds } from './emulator-process.js';
import { compare, fmtMs, fmtRate } from './http-load.js';
import { startScriptedServers } from './scripted-servers.js';
import { cpuAndRatioCells, printTable } from './table.js';

/** @typedef {import('./http-load.js').Measurement} Measurement */
/** @typedef {import('./http-load.js').Endpoint} Endpoint */
/** @typedef {import('./http-load.js').Server} Server */
/** @typedef {import('./http-load.js').Sample} Sample */

export const title = 'Emulator: runs of a scripted graph next to the LangGraph JS server running the same script';

const CONNECTIONS = 10;
const WARMUP_S = 2;
const ROUNDS = 3;
const ROUND_S = 2;

/** The graph both servers run, in the emulator config's shape (the replay benchmark records it too). */
export const GRAPHS = {
  orders: {
    state: { topic: null },
    replies: [
      { match: '*order*', text: 'Let me look up order 4512.', tool_calls: [{ name: 'lookup_order', args: { order_id: '4512' } }] },
      { text: 'It shipped yesterday.', update: { topic: 'shipping' } },
    ],
    tools: { lookup_order: '{"status": "shipped"}' },
  },
};
export const RUN_BODY = {
  assistant_id: 'orders',
  input: { messages: [{ type: 'human', content: 'Where is my order 4512?' }] },
  if_not_exists: 'create',
};

/** @type {Endpoint} */
export const WAIT = {
  name: 'POST /threads/{id}/runs/wait, tool call + answer',
  method: 'POST',
  path: () => `/threads/${crypto.randomUUID()}/runs/wait`,
  body: () => JSON.stringify(RUN_BODY),
};

/**
 * One request on a kept-alive connection of `agent`: its status and body. (node:http rather than
 * fetch: the load generator's own cost per request stays small next to the servers'.)
 * @param {http.Agent} agent @param {string} url @param {string} method @param {string} [body]
 * @returns {Promise<{status: number, text: string}>}
 */
function send(agent, url, method, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * A background run created, then joined: one operation of two requests, so `connections`
 * workers loop over it, each operation's latency from the create to the join's answer.
 * @type {Endpoint}
 */
const CREATE_AND_JOIN = {
  name: 'POST /threads/{id}/runs, then GET .../join',
  method: 'POST',
  path: () => '/threads/{id}/runs',
  sample: async ({ server, connections, duration = 1 }) => {
    /** @type {number[]} */
    const latencies = [];
    /** @type {Record<string, number>} */
    const statuses = {};
    const count = (/** @type {number | string} */ status) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
    };
    const serverBefore = cpuSeconds(server.pid);
    const loadBefore = process.cpuUsage();
    const started = performance.now();
    const deadline = started + duration * 1000;
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    const body = JSON.stringify(RUN_BODY);
    const worker = async () => {
      while (performance.now() < deadline) {
        const begun = performance.now();
        const threadId = crypto.randomUUID();
        try {
          const created = await send(agent, `${server.url}/threads/${threadId}/runs`, 'POST', body);
          if (created.status !== 200) {
            count(created.status);
            continue;
          }
          const { run_id: runId } = JSON.parse(created.text);
          const joined = await send(agent, `${server.url}/threads/${threadId}/runs/${runId}/join`, 'GET');
          count(joined.status);
          if (joined.status === 200) latencies.push(performance.now() - begun);
        } catch {
          count('errors');
        }
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    agent.destroy();
    const loadUsage = process.cpuUsage(loadBefore);
    return {
      latencies,
      seconds: (performance.now() - started) / 1000,
      serverCpu: cpuSeconds(server.pid) - serverBefore,
      loadCpu: (loadUsage.user + loadUsage.system) / 1e6,
      statuses,
    };
  },
};

/** One run on `server`, to check it answers the script before anything is measured. */
async function checkServes(/** @type {Server} */ server) {
  const response = await fetch(`${server.url}${WAIT.path()}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: WAIT.body?.(),
  });
  const answer = await response.json();
  const last = answer.messages?.at(-1)?.content;
  if (response.status !== 200 || last !== 'It shipped yesterday.')
    throw new Error(`${server.url} did not run the script: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
}

export async function run() {
  const started = performance.now();
  const { onFile, inMemory, langgraph: langgraphServer, stop } = await startScriptedServers(GRAPHS);
  try {
    /** @type {Server} */
    const langgraph = { url: langgraphServer.url, pid: langgraphServer.pid };
    for (const server of [onFile, inMemory, langgraph]) await checkServes(server);

    const servers = { 'emulator (file)': onFile, 'emulator (memory)': inMemory, 'LangGraph JS': langgraph };
    const bystanders = Object.values(servers).map((server) => server.pid);
    /** @type {{name: string, connections: number, measured: Record<string, Measurement>}[]} */
    const rows = [];
    for (const [endpoint, connections] of /** @type {[Endpoint, number][]} */ ([
      [WAIT, CONNECTIONS],
      [WAIT, 1],
      [CREATE_AND_JOIN, CONNECTIONS],
    ])) {
      const contenders = Object.values(servers).map((server) => ({ server, endpoint }));
      const measured = await compare(contenders, { connections, seconds: ROUND_S, warmup: WARMUP_S, rounds: ROUNDS, bystanders });
      rows.push({
        name: endpoint.name,
        connections,
        measured: Object.fromEntries(Object.keys(servers).map((name, i) => [name, measured[i]])),
      });
      console.log(`  measured ${endpoint.name}, ${connections} connection(s)`);
    }
    const emulatorErrors = onFile.stderrLines() + inMemory.stderrLines();

    // --- Report ----------------------------------------------------------------------------------
    console.log(
      `\nSame machine, same run; each server alone (the others stopped), a ${WARMUP_S} s warm-up, then ${ROUNDS} interleaved rounds of ${ROUND_S} s;`,
    );
    console.log(
      'operations/s of the median round (a create + join is one operation), latency p50 and p99 of a whole operation, CPU of the server per operation.',
    );
    console.log(
      'Each run: input, __start__, the agent calls a tool, the tool answers, the agent replies (5 checkpoints), on a new thread.\n',
    );
    const header = ['operation', 'conns', 'server', 'ops/s', 'p50 ms', 'p99 ms', 'CPU/op', 'vs LangGraph'];
    /** @type {string[][]} */
    const table = [];
    for (const row of rows) {
      const theirs = row.measured['LangGraph JS'];
      for (const [server, m] of Object.entries(row.measured)) {
        table.push([
          server === 'emulator (file)' ? row.name : '',
          server === 'emulator (file)' ? String(row.connections) : '',
          server,
          fmtRate(m.rps),
          fmtMs(m.p50),
          fmtMs(m.p99),
          ...cpuAndRatioCells(server, m, theirs),
        ]);
      }
    }
    printTable(header, table, [0, 1, 2]);
    const failed = rows.flatMap((row) =>
      Object.entries(row.measured)
        .filter(([, m]) => m.failed > 0)
        .map(([server, m]) => `${row.name} (${row.connections}) on ${server}: ${m.statuses}`),
    );
    console.log(failed.length ? `\nNOT every answer was a 2xx: ${failed.join('; ')}` : '\nevery answer of every run above was a 2xx');
    console.log(`emulator stderr (contract violations, internal errors): ${emulatorErrors} lines`);

    const [waited, waitedAlone, joined] = rows;
    const ratio = (/** @type {typeof rows[number]} */ row, /** @type {string} */ server) =>
      row.measured[server].rps / row.measured['LangGraph JS'].rps;
    console.log('\ntargets:');
    for (const server of ['emulator (file)', 'emulator (memory)']) {
      const waitRatio = ratio(waited, server);
      const joinRatio = ratio(joined, server);
      console.log(`  ${server}: runs/wait ≥ 10× LangGraph JS ${waitRatio >= 10 ? 'met' : 'MISSED'} (${waitRatio.toFixed(1)}×);`);
      console.log(
        `  ${' '.repeat(server.length)}  a background run joined ≥ 10× ${joinRatio >= 10 ? 'met' : 'MISSED'} (${joinRatio.toFixed(1)}×);`,
      );
      const p50 = waitedAlone.measured[server].p50;
      console.log(
        `  ${' '.repeat(server.length)}  p50 of a wait with one connection ≤ 5 ms ${p50 <= 5 ? 'met' : 'MISSED'} (${fmtMs(p50)} ms)`,
      );
    }
    console.log(`\n(bench time ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    await stop();
  }
}
