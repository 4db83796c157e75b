// What runs leave in memory once they are over. A streamed run's event log, its listeners and its
// engine state must go when it ends, and everything a thread holds when the thread is deleted:
// a thousand streamed runs more must not grow the heap (measured after a full collection, which
// is exact, unlike RSS, which V8 gives back to the system when it likes). What a live thread
// keeps is the latest-checkpoint cache's, which has a budget of its own (decision E13).
import v8 from 'node:v8';
import vm from 'node:vm';
import { expect, it } from 'vitest';
import { createEmulator } from '../src/emulator.js';
import { ask } from './support/run-graphs.js';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/** The heap in use after a full collection, once timers of the last requests have run. */
async function heapAfterGc(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

it('streamed runs on threads that are then deleted leave the heap as it was', async () => {
  const errors: string[] = [];
  const emulator = createEmulator({
    graphs: { chat: { replies: [{ text: 'one two three four five six' }], stream: { chunk: 'word', delay_ms: 0 } } },
    onError: (message) => errors.push(message),
  });
  const { fetch, url } = emulator.agentServer;
  const body = JSON.stringify({
    assistant_id: 'chat',
    input: ask('hi'),
    stream_mode: ['values', 'messages-tuple'],
    if_not_exists: 'create',
  });
  /** `runs` streamed runs, each on a thread of its own read to its end; then the threads are deleted. */
  const batch = async (runs: number) => {
    const threads: string[] = [];
    for (let i = 0; i < runs; i++) {
      const threadId = crypto.randomUUID();
      threads.push(threadId);
      const response = await fetch(
        new Request(`${url}/threads/${threadId}/runs/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
      );
      expect((await response.text()).match(/^event: /gm)?.length, 'events of a stream').toBe(9);
    }
    for (const threadId of threads) expect((await fetch(new Request(`${url}/threads/${threadId}`, { method: 'DELETE' }))).status).toBe(204);
  };
  try {
    // A first batch warms up what is made once (compiled code, validators, prepared statements).
    await batch(1000);
    const before = await heapAfterGc();
    await batch(1000);
    const grown = (await heapAfterGc()) - before;
    // Measured: 0.1 to 0.4 MB, whether the batch has 1,000 runs or 3,000 (code and caches of
    // shapes, not runs). A run's event log alone is about 7 KB: one kept per run adds 7 MB.
    expect(grown / 2 ** 20, 'MB the heap grew by over 1,000 runs').toBeLessThan(2);
    expect(errors).toEqual([]);
  } finally {
    await emulator.close();
  }
}, 300_000);
