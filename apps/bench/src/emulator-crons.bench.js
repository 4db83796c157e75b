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
    /** @type {number[]} every run's creation time (ms) */
    const times = [];
    await inParallel(threads, async (threadId) => {
      const runs = /** @type {{created_at: string}[]} */ (
        await request(agent, `${url}/threads/${threadId}/runs?limit=100`, 'GET', undefined)
      );
      counts.push(runs.length);
      for (const run of runs) times.push(Date.parse(run.created_at));
    });
    // The runs of one schedule minute, by when they were made: a new minute starts after a pause of
    // half a minute. (Not each cron's n-th run: crons created on both sides of a minute's start
    // begin one minute apart, and their n-th runs are a minute apart too.)
    times.sort((a, b) => a - b);
    /** @type {number[][]} */
    const byMinute = [];
    for (const [i, time] of times.entries()) {
      if (i === 0 || time - times[i - 1] > MINUTE_MS / 2) byMinute.push([]);
      byMinute.at(-1)?.push(time);
    }
    // The first run comes at the first schedule minute after the creates, less than a minute later.
    const expected = `${Math.floor(waitMs / MINUTE_MS)}–${Math.ceil(waitMs / MINUTE_MS)}`;
    const min = Math.min(...counts);
    const max = Math.max(...counts);
    console.log(
      `\n${CRONS} crons '* * * * *' on threads, --cron-speed ${SPEED} (a schedule minute is ${MINUTE_MS / 1000} s); created in ${fmtMs(createMs)} ms; read after ${(waitMs / 1000).toFixed(1)} s.`,
    );
    console.log(`runs per cron: min ${min}, max ${max} (${expected} expected; no drift: every cron within one of the others)`);
    console.log('\nschedule minute  runs  first to last run made (ms)  as a share of the minute');
    for (const [minute, made] of byMinute.entries()) {
      const spread = made[made.length - 1] - made[0];
      console.log(
        `${String(minute + 1).padEnd(15)}  ${String(made.length).padEnd(4)}  ${fmtMs(spread).padEnd(28)}  ${((spread / MINUTE_MS) * 100).toFixed(1)}%`,
      );
    }
    const gaps = byMinute.slice(1).map((made, i) => made[0] - byMinute[i][0]);
    console.log(
      `from one minute's first run to the next's: ${fmtMs(Math.min(...gaps))}–${fmtMs(Math.max(...gaps))} ms (a schedule minute is ${MINUTE_MS} ms)`,
    );
    if (emulator.stderrLines() > 0) console.log(`  the emulator wrote ${emulator.stderrLines()} line(s) on stderr`);
  } finally {
    agent.destroy();
    await emulator.stop();
  }
}
