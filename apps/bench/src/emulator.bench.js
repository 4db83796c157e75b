// Emulator benchmark: the agent server thread API of the emulator side by side with Prism, in the
// same run on the same machine, then the project's targets, each with its measured figure.
//
// How it measures. Every server is its own process; autocannon in this process is the load
// generator, with the same connections, durations and request generators for every server.
// Contenders are measured in interleaved rounds (Prism, emulator, Prism, emulator, ...) after a
// warm-up each, so that other work on the machine hits all of them alike. During each round the
// other servers are stopped (SIGSTOP), and the round starts once its server is quiet: no server's
// background work (a store written to disk, a WAL copied) is charged to another (isolation.js).
// autocannon's
// own latency histogram has 1 ms resolution, too coarse for sub-millisecond answers, so latencies
// come from its per-response event (µs precision), and requests/s is 2xx answers / wall time of
// the median round (one round that other work on the machine disturbed does not move it).
// Non-2xx answers are counted and shown: a server answering errors fast must not look fast. The
// server's CPU time over each run's wall time is shown too: near 100% means the server set the
// pace; well below, the load generator or the other work on the machine did. Its CPU time per
// answer is shown with it: it moves much less with the machine's load than requests/s does. For
// the GET, a bare node:http process answering a fixed body runs in the same rounds: the ceiling
// any Node server can reach on the machine running the bench, at that moment.
//
// Latency means two things, so it is shown twice: p50/p99 under CONNECTIONS connections (the
// table; on a single-threaded server that is mostly queueing, about connections / throughput),
// and p50 over one connection (the latency targets: what one request costs).
//
// What it runs on. The emulator is the CLI (`agentplane-emulator`) on a SQLite file in a temp
// directory, in production mode (NODE_ENV=production: no per-response validation); a second
// emulator process in development mode (every response checked against the spec, as Prism
// checks with --errors) serves the same file for the GET rows. The file holds:
//   - two threads with 10 and with 10,000 checkpoints, written through the emulator's own
//     `ThreadStore` (apps/emulator/dist) before any server opens the file. The API cannot build
//     the second one: a create takes at most 1000 supersteps and no endpoint adds checkpoints to
//     an existing thread. So the file gets exactly what creates would store: the create handler's
//     own `planSupersteps` and `stampCheckpoints`, the first 1000 through `ThreadStore.insert` and
//     the rest appended in chunks of 1000 with `ThreadStore.append`. Both threads are built by the
//     same code and differ only in their checkpoint count; their state values keep a constant size
//     (keys that replace, no growing message list), so both histories weigh the same per
//     checkpoint and the comparison measures the lookup, not the payload.
//   - 100,000 threads with varied metadata (graph_id: 3 values, tenant: 300, user: 5,000). The
//     first 50,000 are written through `ThreadStore.insert` before the server starts, exactly as
//     the create handler stores `{"metadata": ...}`: creating all 100,000 through the API runs at
//     about 3,000-5,000/s on a two-core machine, i.e. 20-35 s of the bench's time budget. The
//     other 50,000 come through POST /threads (the measured create rows, up to ~35,000 at those
//     rates, then autocannon with a fixed request count), and RSS is read before and after that
//     top-up, so memory that grows with creates would show.
// The search target filters on one `tenant` value (≈ 1/300 of the threads, a realistic subset); a
// broad `graph_id` filter (≈ 1/3) is shown for reference.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mockSpecPath } from '@agentplane/mock/mocks';
import { startPrism } from '@agentplane/mock/prism';
import { freePort } from '@agentplane/openapi-toolkit';
import { memoryOf, startEmulatorProcess } from './emulator-process.js';
import {
  compare,
  fmtCount,
  fmtMs,
  fmtRate,
  fmtShare,
  load,
  PRISM_THREAD_ID,
  perRequest,
  ROUNDS,
  startFloorServer,
  summarize,
  WARMUP_S,
} from './http-load.js';
import { rng } from './seeded-random.js';
import { printTable } from './table.js';

