// The cron scheduler keeping 1,000 crons: each a thread's cron on `* * * * *`, on the emulator CLI
// (NODE_ENV=production, in memory) started with `--cron-speed`, so that a schedule minute lasts
// 60/SPEED seconds. After TICKS schedule minutes, every cron's runs are read back: how many each
// made (the schedule calls for one per minute: no drift means every cron within one of that), and,
// for each minute, how long after its first run its last one was made (the scheduler's lag behind
// the schedule; it must stay under one minute of the schedule, or times would pile up).
// There is nothing to compare with: the LangGraph JS server serves no cron.
import http from 'node:http';
import { startEmulatorProcess } from './emulator-process.js';
import { fmtMs } from './http-load.js';

export const title = 'Emulator: 1,000 crons on one scheduler, drift and lag per schedule minute';

const CRONS = 1000;
const SPEED = 12; // a schedule minute is 5 s
const TICKS = 6;
const MINUTE_MS = 60_000 / SPEED;

/** One JSON request on a kept-alive connection. @returns {Promise<any>} */
function request(/** @type {http.Agent} */ agent, /** @type {string} */ url, /** @type {string} */ method, /** @type {unknown} */ body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () =>
          response.statusCode && response.statusCode < 300
            ? resolve(JSON.parse(text))
            : reject(new Error(`${response.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Runs `work` over `items`, `width` at a time. @template T @param {T[]} items @param {(item: T) => Promise<void>} work */
async function inParallel(items, work, width = 10) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

export async function run() {
  const emulator = await startEmulatorProcess({ db: ':memory:', production: true, args: ['--cron-speed', String(SPEED)] });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  try {
    const url = emulator.url;
    /** @type {string[]} */
    const threads = [];
    for (let i = 0; i < CRONS; i++) threads.push((await request(agent, `${url}/threads`, 'POST', {})).thread_id);
    const created = performance.now();
    await inParallel(threads, async (threadId) => {
      await request(agent, `${url}/threads/${threadId}/runs/crons`, 'POST', {
        assistant_id: 'agent',
        schedule: '* * * * *',
        input: { messages: [{ type: 'human', content: 'tick' }] },
      });
    });
    const createMs = performance.now() - created;
    // The first schedule minute starts within one minute of the creates; TICKS more, and half a minute to settle.
    const waitMs = (TICKS + 1.5) * MINUTE_MS;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    /** @type {number[]} */
    const counts = [];
    /** @type {Map<number, number[]>} run creation times (ms) by schedule minute, from each cron's n-th run */
    const byTick = new Map();
    await inParallel(threads, async (threadId) => {
      const runs = /** @type {{created_at: string}[]} */ (
        await request(agent, `${url}/threads/${threadId}/runs?limit=100`, 'GET', undefined)
      );
      counts.push(runs.length);
      runs.reverse().forEach((run, n) => {
        byTick.set(n, [...(byTick.get(n) ?? []), Date.parse(run.created_at)]);
      });
    });
    // The first run comes at the first schedule minute after the creates, less than a minute later.
    const expected = `${Math.floor(waitMs / MINUTE_MS)}–${Math.ceil(waitMs / MINUTE_MS)}`;
    const min = Math.min(...counts);
    const max = Math.max(...counts);
    console.log(
      `\n${CRONS} crons '* * * * *' on threads, --cron-speed ${SPEED} (a schedule minute is ${MINUTE_MS / 1000} s); created in ${fmtMs(createMs)} ms; read after ${(waitMs / 1000).toFixed(1)} s.`,
    );
    console.log(`runs per cron: min ${min}, max ${max} (${expected} expected; no drift: every cron within one of the others)`);
    console.log('\nschedule minute  runs  first to last run made (ms)  as a share of the minute');
    for (const [tick, times] of [...byTick.entries()].sort((a, b) => a[0] - b[0])) {
      const spread = Math.max(...times) - Math.min(...times);
      console.log(
        `${String(tick + 1).padEnd(15)}  ${String(times.length).padEnd(4)}  ${fmtMs(spread).padEnd(28)}  ${((spread / MINUTE_MS) * 100).toFixed(1)}%`,
      );
    }
    if (emulator.stderrLines() > 0) console.log(`  the emulator wrote ${emulator.stderrLines()} line(s) on stderr`);
  } finally {
    agent.destroy();
    await emulator.stop();
  }
}
