// The three servers the run and stream benchmarks set side by side, each running the same scripted
// graphs: the emulator CLI as `npm start` runs it (NODE_ENV=production) on a SQLite file and on an
// in-memory database (the LangGraph JS dev server keeps everything in memory), and the real
// LangGraph JS server over a scripted chat model (reference-servers/langgraph-js).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@agentplane/openapi-toolkit';
import { startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { startEmulatorProcess } from './emulator-process.js';

/**
 * Starts the three servers on `graphs` (the emulator config's `graphs`). `stop` stops every one
 * and removes their files; a failed start stops those already running. `heapProbe`: the
 * emulators can tell their heap after a full collection (startEmulatorProcess).
 * @param {Record<string, import('../../../reference-servers/langgraph-js/server.mjs').ScriptedGraphConfig>} graphs
 * @param {{heapProbe?: boolean}} [options]
 */
export async function startScriptedServers(graphs, { heapProbe = false } = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-bench-'));
  /** @type {{stop(): Promise<void>}[]} */
  const running = [];
  const stop = async () => {
    for (const server of running.reverse()) await server.stop().catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    const config = path.join(tmp, 'graphs.json');
    fs.writeFileSync(config, JSON.stringify({ graphs }));
    const onFile = await startEmulatorProcess({
      db: path.join(tmp, 'emulator.db'),
      production: true,
      args: ['--config', config],
      heapProbe,
    });
    running.push(onFile);
    const inMemory = await startEmulatorProcess({ db: ':memory:', production: true, args: ['--config', config], heapProbe });
    running.push(inMemory);
    const langgraph = await startLangGraphServer({ port: await freePort(), graphs, log: console.log });
    running.push(langgraph);
    return { onFile, inMemory, langgraph, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