/** @typedef {import('./http-load.js').Measurement} Measurement */
/** @typedef {import('./http-load.js').Endpoint} Endpoint */
/** @typedef {import('./http-load.js').Server} Server */

export const title = 'Emulator: agent server thread API vs Prism';

const CONNECTIONS = 10;
const ROUND_S = 2; // per contender per round, under CONNECTIONS
const SINGLE_ROUND_S = 1.5; // per contender per round, one connection
const THREADS = 100_000;
const STORE_SEEDED = 50_000; // of THREADS; the rest come through POST /threads (see the header)
const TENANTS = 300;
const USERS = 5_000;
const GRAPHS = ['support', 'research', 'billing'];

/** @param {() => number} random @param {number} n */
const pick = (random, n) => Math.floor(random() * n);
const metadataRandom = rng(1);
/** Metadata of a created thread: three keys with 3, 300 and 5,000 distinct values. */
function threadMetadata() {
  return {
    graph_id: GRAPHS[pick(metadataRandom, GRAPHS.length)],
    tenant: `tenant-${pick(metadataRandom, TENANTS)}`,
    user: `user-${pick(metadataRandom, USERS)}`,
  };
}

/**
 * The four endpoints of the table. `threadIds` are the GET targets (a random one per request);
 * `historyThread` is the thread whose history is read.
 * @param {{threadIds: string[], historyThread: string}} targets
 * @returns {{create: Endpoint, get: Endpoint, search: Endpoint, history: Endpoint}}
 */
function endpoints({ threadIds, historyThread }) {
  const random = rng(2);
  return {
    create: { name: 'POST /threads', method: 'POST', path: () => '/threads', body: () => JSON.stringify({ metadata: threadMetadata() }) },
    get: { name: 'GET /threads/{id}', method: 'GET', path: () => `/threads/${threadIds[pick(random, threadIds.length)]}` },
    search: searchBy(() => ({ tenant: `tenant-${pick(random, TENANTS)}` }), 'POST /threads/search, metadata filter'),
    history: historyOf(historyThread, 'POST /threads/{id}/history, limit 10'),
  };
}

/** @param {() => Record<string, unknown>} metadata @param {string} name @returns {Endpoint} */
function searchBy(metadata, name) {
  return { name, method: 'POST', path: () => '/threads/search', body: () => JSON.stringify({ metadata: metadata(), limit: 10 }) };
}

/** @param {() => Record<string, unknown>} metadata @param {string} name @returns {Endpoint} */
function countBy(metadata, name) {
  return { name, method: 'POST', path: () => '/threads/count', body: () => JSON.stringify({ metadata: metadata() }) };
}

/** @param {string} threadId @param {string} name @returns {Endpoint} */
function historyOf(threadId, name) {
  return { name, method: 'POST', path: () => `/threads/${threadId}/history`, body: () => '{"limit":10}' };
}

/**
 * Writes into the emulator's file, through its own store and before any server opens it, the two
 * history threads (10 and 10,000 checkpoints) and `bulk` threads with varied metadata. See the
 * header for why.
 * @param {string} dbFile
 * @param {number} bulk
 * @returns {Promise<{small: string, large: string, bulkIds: string[], historyMs: number, bulkMs: number}>}
 */
