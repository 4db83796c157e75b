// Every thread operation of the agent server API, on the emulator next to the real LangGraph JS
// server (reference-servers/langgraph-js), Prism (a static mock: it stores nothing, so it is the
// price of an HTTP answer validated against the spec) and, for the GET, a bare node:http server
// (the ceiling of any Node server on this machine, now). Same machine, same run, same load.
//
// Both stateful servers hold the same data, created through their APIs with the same requests:
// THREADS threads with varied metadata and CONVERSATIONS threads created with three supersteps
// (input, __start__, an agent's answer), the targets of the state, history, copy and update rows.
// The emulator is the CLI on a SQLite file (NODE_ENV=production, every acknowledged write
// committed to the file before the answer); the LangGraph JS server is its `langgraphjs dev`,
// which holds its store in memory and writes it to disk every few seconds.
//
// Writes that consume their target (delete, prune) run a fixed number of requests per round
// (`compare` with `amount`), each on a thread created for it beforehand. Operations the LangGraph
// JS server does not serve (patch state, prune: 404 there) are shown as such. The emulator
// benchmark (emulator.bench.js) measures search and count over 100,000 threads, history over
// 10,000 checkpoints and memory; this one is the breadth of operations.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mockSpecPath } from '@agentplane/mock/mocks';
import { startPrism } from '@agentplane/mock/prism';
import { freePort } from '@agentplane/openapi-toolkit';
import { startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { startEmulatorProcess } from './emulator-process.js';
import { compare, fmtMs, fmtRate, fmtShare, load, PRISM_THREAD_ID, perRequest, startFloorServer } from './http-load.js';
import { rng } from './seeded-random.js';
import { printTable } from './table.js';

/** @typedef {import('./http-load.js').Measurement} Measurement */
/** @typedef {import('./http-load.js').Endpoint} Endpoint */
/** @typedef {import('./http-load.js').Server} Server */

export const title = 'Emulator: every thread operation next to the LangGraph JS server, Prism and a bare node:http server';

const CONNECTIONS = 10;
const WARMUP_S = 1;
const ROUNDS = 3;
const ROUND_S = 1.5;
const CONSUMED_PER_ROUND = 1000; // requests per round of the rows that use up their targets
const THREADS = 10_000;
const CONVERSATIONS = 100;
const TENANTS = 300;
const USERS = 5_000;
/** A checkpoint ID for Prism, which answers its examples for any well-formed one. */
const PRISM_CHECKPOINT_ID = '1ef4f797-8335-6428-8001-8a1503f9b875';

/** @param {() => number} random @param {number} n */
const pick = (random, n) => Math.floor(random() * n);

/** Metadata of a created thread; `graph_id` names the reference server's graph (supersteps need it there). */
function metadataFrom(/** @type {() => number} */ random) {
  return { graph_id: 'agent', tenant: `tenant-${pick(random, TENANTS)}`, user: `user-${pick(random, USERS)}` };
}

/** Three supersteps as an app records a first exchange: the input, `__start__`, the agent's answer. */
const SUPERSTEPS = [
  { updates: [{ as_node: '__input__', values: { messages: [{ type: 'human', content: 'Where is my order #4512?', id: 'h-1' }] } }] },
  { updates: [{ as_node: '__start__', values: { messages: [{ type: 'human', content: 'Where is my order #4512?', id: 'h-1' }] } }] },
  { updates: [{ as_node: 'agent', values: { messages: [{ type: 'ai', content: 'It ships tomorrow.', id: 'a-1' }] } }] },
];

/**
 * Creates `count` threads on `server` through POST /threads (with `body`), under CONNECTIONS
 * connections; answers their IDs and the creates per second.
 * @param {Server} server @param {number} count @param {() => string} body
 */
async function createThreads(server, count, body) {
  /** @type {string[]} */
  const ids = [];
  const sample = await load({
    server,
    endpoint: { name: 'create', method: 'POST', path: () => '/threads', body },
    connections: CONNECTIONS,
    amount: count,
    onAnswer: (status, text) => {
      if (status === 200) ids.push(JSON.parse(text).thread_id);
    },
  });
  if (ids.length !== count)
    throw new Error(`${server.url}: ${count - ids.length} of ${count} creates failed (${JSON.stringify(sample.statuses)})`);
  return { ids, perSecond: count / sample.seconds };
}

/**
 * What every row needs on one stateful server: threads to read, conversations with their latest
 * checkpoint, and threads to delete and to prune, one per request.
 * @param {Server} server
 */
async function seed(server) {
  const random = rng(7); // the same sequence of metadata on both servers
  const threads = await createThreads(server, THREADS, () => JSON.stringify({ metadata: metadataFrom(random) }));
  const conversationIds = (
    await createThreads(server, CONVERSATIONS, () => JSON.stringify({ metadata: metadataFrom(random), supersteps: SUPERSTEPS }))
  ).ids;
  const conversations = await Promise.all(
    conversationIds.map(async (threadId) => {
      const state = await (await fetch(`${server.url}/threads/${threadId}/state`)).json();
      return { threadId, checkpointId: /** @type {string} */ (state.checkpoint.checkpoint_id) };
    }),
  );
  const consumed = CONSUMED_PER_ROUND * (ROUNDS + 1) + 1; // the warm-up, the rounds, and the probe of `serves`
  const doomed = () => createThreads(server, consumed, () => JSON.stringify({ metadata: { graph_id: 'agent', doomed: true } }));
  return {
    threadIds: threads.ids,
    createsPerSecond: threads.perSecond,
    conversations,
    toDelete: (await doomed()).ids,
    toPrune: (await doomed()).ids,
  };
}

/**
 * The rows: one endpoint per operation, its requests aimed at `targets`.
 * @param {{threadIds: string[], conversations: {threadId: string, checkpointId: string}[], toDelete: string[], toPrune: string[]}} targets
 * @returns {{endpoint: Endpoint, consumes?: boolean}[]}
 */
function operations({ threadIds, conversations, toDelete, toPrune }) {
  const random = rng(11);
  const thread = () => threadIds[pick(random, threadIds.length)];
  const conversation = () => conversations[pick(random, conversations.length)];
  const metadataRandom = rng(13);
  let deleted = 0;
  let pruned = 0;
  /** @type {(name: string, method: Endpoint['method'], path: () => string, body?: () => unknown) => Endpoint} */
  const endpoint = (name, method, pathOf, body) => ({
    name,
    method,
    path: pathOf,
    ...(body ? { body: () => JSON.stringify(body()) } : {}),
  });
  return [
    // Reads first, on the store as seeded (THREADS + CONVERSATIONS threads on every server); the
    // writes after them grow each store by what that server managed to create.
    { endpoint: endpoint('GET /threads/{id}', 'GET', () => `/threads/${thread()}`) },
    {
      endpoint: endpoint(
        'POST /threads/search, metadata',
        'POST',
        () => '/threads/search',
        () => ({ metadata: { tenant: `tenant-${pick(random, TENANTS)}` }, limit: 10 }),
      ),
    },
    {
      endpoint: endpoint(
        'POST /threads/count, metadata',
        'POST',
        () => '/threads/count',
        () => ({ metadata: { tenant: `tenant-${pick(random, TENANTS)}` } }),
      ),
    },
    { endpoint: endpoint('GET /threads/{id}/state', 'GET', () => `/threads/${conversation().threadId}/state`) },
    {
      endpoint: endpoint('GET /threads/{id}/state/{checkpoint_id}', 'GET', () => {
        const { threadId, checkpointId } = conversation();
        return `/threads/${threadId}/state/${checkpointId}`;
      }),
    },
    {
      endpoint: endpoint(
        'POST /threads/{id}/state/checkpoint',
        'POST',
        () => `/threads/${conversations[0].threadId}/state/checkpoint`,
        () => ({ checkpoint: { checkpoint_id: conversations[0].checkpointId, thread_id: conversations[0].threadId, checkpoint_ns: '' } }),
      ),
    },
    {
      endpoint: endpoint(
        'POST /threads/{id}/history, limit 10',
        'POST',
        () => `/threads/${conversation().threadId}/history`,
        () => ({ limit: 10 }),
      ),
    },
    {
      endpoint: endpoint(
        'POST /threads {metadata}',
        'POST',
        () => '/threads',
        () => ({ metadata: metadataFrom(metadataRandom) }),
      ),
    },
    {
      endpoint: endpoint(
        'POST /threads, 3 supersteps',
        'POST',
        () => '/threads',
        () => ({ metadata: metadataFrom(metadataRandom), supersteps: SUPERSTEPS }),
      ),
    },
    {
      endpoint: endpoint(
        'PATCH /threads/{id}',
        'PATCH',
        () => `/threads/${thread()}`,
        () => ({ metadata: { reviewed: pick(random, 100) } }),
      ),
    },
    { endpoint: endpoint('POST /threads/{id}/copy', 'POST', () => `/threads/${conversation().threadId}/copy`) },
    {
      endpoint: endpoint(
        'POST /threads/{id}/state (update)',
        'POST',
        () => `/threads/${conversation().threadId}/state`,
        () => ({ values: { messages: [{ type: 'ai', content: 'Anything else?' }] }, as_node: 'agent' }),
      ),
    },
    {
      endpoint: endpoint(
        'PATCH /threads/{id}/state',
        'PATCH',
        () => `/threads/${conversation().threadId}/state`,
        () => ({ metadata: { reviewed: true } }),
      ),
    },
    // One target per request, never reused: `?? PRISM_THREAD_ID` only for Prism, which has none.
    { endpoint: endpoint('DELETE /threads/{id}', 'DELETE', () => `/threads/${toDelete[deleted++] ?? PRISM_THREAD_ID}`), consumes: true },
    {
      endpoint: endpoint(
        'POST /threads/prune',
        'POST',
        () => '/threads/prune',
        () => ({ thread_ids: [toPrune[pruned++] ?? PRISM_THREAD_ID], strategy: 'delete' }),
      ),
      consumes: true,
    },
  ];
}

/**
 * Whether the server serves the endpoint: one request, answered with anything but 404 or 405.
 * (A consuming endpoint's probe uses one of its targets; each has one spare round for it.)
 * @param {Server} server @param {Endpoint} endpoint
 */
async function serves(server, endpoint) {
  const response = await fetch(`${server.url}${endpoint.path()}`, {
    method: endpoint.method,
    ...(endpoint.body ? { headers: { 'content-type': 'application/json' }, body: endpoint.body() } : {}),
  });
  await response.arrayBuffer();
  return response.status !== 404 && response.status !== 405;
}

export async function run() {
  const started = performance.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-threads-bench-'));
  /** @type {{stop(): Promise<void>}[]} */
  const running = [];
  try {
    const emulator = await startEmulatorProcess({ db: path.join(tmp, 'emulator.db'), production: true });
    running.push(emulator);
    const langgraphServer = await startLangGraphServer({ port: await freePort(), log: console.log });
    running.push(langgraphServer);
    /** @type {Server} */
    const langgraph = { url: langgraphServer.url, pid: langgraphServer.pid };
    const prismProcess = await startPrism({ specPath: mockSpecPath('agent-server'), port: await freePort(), verbose: 'error' });
    running.push(prismProcess);
    /** @type {Server} */
    const prism = { url: prismProcess.url, pid: /** @type {number} */ (prismProcess.child.pid) };
    const floor = await startFloorServer();
    running.push(floor);

    const seededEmulator = await seed(emulator);
    const seededLangGraph = await seed(langgraph);
    const rows = {
      emulator: operations(seededEmulator),
      langgraph: operations(seededLangGraph),
      prism: operations({
        threadIds: [PRISM_THREAD_ID],
        conversations: [{ threadId: PRISM_THREAD_ID, checkpointId: PRISM_CHECKPOINT_ID }],
        toDelete: [],
        toPrune: [],
      }),
    };

    /** @type {{name: string, emulator: Measurement, langgraph: Measurement | null, prism: Measurement, floor?: Measurement}[]} */
    const results = [];
    for (const [i, { endpoint, consumes }] of rows.emulator.entries()) {
      const theirs = rows.langgraph[i].endpoint;
      const served = await serves(langgraph, theirs);
      const contenders = [
        { server: emulator, endpoint },
        ...(served ? [{ server: langgraph, endpoint: theirs }] : []),
        { server: prism, endpoint: rows.prism[i].endpoint },
        ...(endpoint.method === 'GET' && endpoint.name === 'GET /threads/{id}'
          ? [{ server: floor, endpoint: rows.prism[i].endpoint }]
          : []),
      ];
      // The servers not in this row (LangGraph where it does not serve the operation, the floor
      // server but for the GET) are stopped throughout.
      const bystanders = [emulator.pid, langgraph.pid, prism.pid, floor.pid];
      const measured = await compare(
        contenders,
        consumes
          ? { connections: CONNECTIONS, amount: CONSUMED_PER_ROUND, rounds: ROUNDS, bystanders }
          : { connections: CONNECTIONS, seconds: ROUND_S, warmup: WARMUP_S, rounds: ROUNDS, bystanders },
      );
      const at = (/** @type {Server} */ server) => measured[contenders.findIndex((c) => c.server === server)];
      results.push({
        name: endpoint.name,
        emulator: at(emulator),
        langgraph: served ? at(langgraph) : null,
        prism: at(prism),
        ...(contenders.some((c) => c.server === floor) ? { floor: at(floor) } : {}),
      });
      console.log(`  measured ${endpoint.name}`);
    }
    const emulatorErrors = emulator.stderrLines();

    // --- Report ----------------------------------------------------------------------------------
    console.log(
      `\nSame machine, same run. autocannon in this process, ${CONNECTIONS} connections; per server and row a ${WARMUP_S} s warm-up, then ${ROUNDS} rounds of ${ROUND_S} s interleaved`,
    );
    console.log(
      `(delete and prune: ${CONSUMED_PER_ROUND} requests per round, each on its own thread), each server alone (the others stopped); req/s of the median round. Each stateful server holds ${THREADS.toLocaleString('en-US')} threads`,
    );
    console.log(
      `and ${CONVERSATIONS} created with 3 supersteps, made through its API (creates/s while seeding: emulator ${fmtRate(seededEmulator.createsPerSecond)}, LangGraph JS ${fmtRate(seededLangGraph.createsPerSecond)}),`,
    );
    console.log(
      `plus the targets of the delete and prune rows (metadata without a tenant). The reads run first, on that store; each write row then adds what that server created.`,
    );
    console.log(
      'CPU/req: the server process\'s CPU time per 2xx answer. "not served": the LangGraph JS server answers 404 (no such route).\n',
    );
    const header = ['operation', 'emulator req/s', 'p50 ms', 'CPU/req', 'LangGraph JS', 'p50 ms', 'Prism', 'vs LangGraph', 'vs Prism'];
    /** @type {string[][]} */
    const table = [];
    for (const row of results) {
      table.push([
        row.name,
        fmtRate(row.emulator.rps),
        fmtMs(row.emulator.p50),
        `${fmtRate(perRequest(row.emulator))} µs`,
        row.langgraph ? fmtRate(row.langgraph.rps) : 'not served',
        row.langgraph ? fmtMs(row.langgraph.p50) : '',
        fmtRate(row.prism.rps),
        row.langgraph ? `${(row.emulator.rps / row.langgraph.rps).toFixed(1)}×` : '–',
        `${(row.emulator.rps / row.prism.rps).toFixed(2)}×`,
      ]);
    }
    printTable(header, table, [0]);

    const failed = results.flatMap((row) =>
      /** @type {[string, Measurement | null | undefined][]} */ ([
        ['emulator', row.emulator],
        ['LangGraph JS', row.langgraph],
        ['Prism', row.prism],
        ['floor', row.floor],
      ])
        .filter(([, m]) => m && m.failed > 0)
        .map(([server, m]) => `${row.name} on ${server}: ${m?.statuses}`),
    );
    console.log(failed.length ? `\nNOT every answer was a 2xx: ${failed.join('; ')}` : '\nevery answer of every run above was a 2xx');
    console.log(`emulator stderr (contract violations, internal errors): ${emulatorErrors} lines`);

    const get = results.find((row) => row.floor);
    const misses = (/** @type {(row: typeof results[number]) => boolean} */ test) =>
      results
        .filter(test)
        .map((row) => row.name)
        .join(', ') || 'none';
    console.log('\ntargets:');
    console.log(
      `  every operation ≥ 3× the LangGraph JS server: missed by ${misses((row) => row.langgraph !== null && row.emulator.rps < 3 * row.langgraph.rps)}`,
    );
    console.log(`  every operation ≥ Prism's req/s:               missed by ${misses((row) => row.emulator.rps < row.prism.rps)}`);
    if (get?.floor) {
      const ratio = get.emulator.rps / get.floor.rps;
      console.log(
        `  GET ≥ 0.9× the bare node:http server:          ${ratio >= 0.9 ? 'met' : 'MISSED'}, ${ratio.toFixed(2)}× (${fmtRate(get.emulator.rps)} vs ${fmtRate(get.floor.rps)} req/s; floor CPU ${fmtShare(get.floor.serverCpu)})`,
      );
    }
    console.log(`\n(bench time ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    for (const server of running.reverse()) await server.stop().catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
