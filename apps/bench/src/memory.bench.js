// Memory benchmark: the resident memory (RSS, from /proc) of one emulator process, as `npm start`
// runs it (every answer checked against the spec), at three moments:
//
//   1. idle, once it is ready (after one request of each kind, so that what loads on first use,
//      such as the validator modules, is loaded: the baseline is the emulator at work, not half
//      started);
//   2. after 20,000 malformed requests: mutated and random JSON, extreme numbers, bodies that are
//      not UTF-8, odd content types, headers over the limit, odd paths and methods, deep nesting,
//      bad query numbers, and a few bodies over the size limit (a seeded generator: every run
//      sends the same requests);
//   3. after one minute of ordinary mixed load over 50 connections (creates, searches, state and
//      history reads on the agent server; listings, creates and reads on the control plane).
//
// After a burst, RSS is read twice: two seconds after it ended, and once it has settled (15 idle
// seconds: V8 collects the garbage of the burst when it sees the process idle, about 8 s later).
// Each is shown against the idle figure; the project's bound is 1.5x, for the settled figures.
// The peak (VmHWM) is shown too: memory used while a burst lasts and given back afterwards.
// Nothing is asserted: the figures are for reading.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { memoryOf, startEmulatorProcess } from './emulator-process.js';
import { rng } from './seeded-random.js';

export const title = 'Emulator memory: idle, after 20,000 malformed requests, after a minute of mixed load';

