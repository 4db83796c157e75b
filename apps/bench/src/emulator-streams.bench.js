// Streamed runs (POST /threads/{id}/runs/stream, the modes `useStream` asks for: values and
// messages-tuple) on the emulator next to the real LangGraph JS server streaming the same script
// (reference-servers/langgraph-js). The emulator runs as `npm start` runs it (the CLI,
// NODE_ENV=production), on a SQLite file and on an in-memory database (the LangGraph JS dev
// server keeps everything in memory).
//
// Rows, each server alone:
// - one client, one stream after the other: time to the first event (the `metadata` frame) and
//   to the last (the response's end), p50 and p99, and events per second over the whole row;
// - 1,000 streams at once of a reply cut in words with `delay_ms: 20` before each: whether all
//   complete with every event, how long the batch takes, and the emulator's RSS before and after
//   (twice on the emulators: what a second batch adds tells held memory (its 2,000 threads) from a leak).
import http from 'node:http';
import { memoryOf } from './emulator-process.js';
import { fmtMs, percentile } from './http-load.js';
import { startScriptedServers } from './scripted-servers.js';
import { printTable } from './table.js';

export const title = 'Emulator: streamed runs next to the LangGraph JS server streaming the same script';

const REPLY = 'Your order 4512 left our warehouse yesterday and should reach you by Friday; here is the tracking link.';
/** The graphs both servers run: a reply cut in words, at once or 20 ms apart. */
const GRAPHS = {
  chat: { replies: [{ text: REPLY }], stream: { chunk: /** @type {const} */ ('word'), delay_ms: 0 } },
  paced: { replies: [{ text: REPLY }], stream: { chunk: /** @type {const} */ ('word'), delay_ms: 20 } },
};
const WORDS = REPLY.split(' ').length;
/** metadata, values (input), one `messages` per word, values (reply). */
const EVENTS_PER_STREAM = 3 + WORDS;
const SEQUENTIAL = 200;
const WARMUP = 20;
const CONCURRENT = 1000;

const bodyFor = (/** @type {string} */ graph) =>
  JSON.stringify({
    assistant_id: graph,
    input: { messages: [{ type: 'human', content: 'Where is my order?' }] },
    stream_mode: ['values', 'messages-tuple'],
    if_not_exists: 'create',
  });

/**
 * One streamed run on a new thread: when the first event arrived and when the response ended
 * (ms after the request), how many events it held, and its status.
 * @param {string} url @param {string} graph @param {http.Agent} agent
 * @returns {Promise<{status: number, first: number, last: number, events: number}>}
 */
function streamOnce(url, graph, agent) {
  return new Promise((resolve, reject) => {
    const begun = performance.now();
    let first = Number.NaN;
    let text = '';
    const request = http.request(
      `${url}/threads/${crypto.randomUUID()}/runs/stream`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          if (Number.isNaN(first) && chunk.includes('event:')) first = performance.now() - begun;
          text += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            first,
            last: performance.now() - begun,
            events: (text.match(/^event: /gm) ?? []).length,
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(bodyFor(graph));
  });
}

/** One client, SEQUENTIAL streams one after the other (after WARMUP unmeasured ones). */
async function sequential(/** @type {string} */ url) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < WARMUP; i++) await streamOnce(url, 'chat', agent);
  /** @type {Awaited<ReturnType<typeof streamOnce>>[]} */
  const results = [];
  const started = performance.now();
  for (let i = 0; i < SEQUENTIAL; i++) results.push(await streamOnce(url, 'chat', agent));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const ok = results.filter((r) => r.status === 200 && r.events === EVENTS_PER_STREAM);
  return {
    ok: ok.length,
    firstP50: percentile(
      ok.map((r) => r.first),
      50,
    ),
    firstP99: percentile(
      ok.map((r) => r.first),
      99,
    ),
    lastP50: percentile(
      ok.map((r) => r.last),
      50,
    ),
    lastP99: percentile(
      ok.map((r) => r.last),
      99,
    ),
    eventsPerSecond: ok.reduce((sum, r) => sum + r.events, 0) / seconds,
  };
}

/**
 * CONCURRENT streams of the paced graph at once; on an emulator, its memory before and after, and
 * its heap after a full collection once the batch is over.
 * @param {{url: string, pid?: number, heapAfterGc?: () => Promise<{heapUsed: number, external: number, rss: number} | undefined>}} server
 */
async function concurrent({ url, pid, heapAfterGc }) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: CONCURRENT });
  const before = pid ? memoryOf(pid) : undefined;
  const heapBefore = await heapAfterGc?.();
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: CONCURRENT }, () => streamOnce(url, 'paced', agent).catch(() => undefined)));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const during = pid ? memoryOf(pid) : undefined;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const after = pid ? memoryOf(pid) : undefined;
  const heapAfter = await heapAfterGc?.();
  const complete = results.filter((r) => r?.status === 200 && r.events === EVENTS_PER_STREAM).length;
  return { complete, seconds, before, during, after, heapBefore, heapAfter };
}

