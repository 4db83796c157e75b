// Preloaded into an emulator process by a benchmark (node --expose-gc --require heap-probe.cjs):
// on SIGUSR2 it collects garbage fully and appends the memory still in use, as one JSON line, to
// the file AGENTPLANE_HEAP_PROBE names. RSS alone cannot tell memory a process holds from memory
// V8 has not yet handed back to the system; the heap after a full collection can.
const fs = require('node:fs');

const file = process.env.AGENTPLANE_HEAP_PROBE;
if (file && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    const { heapUsed, external, rss } = process.memoryUsage();
    fs.appendFileSync(file, `${JSON.stringify({ heapUsed, external, rss })}\n`);
  });
}
