// The thread-centric protocol (POST /threads/{id}/commands, POST /threads/{id}/stream/events) on
// the emulator next to the real LangGraph JS server running the same script
// (reference-servers/langgraph-js). The emulator runs as `npm start` runs it (the CLI,
// NODE_ENV=production), on a SQLite file and on an in-memory database.
//
// Rows, each server alone:
// - first event: a client sends run.start on a new thread, then opens the thread's event stream
//   as the LangGraph SDK does once the command is answered: the time from the answer to the run's
//   first event (its `lifecycle` `running`, which both servers tell with the answer) and to its
//   end (the root's last `lifecycle`), p50 and p99. The emulator holds a run a command starts
//   250 ms before it executes (decision E28), and the JS server's queue starts it when it polls:
//   both are part of the wait for the end;
// - events/s: a thread of RUNS_PER_THREAD runs, its whole tape read by a stream without `since`
//   (what the SDK reads on every new subscription), events per second, p50 over the reads.
import http from 'node:http';
import { fmtMs, percentile } from './http-load.js';
import { startScriptedServers } from './scripted-servers.js';
import { printTable } from './table.js';

export const title = 'Emulator: the thread-centric protocol next to the LangGraph JS server running the same script';

const REPLY = 'Your order 4512 left our warehouse yesterday and should reach you by Friday; here is the tracking link.';
const GRAPHS = { chat: { replies: [{ text: REPLY }], stream: { chunk: /** @type {const} */ ('word'), delay_ms: 0 } } };
const CHANNELS = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'input', 'checkpoints', 'tasks', 'custom'];
const RUNS = 30;
const WARMUP = 3;
const RUNS_PER_THREAD = 10;
const TAPE_READS = 20;

const ask = { messages: [{ type: 'human', content: 'Where is my order?' }] };

/** POSTs JSON and answers the parsed answer. @param {string} url @param {unknown} body @returns {Promise<any>} */
function postJson(url, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve(JSON.parse(text)));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/**
 * Opens a thread's event stream and reads it until `done` holds for an event (then closes it):
 * when the first event came and when the last read came (ms after `since`), and how many.
 * @param {string} url @param {string} threadId @param {(event: any) => boolean} done @param {number} origin
 * @returns {Promise<{first: number, last: number, events: number}>}
 */
function readUntil(url, threadId, done, origin) {
  return new Promise((resolve, reject) => {
    let first = Number.NaN;
    let events = 0;
    let buffered = '';
    const request = http.request(
      `${url}/threads/${threadId}/stream/events`,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } },
      (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          buffered += chunk;
          for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
            const data = buffered
              .slice(0, end)
              .split('\n')
              .find((line) => line.startsWith('data:'));
            buffered = buffered.slice(end + 2);
            if (!data) continue;
            events++;
            if (Number.isNaN(first)) first = performance.now() - origin;
            if (done(JSON.parse(data.slice(5)))) {
              const last = performance.now() - origin;
              request.destroy();
              resolve({ first, last, events });
              return;
            }
          }
        });
      },
    );
    // Destroying the request once the awaited event came is the end this reader chose, not an error.
    request.on('error', (/** @type {NodeJS.ErrnoException} */ error) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    request.end(JSON.stringify({ channels: CHANNELS }));
  });
}

/** The end of the run at the root, or (`count`) of that many runs. */
const rootEnds =
  (count = 1) =>
  (/** @type {any} */ event) =>
    event.method === 'lifecycle' && event.params.namespace.length === 0 && event.params.data.event !== 'running' && --count === 0;

/** One run started by run.start on a new thread, then followed: times after the command's answer. */
async function oneRun(/** @type {string} */ url) {
  const threadId = crypto.randomUUID();
  const answer = await postJson(`${url}/threads/${threadId}/commands`, {
    id: 1,
    method: 'run.start',
    params: { assistant_id: 'chat', input: ask },
  });
  if (answer.type !== 'success') throw new Error(`run.start was refused: ${JSON.stringify(answer)}`);
  return readUntil(url, threadId, rootEnds(), performance.now());
}