export async function run() {
  const started = performance.now();
  const { onFile, inMemory, langgraph, stop } = await startScriptedServers(GRAPHS, { heapProbe: true });
  try {
    /** @type {Record<string, Parameters<typeof concurrent>[0]>} */
    const servers = { 'emulator (file)': onFile, 'emulator (memory)': inMemory, 'LangGraph JS': { url: langgraph.url } };
    for (const [name, server] of Object.entries(servers)) {
      const check = await streamOnce(server.url, 'chat', new http.Agent());
      if (check.status !== 200 || check.events !== EVENTS_PER_STREAM)
        throw new Error(
          `${name} did not stream the script: status ${check.status}, ${check.events} events (expected ${EVENTS_PER_STREAM})`,
        );
    }

    /** @type {Record<string, Awaited<ReturnType<typeof sequential>>>} */
    const one = {};
    /** @type {Record<string, Awaited<ReturnType<typeof concurrent>>>} */
    const many = {};
    for (const [name, server] of Object.entries(servers)) {
      one[name] = await sequential(server.url);
      console.log(`  measured one client on ${name}`);
    }
    /** The emulators' RSS after a second batch: memory that stays flat is held, not leaked. */
    /** @type {Record<string, Awaited<ReturnType<typeof concurrent>>>} */
    const again = {};
    for (const [name, server] of Object.entries(servers)) {
      many[name] = await concurrent(server);
      if (server.pid) again[name] = await concurrent(server);
      console.log(`  measured ${CONCURRENT} streams at once on ${name}`);
    }
    const emulatorErrors = onFile.stderrLines() + inMemory.stderrLines();

    console.log(
      `\nSame machine, same run, one server at a time. Each stream: POST /threads/{id}/runs/stream on a new thread, stream_mode values + messages-tuple,`,
    );
    console.log(
      `a reply of ${WORDS} words cut in words: ${EVENTS_PER_STREAM} events. One client: ${WARMUP} streams of warm-up, then ${SEQUENTIAL} measured.\n`,
    );
    const header = ['server', 'first event p50', 'p99', 'last event p50', 'p99', 'events/s', 'first vs LangGraph', 'events/s vs LangGraph'];
    const theirs = one['LangGraph JS'];
    const rows = Object.entries(one).map(([name, m]) => [
      name,
      `${fmtMs(m.firstP50)} ms`,
      `${fmtMs(m.firstP99)} ms`,
      `${fmtMs(m.lastP50)} ms`,
      `${fmtMs(m.lastP99)} ms`,
      m.eventsPerSecond.toFixed(0),
      name === 'LangGraph JS' ? '' : `${(m.firstP50 / theirs.firstP50).toFixed(3)}×`,
      name === 'LangGraph JS' ? '' : `${(m.eventsPerSecond / theirs.eventsPerSecond).toFixed(1)}×`,
    ]);
    printTable(header, rows, [0]);
    const incomplete = Object.entries(one).filter(([, m]) => m.ok !== SEQUENTIAL);
    console.log(
      incomplete.length
        ? `\nNOT every stream was complete: ${incomplete.map(([n, m]) => `${n} ${m.ok}/${SEQUENTIAL}`).join(', ')}`
        : '\nevery stream above was a 200 with every event',
    );

    console.log(`\n${CONCURRENT} streams at once, delay_ms 20 before each of the ${WORDS} words:`);
    for (const [name, m] of Object.entries(many)) {
      const memory =
        m.before && m.during && m.after
          ? `; RSS ${m.before.rss.toFixed(0)} MB before, ${m.during.rss.toFixed(0)} MB at the end, ${m.after.rss.toFixed(0)} MB 2 s later (peak ${m.after.hwm.toFixed(0)} MB)`
          : '';
      console.log(`  ${name.padEnd(18)} ${m.complete}/${CONCURRENT} complete in ${m.seconds.toFixed(1)} s${memory}`);
      const second = again[name];
      if (second?.after)
        console.log(
          `  ${''.padEnd(18)} a second batch: ${second.complete}/${CONCURRENT} complete in ${second.seconds.toFixed(1)} s; RSS ${second.after.rss.toFixed(0)} MB 2 s after it`,
        );
      // What the process holds once the streams are over: the V8 heap after a full collection
      // (JavaScript objects: run logs, listeners, sockets) and what lives outside it.
      const [idle, one, two] = [m.heapBefore, m.heapAfter, second?.heapAfter];
      if (idle && one && two)
        console.log(
          `  ${''.padEnd(18)} heap after a full GC: ${idle.heapUsed.toFixed(1)} MB idle, ${one.heapUsed.toFixed(1)} MB after one batch, ` +
            `${two.heapUsed.toFixed(1)} MB after two (outside the heap: ${idle.external.toFixed(1)}, ${one.external.toFixed(1)}, ${two.external.toFixed(1)} MB)`,
        );
    }
    console.log(`emulator stderr (contract violations, internal errors): ${emulatorErrors} lines`);

    console.log('\ntargets:');
    for (const name of ['emulator (file)', 'emulator (memory)']) {
      const m = one[name];
      const firstRatio = m.firstP50 / theirs.firstP50;
      const eventsRatio = m.eventsPerSecond / theirs.eventsPerSecond;
      console.log(`  ${name}: first event ≤ a tenth of LangGraph's ${firstRatio <= 0.1 ? 'met' : 'MISSED'} (${firstRatio.toFixed(3)}×);`);
      console.log(`  ${' '.repeat(name.length)}  first event p50 ≤ 5 ms ${m.firstP50 <= 5 ? 'met' : 'MISSED'} (${fmtMs(m.firstP50)} ms);`);
      console.log(
        `  ${' '.repeat(name.length)}  events/s ≥ 5× LangGraph's ${eventsRatio >= 5 ? 'met' : 'MISSED'} (${eventsRatio.toFixed(1)}×);`,
      );
      console.log(
        `  ${' '.repeat(name.length)}  ${CONCURRENT} concurrent streams all complete ${many[name].complete === CONCURRENT ? 'met' : 'MISSED'} (${many[name].complete})`,
      );
    }
    console.log(`\n(bench time ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    await stop();
  }
}
