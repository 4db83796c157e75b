// The store (long-term memory) on the emulator next to the real LangGraph JS server: put, get and
// search requests/s. The emulator runs as `npm start` runs it (the CLI, NODE_ENV=production),
// in memory as the LangGraph JS dev server keeps its store (the ratio the issue asks for), and on
// a SQLite file, where each put is committed before it is answered.
//
// Each server is first given the same 1,000 items (10 users of 100 memories, half of them of kind
// `fact`), which gets and searches read; puts write new keys under a namespace of their own, so
// that the searches read the same items in every round.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@agentplane/openapi-toolkit';
import { startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { startEmulatorProcess } from './emulator-process.js';
import { compare, fmtMs, fmtRate } from './http-load.js';
import { cpuAndRatioCells, printTable } from './table.js';

/** @typedef {import('./http-load.js').Endpoint} Endpoint */
/** @typedef {import('./http-load.js').Server} Server */

export const title = 'Emulator: the store (put, get, search) next to the LangGraph JS server';

const CONNECTIONS = 10;
const USERS = 10;
const MEMORIES = 100;
const ROUND_S = 2;

const memory = (/** @type {number} */ i) => ({
  text: `Memory ${i}: likes ${['ramen', 'soba', 'pho', 'curry'][i % 4]} and lives in ${['Lisbon', 'Osaka', 'Hanoi'][i % 3]}`,
  kind: i % 2 === 0 ? 'fact' : 'preference',
  n: i,
});
const json = (/** @type {unknown} */ value) => JSON.stringify(value);

/** @type {Endpoint[]} */
const ENDPOINTS = [
  {
    name: 'PUT /store/items (a new key)',
    method: 'PUT',
    path: () => '/store/items',
    body: () => json({ namespace: ['bench', 'puts'], key: crypto.randomUUID(), value: memory(7) }),
  },
  {
    name: 'GET /store/items (one of 1,000)',
    method: 'GET',
    path: () => {
      const i = Math.floor(Math.random() * USERS * MEMORIES);
      return `/store/items?namespace=bench.users.u-${i % USERS}&key=m-${i}`;
    },
  },
  {
    name: 'POST /store/items/search (a user, a page of 10)',
    method: 'POST',
    path: () => '/store/items/search',
    body: () => json({ namespace_prefix: ['bench', 'users', `u-${Math.floor(Math.random() * USERS)}`], limit: 10 }),
  },
  {
    name: 'POST /store/items/search (all users, filter, page of 10)',
    method: 'POST',
    path: () => '/store/items/search',
    body: () => json({ namespace_prefix: ['bench', 'users'], filter: { kind: 'fact' }, limit: 10, offset: 20 }),
  },
];

/** Puts the 1,000 items on `server`, and reads one back. */
async function seed(/** @type {Server} */ server) {
  for (let i = 0; i < USERS * MEMORIES; i++) {
    const response = await fetch(`${server.url}/store/items`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: json({ namespace: ['bench', 'users', `u-${i % USERS}`], key: `m-${i}`, value: memory(i) }),
    });
    if (response.status !== 204) throw new Error(`${server.url} refused a put: ${response.status} ${await response.text()}`);
  }
  const item = await (await fetch(`${server.url}/store/items?namespace=bench.users.u-3&key=m-13`)).json();
  if (item?.value?.n !== 13) throw new Error(`${server.url} did not keep the items: ${JSON.stringify(item)}`);
}

export async function run() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-bench-store-'));
  /** @type {{stop(): Promise<void>}[]} */
  const running = [];
  try {
    const inMemory = await startEmulatorProcess({ db: ':memory:', production: true });
    running.push(inMemory);
    const onFile = await startEmulatorProcess({ db: path.join(tmp, 'emulator.db'), production: true });
    running.push(onFile);
    const langgraphServer = await startLangGraphServer({ port: await freePort(), log: console.log });
    running.push(langgraphServer);
    /** @type {Server} */
    const langgraph = { url: langgraphServer.url, pid: langgraphServer.pid };
    const servers = { 'emulator (memory)': inMemory, 'emulator (file)': onFile, 'LangGraph JS': langgraph };
    for (const server of Object.values(servers)) await seed(server);
    const bystanders = Object.values(servers).map((server) => server.pid);

    /** @type {{name: string, measured: Record<string, import('./http-load.js').Measurement>}[]} */
    const rows = [];
    for (const endpoint of ENDPOINTS) {
      const contenders = Object.values(servers).map((server) => ({ server, endpoint }));
      const measured = await compare(contenders, { connections: CONNECTIONS, seconds: ROUND_S, bystanders });
      rows.push({ name: endpoint.name, measured: Object.fromEntries(Object.keys(servers).map((name, i) => [name, measured[i]])) });
      console.log(`  measured ${endpoint.name}`);
    }

    console.log(
      `\nSame machine, same run; each server alone (the others stopped), a warm-up, then interleaved rounds of ${ROUND_S} s under ${CONNECTIONS} connections;`,
    );
    console.log(
      'requests/s of the median round (2xx only), latency p50 and p99, CPU of the server per request; ratio to the LangGraph JS server (in memory).\n',
    );
    const header = ['request', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU/req', 'vs LangGraph'];
    /** @type {string[][]} */
    const table = [];
    for (const row of rows) {
      const theirs = row.measured['LangGraph JS'];
      for (const [server, m] of Object.entries(row.measured)) {
        table.push([
          server === 'emulator (memory)' ? row.name : '',
          server,
          fmtRate(m.rps),
          fmtMs(m.p50),
          fmtMs(m.p99),
          ...cpuAndRatioCells(server, m, theirs),
        ]);
        if (m.failed > 0) console.log(`  ${server}, ${row.name}: ${m.failed} answers were not 2xx (${m.statuses})`);
      }
    }
    printTable(
      header,
      table,
      header.map((_, i) => i),
    );
  } finally {
    for (const server of running.reverse()) await server.stop().catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