async function seedThroughStore(dbFile, bulk) {
  const { openThreadStore, planSupersteps, stampCheckpoints } = await import('@agentplane/emulator/seeding');
  const CHUNK = 1000; // the API's cap on supersteps per create
  const started = performance.now();
  const { store, close } = openThreadStore(dbFile);
  /** @param {number} i */
  const superstep = (i) =>
    i === 0
      ? { updates: [{ as_node: '__input__', values: { topic: 'quarterly billing review', step_count: 0, summary: 'started' } }] }
      : {
          updates: [
            {
              as_node: 'agent',
              values: { step_count: i, summary: `step ${i}: checked invoice ${i % 97} and updated the running summary` },
            },
          ],
        };
  /** @param {number} checkpoints @returns {string} the thread's ID */
  const build = (checkpoints) => {
    const threadId = randomUUID();
    const metadata = { graph_id: 'support', tenant: 'tenant-history', user: 'user-history' };
    store.transaction(() => {
      /** @type {import('@agentplane/emulator/seeding').PlanBase | undefined} */
      let base;
      for (let from = 0; from < checkpoints; from += CHUNK) {
        const supersteps = Array.from({ length: Math.min(CHUNK, checkpoints - from) }, (_, k) => superstep(from + k));
        const plan = planSupersteps(supersteps, { graphId: metadata.graph_id, base });
        const now = new Date().toISOString();
        const stamped = stampCheckpoints(plan.checkpoints, now);
        if (from === 0)
          store.insert(
            {
              thread_id: threadId,
              created_at: now,
              updated_at: now,
              state_updated_at: now,
              status: 'idle',
              metadata,
              values: plan.values,
              config: {},
            },
            stamped,
          );
        else store.append(threadId, stamped, now);
        base = { values: plan.values, step: plan.checkpoints.at(-1)?.metadata.step ?? -1 };
      }
    });
    return threadId;
  };
  const small = build(10);
  const large = build(10_000);
  const historyMs = performance.now() - started;

  // What the create handler stores for `{"metadata": ...}`: no supersteps, values {}, config {}.
  /** @type {string[]} */
  const bulkIds = [];
  const bulkStarted = performance.now();
  let clock = Date.now() - bulk; // one thread per millisecond, the oldest first
  store.transaction(() => {
    for (let i = 0; i < bulk; i++) {
      const threadId = randomUUID();
      const now = new Date(clock++).toISOString();
      store.insert(
        {
          thread_id: threadId,
          created_at: now,
          updated_at: now,
          state_updated_at: now,
          status: 'idle',
          metadata: threadMetadata(),
          values: {},
          config: {},
        },
        [],
      );
      bulkIds.push(threadId);
    }
  });
  close();
  return { small, large, bulkIds, historyMs, bulkMs: performance.now() - bulkStarted };
}

/**
 * The exact number of threads, from the search's X-Pagination-Total.
 * @param {string} base
 */