const MALFORMED = 20_000;
const MALFORMED_CONCURRENCY = 16;
const MIXED_SECONDS = 60;
const CONNECTIONS = { agentServer: 40, controlPlane: 10 };
const SOON_MS = 2000;
const SETTLED_MS = 15_000;
const BOUND = 1.5;

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-memory-bench-'));
  const emulator = await startEmulatorProcess({ db: path.join(dir, 'emulator.db'), production: false });
  try {
    const apiKey = /uses API key (\S+)/.exec(emulator.output())?.[1] ?? '';
    const targets = { agentServer: emulator.url, controlPlane: emulator.controlPlaneUrl, apiKey };
    await warmUp(targets);
    await wait(SOON_MS);
    const idle = memoryOf(emulator.pid);
    /** Memory two seconds after a burst, then settled. */
    const after = async () => {
      await wait(SOON_MS);
      const soon = memoryOf(emulator.pid);
      await wait(SETTLED_MS - SOON_MS);
      return { soon, settled: memoryOf(emulator.pid) };
    };

    const malformed = await sendMalformed(targets);
    const afterMalformed = await after();
    const mixed = await mixedLoad(targets);
    const afterMixed = await after();

    const ratio = (/** @type {number} */ rss) => `${(rss / idle.rss).toFixed(2)}x`;
    console.log('| moment | RSS after 2 s | settled RSS (15 s) | settled / idle | peak so far (VmHWM) |');
    console.log('|---|---:|---:|---:|---:|');
    console.log(`| idle (after one request of each kind) | | ${mb(idle.rss)} | 1.00x | ${mb(idle.hwm)} |`);
    for (const [moment, memory] of /** @type {const} */ ([
      [`after ${MALFORMED.toLocaleString('en')} malformed requests`, afterMalformed],
      [`after ${MIXED_SECONDS} s of mixed load (${CONNECTIONS.agentServer + CONNECTIONS.controlPlane} connections)`, afterMixed],
    ])) {
      console.log(
        `| ${moment} | ${mb(memory.soon.rss)} (${ratio(memory.soon.rss)}) | ${mb(memory.settled.rss)} | ${ratio(memory.settled.rss)} | ${mb(memory.settled.hwm)} |`,
      );
    }
    console.log(`\nmalformed requests: ${summarize(malformed)}`);
    console.log(`mixed load: ${summarize(mixed.statuses)}, ${Math.round(mixed.requests / MIXED_SECONDS)} requests/s`);
    console.log(`stderr lines (contract violations, internal errors): ${emulator.stderrLines()}`);
    const worst = Math.max(afterMalformed.settled.rss, afterMixed.settled.rss) / idle.rss;
    console.log(`bound: settled RSS within ${BOUND}x of idle: ${worst <= BOUND ? 'yes' : 'NO'} (worst ${worst.toFixed(2)}x)`);
  } finally {
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (/** @type {number} */ value) => `${value.toFixed(1)} MB`;
const wait = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {Record<string, number>} statuses */
function summarize(statuses) {
  return Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}×${count}`)
    .join(', ');
}

/** @typedef {{agentServer: string, controlPlane: string, apiKey: string}} Targets */
/** @typedef {{base: string, method: string, path: string, headers?: Record<string, string>, body?: string | Buffer}} Request */

/**
 * Sends one request with node:http (which frames any body, sends any method and any bytes) and
 * resolves with its status, or `error` when the server closed the connection without one.
 * @param {http.Agent} agent
 * @param {Request} request
 * @returns {Promise<string>}
 */
function send(agent, request) {
  const url = new URL(request.base);
  const headers = { ...request.headers };
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', () => resolve('error'));
    });
    req.on('error', () => resolve('error'));
    req.end(request.body);
  });
}

/** @param {Targets} targets */
async function warmUp(targets) {
  const agent = new http.Agent({ keepAlive: true });
  const json = { 'content-type': 'application/json' };
  const created = await fetch(`${targets.agentServer}/threads`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      supersteps: [{ updates: [{ as_node: '__input__', values: { messages: [{ type: 'human', content: 'hi' }] } }] }],
    }),
  });
  const { thread_id: threadId } = /** @type {{thread_id: string}} */ (await created.json());
  const requests = [
    { base: targets.agentServer, method: 'GET', path: `/threads/${threadId}/state` },
    { base: targets.agentServer, method: 'POST', path: '/threads/search', headers: json, body: '{"metadata": {"a": 1}}' },
    { base: targets.agentServer, method: 'POST', path: `/threads/${threadId}/history`, headers: json, body: '{}' },
    { base: targets.agentServer, method: 'POST', path: `/threads/${threadId}/copy`, headers: json, body: '{}' },
    { base: targets.controlPlane, method: 'GET', path: '/v2/deployments', headers: { 'x-api-key': targets.apiKey } },
  ];
  for (const request of requests) await send(agent, request);
  agent.destroy();
}

/**
 * The malformed requests, in a fixed order from a fixed seed.
 * @param {Targets} targets
 * @returns {Generator<Request>}
 */
function* malformedRequests(targets) {
  const random = rng(20_261_123);
  const pick = (/** @type {any[]} */ items) => items[Math.floor(random() * items.length)];
  const json = { 'content-type': 'application/json' };
  const key = { 'x-api-key': targets.apiKey };
  const agent = targets.agentServer;
  const control = targets.controlPlane;
  const text = (/** @type {number} */ length) => Array.from({ length }, () => String.fromCharCode(32 + Math.floor(random() * 95))).join('');
  const kinds = [
    () => ({ base: agent, method: 'POST', path: '/threads', headers: json, body: text(1 + Math.floor(random() * 200)) }),
    () => ({
      base: agent,
      method: 'POST',
      path: '/threads/search',
      headers: json,
      body: `{"offset": ${pick(['9223372036854775807', '1e308', '1E400', '18446744073709551616', '-1'])}}`,
    }),
    () => ({
      base: agent,
      method: 'POST',
      path: '/threads',
      headers: json,
      body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, pick([0xff, 0xc0, 0xed, 0x80]), 0x22, 0x7d]),
    }),
    () => ({
      base: agent,
      method: 'POST',
      path: '/threads',
      headers: { 'content-type': pick(['text/plain', 'application/xml', '', 'json']) },
      body: '{}',
    }),
    () => ({ base: agent, method: 'GET', path: '/threads/search', headers: { 'x-padding': 'h'.repeat(20_000) } }),
    () => ({
      base: pick([agent, control]),
      method: pick(['GET', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE']),
      path: `/${text(1 + Math.floor(random() * 40)).replace(/[^A-Za-z0-9/._-]/g, '')}`,
    }),
    () => ({
      base: agent,
      method: 'POST',
      path: '/threads',
      headers: json,
      body: `{"metadata": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    }),
    () => ({
      base: control,
      method: 'GET',
      path: `/v2/deployments?limit=${pick(['0x10', '1e1', '%2B5', '5.0', '1E400'])}&offset=${pick(['-1', '18446744073709551616', 'x'])}`,
      headers: key,
    }),
    () => ({
      base: control,
      method: 'POST',
      path: '/v2/deployments',
      headers: { ...json, ...key },
      body: JSON.stringify({ name: text(80), source: pick(['git_host', 'nope']), secrets: [{ name: '1bad', value: text(20) }] }),
    }),
    () => ({
      base: agent,
      method: 'GET',
      path: `/threads/${pick(['not-a-uuid', '%FF', randomUUID().toUpperCase().replace('-', '_')])}/state`,
    }),
    () => ({
      base: agent,
      method: 'POST',
      path: '/threads',
      headers: json,
      body: JSON.stringify({
        supersteps: [{ updates: [{ as_node: '', values: { messages: [{ type: 'robot' }] } }] }],
        metadata: { x: text(50) },
      }),
    }),
  ];
  for (let i = 0; i < MALFORMED; i++) {
    // A few bodies over the 10 MiB limit, as many as a random 20,000 met.
    if (i % 3000 === 1500)
      yield {
        base: agent,
        method: 'POST',
        path: '/threads',
        headers: json,
        body: `{"metadata": {"blob": "${'x'.repeat(11 * 1024 * 1024)}"}}`,
      };
    else yield pick(kinds)();
  }
}