/** RUNS runs, one after the other (after WARMUP unmeasured ones). */
async function firstEvents(/** @type {string} */ url) {
  for (let i = 0; i < WARMUP; i++) await oneRun(url);
  const results = [];
  for (let i = 0; i < RUNS; i++) results.push(await oneRun(url));
  return {
    firstP50: percentile(
      results.map((r) => r.first),
      50,
    ),
    firstP99: percentile(
      results.map((r) => r.first),
      99,
    ),
    endP50: percentile(
      results.map((r) => r.last),
      50,
    ),
    endP99: percentile(
      results.map((r) => r.last),
      99,
    ),
    eventsPerRun: percentile(
      results.map((r) => r.events),
      50,
    ),
  };
}

/** A thread of RUNS_PER_THREAD runs, its whole tape read TAPE_READS times: events per second, p50. */
async function tapeReads(/** @type {string} */ url) {
  const threadId = crypto.randomUUID();
  for (let i = 0; i < RUNS_PER_THREAD; i++) {
    await postJson(`${url}/threads/${threadId}/commands`, { id: i + 1, method: 'run.start', params: { assistant_id: 'chat', input: ask } });
    await readUntil(url, threadId, rootEnds(i + 1), performance.now());
  }
  const rates = [];
  let events = 0;
  for (let i = 0; i < TAPE_READS; i++) {
    const read = await readUntil(url, threadId, rootEnds(RUNS_PER_THREAD), performance.now());
    events = read.events;
    rates.push(read.events / (read.last / 1000));
  }
  return { events, eventsPerSecond: percentile(rates, 50) };
}

export async function run() {
  const started = performance.now();
  const { onFile, inMemory, langgraph, stop } = await startScriptedServers(GRAPHS);
  try {
    const servers = { 'emulator (file)': onFile.url, 'emulator (memory)': inMemory.url, 'LangGraph JS': langgraph.url };
    /** @type {Record<string, {first: Awaited<ReturnType<typeof firstEvents>>, tape: Awaited<ReturnType<typeof tapeReads>>}>} */
    const measured = {};
    for (const [name, url] of Object.entries(servers)) {
      measured[name] = { first: await firstEvents(url), tape: await tapeReads(url) };
      console.log(`  measured ${name}`);
    }
    const emulatorErrors = onFile.stderrLines() + inMemory.stderrLines();

    console.log(
      `\nSame machine, same run, one server at a time. A run: run.start on a new thread, then POST /threads/{id}/stream/events (every channel)`,
    );
    console.log(
      `opened once it is answered, read to the run's end; a reply of ${REPLY.split(' ').length} words cut in words. ${WARMUP} runs of warm-up, then ${RUNS} measured.`,
    );
    console.log(`A tape: a thread of ${RUNS_PER_THREAD} runs read whole by a stream without since, ${TAPE_READS} times.\n`);
    const theirs = measured['LangGraph JS'];
    const header = [
      'server',
      'first event p50',
      'p99',
      'run end p50',
      'p99',
      'events per run',
      'tape events',
      'tape events/s',
      'first vs LangGraph',
      'events/s vs LangGraph',
    ];
    const rows = Object.entries(measured).map(([name, m]) => [
      name,
      `${fmtMs(m.first.firstP50)} ms`,
      `${fmtMs(m.first.firstP99)} ms`,
      `${fmtMs(m.first.endP50)} ms`,
      `${fmtMs(m.first.endP99)} ms`,
      String(m.first.eventsPerRun),
      String(m.tape.events),
      m.tape.eventsPerSecond.toFixed(0),
      name === 'LangGraph JS' ? '' : `${(m.first.firstP50 / theirs.first.firstP50).toFixed(3)}×`,
      name === 'LangGraph JS' ? '' : `${(m.tape.eventsPerSecond / theirs.tape.eventsPerSecond).toFixed(1)}×`,
    ]);
    printTable(header, rows, [0]);
    console.log(`\nThe emulator's run end includes the 250 ms a run a command starts waits (decision E28).`);
    console.log(`emulator stderr (contract violations, internal errors): ${emulatorErrors} lines`);
    console.log(`\n(bench time ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    await stop();
  }
}