async function threadCount(base) {
  const response = await fetch(`${base}/threads/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"limit":1}',
  });
  await response.arrayBuffer();
  return Number(response.headers.get('x-pagination-total'));
}

export async function run() {
  const started = performance.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-emulator-bench-'));
  const dbFile = path.join(tmp, 'emulator.db');
  /** @type {{stop(): Promise<void>}[]} */
  const running = [];
  try {
    const seed = await seedThroughStore(dbFile, STORE_SEEDED);
    const prismProcess = await startPrism({ specPath: mockSpecPath('agent-server'), port: await freePort(), verbose: 'error' });
    running.push(prismProcess);
    /** @type {Server} */
    const prism = { url: prismProcess.url, pid: /** @type {number} */ (prismProcess.child.pid) };
    const emulator = await startEmulatorProcess({ db: dbFile, production: true });
    running.push(emulator);

    // The seeded threads as the API shows them: the latest step (−1 first) and one page of history.
    const seeded = await Promise.all(
      [seed.small, seed.large].map(async (threadId) => {
        const state = await (await fetch(`${emulator.url}/threads/${threadId}/state`)).json();
        const page = await (
          await fetch(`${emulator.url}/threads/${threadId}/history`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"limit":10}',
          })
        ).json();
        return `latest step ${state.metadata.step}, history page of ${page.length}`;
      }),
    );

    /** @type {string[]} IDs of every thread with metadata: the GET targets */
    const created = [...seed.bulkIds];
    const ours = endpoints({ threadIds: created, historyThread: seed.small });
    const theirs = endpoints({ threadIds: [PRISM_THREAD_ID], historyThread: PRISM_THREAD_ID });
    const loaded = { connections: CONNECTIONS, seconds: ROUND_S };

    // Creates first (on the 50,000 threads seeded so far); their threads count toward the 100,000.
    const [createPrism, createOurs] = await compare(
      [
        { server: prism, endpoint: theirs.create },
        { server: emulator, endpoint: ours.create },
      ],
      loaded,
    );

    // Top up to exactly THREADS threads through the API, keeping the IDs the server answers.
    const toCreate = THREADS - (await threadCount(emulator.url));
    if (toCreate < 1)
      throw new Error(
        `the create rows alone made more than ${THREADS - STORE_SEEDED} threads: lower STORE_SEEDED so that a top-up remains`,
      );
    const memoryBeforeTopUp = memoryOf(emulator.pid);
    const seeding = summarize([
      await load({
        server: emulator,
        endpoint: ours.create,
        connections: CONNECTIONS,
        amount: toCreate,
        onAnswer: (status, body) => {
          if (status === 200) created.push(JSON.parse(body).thread_id);
        },
      }),
    ]);
    const seedSeconds = seeding.ok / seeding.rps;
    const total = await threadCount(emulator.url);
    const memoryAfterTopUp = memoryOf(emulator.pid);

    // Reads on 100,000 threads; a development-mode emulator on the same file joins for the GET.
    // The floor server joins too: what a Node process that does nothing per request reaches here.
    const dev = await startEmulatorProcess({ db: dbFile, production: false });
    running.push(dev);
    const floor = await startFloorServer();
    running.push(floor);
    const [getPrism, getOurs, getDev, getFloor] = await compare(
      [
        { server: prism, endpoint: theirs.get },
        { server: emulator, endpoint: ours.get },
        { server: dev, endpoint: ours.get },
        { server: floor, endpoint: theirs.get },
      ],
      loaded,
    );
    const devErrors = dev.stderrLines();
    await dev.stop();
    await floor.stop();
    const [searchPrism, searchOurs] = await compare(
      [
        { server: prism, endpoint: theirs.search },
        { server: emulator, endpoint: ours.search },
      ],
      loaded,
    );
    const [historyPrism, historyOurs] = await compare(
      [
        { server: prism, endpoint: theirs.history },
        { server: emulator, endpoint: ours.history },
      ],
      loaded,
    );
    await prismProcess.stop();

    // One connection: what one request costs, without queueing behind others.
    const single = { connections: 1, seconds: SINGLE_ROUND_S };
    const broadRandom = rng(3);
    const [searchNarrow, searchBroad] = await compare(
      [
        { server: emulator, endpoint: ours.search },
        { server: emulator, endpoint: searchBy(() => ({ graph_id: GRAPHS[pick(broadRandom, GRAPHS.length)] }), 'broad search') },
      ],
      single,
    );
    const countRandom = rng(4);
    const [countNarrow, countAll] = await compare(
      [
        { server: emulator, endpoint: countBy(() => ({ tenant: `tenant-${pick(countRandom, TENANTS)}` }), 'count, tenant filter') },
        { server: emulator, endpoint: countBy(() => ({}), 'count, every thread') },
      ],
      single,
    );
    const [historySmall, historyLarge] = await compare(
      [
        { server: emulator, endpoint: historyOf(seed.small, 'history, 10 checkpoints') },
        { server: emulator, endpoint: historyOf(seed.large, 'history, 10,000 checkpoints') },
      ],
      single,
    );
    const memory = memoryOf(emulator.pid);
    const productionErrors = emulator.stderrLines();
    await emulator.stop();
    const dbBytes = ['', '-wal'].reduce((sum, suffix) => sum + (fs.existsSync(dbFile + suffix) ? fs.statSync(dbFile + suffix).size : 0), 0);

    // --- Report ----------------------------------------------------------------------------------
    console.log(
      `Same machine, same run. autocannon in this process, ${CONNECTIONS} connections; per row a ${WARMUP_S} s warm-up, then ${ROUNDS} rounds of ${ROUND_S} s interleaved with the other rows of the endpoint; req/s of the median round, latencies over all rounds.`,
    );
    console.log(
      `emulator: the CLI, its own process, NODE_ENV=production (dev mode: every response validated); reads on ${fmtCount(total)} threads.`,
    );
    console.log(`Prism: apps/mock startPrism (--errors, --verboseLevel error), answering from the spec's examples.`);
    console.log(
      `node:http floor: a bare Node server answering a fixed thread JSON (no routing, validation or storage): the ceiling of any Node server here, now.`,
    );
    console.log(
      `CPU: the server's CPU time / wall time (≈100%: the server set the pace); CPU/req: its CPU time per answer; load: autocannon's CPU time / wall time.\n`,
    );
    const header = ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU', 'CPU/req', 'load', 'vs Prism'];
    /** @type {string[][]} */
    const rows = [];
    /** @param {string} endpoint @param {[string, Measurement][]} contenders the last one is Prism */
    const group = (endpoint, contenders) => {
      const baseline = contenders.at(-1)?.[1];
      for (const [i, [server, m]] of contenders.entries()) {
        rows.push([
          i === 0 ? endpoint : '',
          server,
          fmtRate(m.rps),
          fmtMs(m.p50),
          fmtMs(m.p99),
          fmtShare(m.serverCpu),
          `${fmtRate(perRequest(m))} µs`,
          fmtShare(m.loadCpu),
          m === baseline ? '1' : `${(m.rps / (baseline?.rps ?? NaN)).toFixed(2)}×`,
        ]);
      }
    };
    group(ours.create.name, [
      ['emulator', createOurs],
      ['Prism', createPrism],
    ]);
    group(ours.get.name, [
      ['emulator', getOurs],
      ['emulator, dev mode', getDev],
      ['node:http floor', getFloor],
      ['Prism', getPrism],
    ]);
    group(`${ours.search.name} (1 of ${TENANTS} tenants)`, [
      ['emulator', searchOurs],
      ['Prism', searchPrism],
    ]);
    group(`${ours.history.name} (10 checkpoints)`, [
      ['emulator', historyOurs],
      ['Prism', historyPrism],
    ]);
    printTable(header, rows, [0, 1]);

    const checked = /** @type {[string, Measurement][]} */ ([
      ['emulator create', createOurs],
      ['Prism create', createPrism],
      ['seeding', seeding],
      ['emulator GET', getOurs],
      ['emulator dev-mode GET', getDev],
      ['floor GET', getFloor],
      ['Prism GET', getPrism],
      ['emulator search', searchOurs],
      ['Prism search', searchPrism],
      ['emulator history', historyOurs],
      ['Prism history', historyPrism],
      ['search, 1 connection', searchNarrow],
      ['broad search, 1 connection', searchBroad],
      ['count, 1 connection', countNarrow],
      ['count all, 1 connection', countAll],
      ['history 10, 1 connection', historySmall],
      ['history 10,000, 1 connection', historyLarge],
    ]);
    const failures = checked.filter(([, m]) => m.failed > 0);
    console.log(
      failures.length
        ? `\nNOT every answer was a 2xx: ${failures.map(([n, m]) => `${n}: ${m.statuses}`).join('; ')}`
        : '\nevery answer of every run above was a 2xx',
    );
    console.log(
      `emulator stderr (contract violations, internal errors): ${productionErrors} lines in production mode, ${devErrors} in dev mode`,
    );

    const createdThroughApi = total - STORE_SEEDED - 2;
    console.log(
      `\nseeding, through ThreadStore before the server started: threads with 10 and 10,000 checkpoints in ${(seed.historyMs / 1000).toFixed(2)} s`,
    );
    console.log(`  (as served: ${seeded.join('; ')}), ${fmtCount(STORE_SEEDED)} threads in ${(seed.bulkMs / 1000).toFixed(1)} s;`);
    console.log(
      `through POST /threads: ${fmtCount(createdThroughApi)} threads (${fmtCount(createdThroughApi - seeding.ok)} by the measured rows, then ${fmtCount(seeding.ok)} in ${seedSeconds.toFixed(1)} s: ${fmtRate(seeding.rps)}/s at ${fmtShare(seeding.serverCpu)} CPU);`,
    );
    console.log(
      `  RSS ${memoryBeforeTopUp.rss.toFixed(0)} MB before those ${fmtCount(seeding.ok)}, ${memoryAfterTopUp.rss.toFixed(0)} MB after; SQLite file + WAL at the end ${(dbBytes / 1e6).toFixed(0)} MB`,
    );
    console.log(`one connection (emulator, production), ${ROUNDS} rounds of ${SINGLE_ROUND_S} s, interleaved in pairs:`);
    const oneConnection = [
      [`search, tenant filter (≈1/${TENANTS} match)`, searchNarrow],
      [`search, graph_id filter (≈1/3 match)`, searchBroad],
      [`count, tenant filter (≈1/${TENANTS} match)`, countNarrow],
      ['count, no filter (every thread)', countAll],
      ['history limit 10, 10 checkpoints', historySmall],
      ['history limit 10, 10,000 checkpoints', historyLarge],
    ];
    const singleWidth = Math.max(...oneConnection.map(([n]) => String(n).length));
    for (const [name, m] of /** @type {[string, Measurement][]} */ (oneConnection)) {
      console.log(
        `  ${name.padEnd(singleWidth)}  p50 ${fmtMs(m.p50).padStart(6)} ms  p99 ${fmtMs(m.p99).padStart(6)} ms  ${fmtRate(m.rps).padStart(6)} req/s`,
      );
    }

    const getRatio = getOurs.rps / getPrism.rps;
    const historyRatio = historyLarge.p50 / historySmall.p50;
    const targets = /** @type {[string, boolean, string][]} */ ([
      [
        'GET /threads/{id} req/s ≥ 3× Prism',
        getRatio >= 3,
        `${getRatio.toFixed(2)}× (${fmtRate(getOurs.rps)} vs ${fmtRate(getPrism.rps)} req/s; dev mode ${(getDev.rps / getPrism.rps).toFixed(2)}×; node:http floor ${(getFloor.rps / getPrism.rps).toFixed(2)}×; CPU per answer ${(perRequest(getPrism) / perRequest(getOurs)).toFixed(1)}× less than Prism's)`,
      ],
      [
        'history p50, 10,000 vs 10 checkpoints ≤ 2×',
        historyRatio <= 2,
        `${historyRatio.toFixed(2)}× (${fmtMs(historyLarge.p50)} vs ${fmtMs(historySmall.p50)} ms, one connection)`,
      ],
      [
        `search, metadata filter, ${fmtCount(total)} threads: p50 ≤ 100 ms`,
        searchNarrow.p50 <= 100,
        `${fmtMs(searchNarrow.p50)} ms (one connection; ${fmtMs(searchOurs.p50)} ms under ${CONNECTIONS})`,
      ],
      [
        `count, ${fmtCount(total)} threads: p50 ≤ 5 ms`,
        countNarrow.p50 <= 5 && countAll.p50 <= 5,
        `${fmtMs(countNarrow.p50)} ms with a tenant filter, ${fmtMs(countAll.p50)} ms with none (one connection)`,
      ],
      [
        `RSS with ${fmtCount(total)} threads ≤ 200 MB`,
        memory.rss <= 200,
        `${memory.rss.toFixed(0)} MB VmRSS after the load (peak VmHWM ${memory.hwm.toFixed(0)} MB)`,
      ],
    ]);
    const unsaturated = [
      ['emulator', getOurs],
      ['Prism', getPrism],
    ].filter(([, m]) => /** @type {Measurement} */ (m).serverCpu < 0.9);
    if (unsaturated.length > 0) {
      console.log(
        `\nnote: on the GET, ${unsaturated.map(([name, m]) => `${name} used ${fmtShare(/** @type {Measurement} */ (m).serverCpu)} of a core`).join(' and ')}: the machine's other work, not the server, set the pace,` +
          `\n      which compresses req/s ratios toward 1 (the node:http floor, doing nothing, reached ${(getFloor.rps / getPrism.rps).toFixed(2)}× Prism); CPU per answer is the steadier comparison.`,
      );
    }
    console.log('\ntargets:');
    const targetWidth = Math.max(...targets.map(([what]) => what.length));
    for (const [what, met, figure] of targets) console.log(`  ${what.padEnd(targetWidth)}  ${met ? 'met   ' : 'MISSED'}  ${figure}`);
    console.log(`\n(bench time ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    for (const server of running) await server.stop().catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