/** @param {Targets} targets */
async function sendMalformed(targets) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: MALFORMED_CONCURRENCY });
  /** @type {Record<string, number>} */
  const statuses = {};
  const requests = malformedRequests(targets);
  const worker = async () => {
    for (let next = requests.next(); !next.done; next = requests.next()) {
      const status = await send(agent, next.value);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: MALFORMED_CONCURRENCY }, worker));
  agent.destroy();
  return statuses;
}

/** @param {Targets} targets */
async function mixedLoad(targets) {
  const random = rng(7);
  /** @type {string[]} */
  const threadIds = [];
  for (let i = 0; i < 50; i++) {
    const answer = await fetch(`${targets.agentServer}/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { user: `u${i % 10}` }, supersteps: [{ updates: [{ as_node: '__input__', values: { n: i } }] }] }),
    });
    threadIds.push(/** @type {{thread_id: string}} */ (await answer.json()).thread_id);
  }
  const someThread = () => threadIds[Math.floor(random() * threadIds.length)];
  const agentRequests = [
    {
      method: 'POST',
      path: '/threads',
      body: () =>
        JSON.stringify({
          metadata: { user: `u${Math.floor(random() * 10)}` },
          supersteps: [{ updates: [{ as_node: '__input__', values: { messages: [{ type: 'human', content: 'hello' }] } }] }],
        }),
    },
    {
      method: 'POST',
      path: '/threads/search',
      body: () => JSON.stringify({ metadata: { user: `u${Math.floor(random() * 10)}` }, limit: 10 }),
    },
    { method: 'GET', path: () => `/threads/${someThread()}/state` },
    { method: 'POST', path: () => `/threads/${someThread()}/history`, body: () => '{"limit": 5}' },
    { method: 'GET', path: () => `/threads/${someThread()}` },
  ];
  const controlRequests = [
    { method: 'GET', path: () => '/v2/deployments?limit=20' },
    {
      method: 'POST',
      path: '/v2/deployments',
      body: () =>
        JSON.stringify({
          name: `d-${randomUUID()}`,
          source: 'external_container',
          source_revision_config: { image_uri: 'registry.example/a:1' },
          secrets: [{ name: 'KEY', value: 'v' }],
        }),
    },
  ];
  /** @type {Record<string, number>} */
  const statuses = {};
  let requests = 0;
  const run = (
    /** @type {string} */ url,
    /** @type {number} */ connections,
    /** @type {any[]} */ kinds,
    /** @type {Record<string, string>} */ headers,
  ) => {
    const instance = autocannon({
      url,
      connections,
      duration: MIXED_SECONDS,
      requests: [
        {
          // Fresh headers for every request: autocannon adds the previous body's Content-Length
          // to the headers it is handed, which would leave a GET after a POST waiting for a body.
          setupRequest: (/** @type {Record<string, unknown>} */ req) => {
            const kind = kinds[Math.floor(random() * kinds.length)];
            const target = typeof kind.path === 'function' ? kind.path() : kind.path;
            return kind.body
              ? {
                  ...req,
                  method: kind.method,
                  path: target,
                  headers: { ...headers, 'content-type': 'application/json' },
                  body: kind.body(),
                }
              : { ...req, method: kind.method, path: target, headers: { ...headers }, body: undefined };
          },
        },
      ],
    });
    instance.on('response', (_client, statusCode) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      requests++;
    });
    return instance;
  };
  await Promise.all([
    run(targets.agentServer, CONNECTIONS.agentServer, agentRequests, {}),
    run(targets.controlPlane, CONNECTIONS.controlPlane, controlRequests, { 'x-api-key': targets.apiKey }),
  ]);
  return { statuses, requests };
}
