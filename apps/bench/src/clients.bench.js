// Client benchmark: per-request overhead of each typed client against a raw `fetch` on the
// same local server, in the same process (ratio of medians, rounds interleaved so machine noise
// hits all three alike), and the min+gzip size of each package entry with its dependencies
// bundled, next to openapi-fetch alone.
//
// AGENTPLANE_BENCH_BREAKDOWN=1 adds, after the table (which it does not change), a second
// interleaved measurement that builds the control-plane client up layer by layer: openapi-fetch's
// own per-call work (with a trivial Request stand-in and fixed path and query strings), then the
// clients' OutgoingRequest and serializers, the auth middleware, the retrying fetch. It says where
// the overhead against raw fetch goes.
import http from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { build } from 'esbuild';
import { percentile } from './http-load.js';

export const title = 'Clients: request overhead and bundle size';

const ROUNDS = 30;
const REQUESTS_PER_ROUND = 300;
// Before the rounds: every contender runs this long (ms) so that V8 has optimised fetch's and the
// clients' paths; 200 requests each left the first rounds of the later contenders slower.
const WARMUP_MS = 1000;
const POOL = {
  name: 'python-pool',
  template_name: 'python-3-12',
  replicas: 2,
  id: '6c5b4a39-2817-4f06-9e5d-4c3b2a190f8e',
  created_at: '2026-11-01T12:00:00Z',
  updated_at: '2026-11-12T16:42:09Z',
};
const THREAD = {
  thread_id: '8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f',
  created_at: '2026-11-19T14:02:11.204Z',
  updated_at: '2026-11-19T14:02:11.217Z',
  metadata: { graph_id: 'support' },
  status: 'idle',
  config: {},
};

export async function run() {
  const { createControlPlaneClient } = await import('@agentplane/control-plane');
  const { createAgentServerClient } = await import('@agentplane/agent-server');

  const poolBody = JSON.stringify(POOL);
  const threadBody = JSON.stringify(THREAD);
  const server = http.createServer((req, res) => {
    const body = req.url?.startsWith('/threads/') ? threadBody : poolBody;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;

  const { default: createClient } = await import('openapi-fetch');
  /** @type {import('openapi-fetch').Client<import('@agentplane/control-plane').paths>} */
  const bareOpenapiFetch = createClient({ baseUrl: base, headers: { 'X-Api-Key': 'bench' } });
  const controlPlane = createControlPlaneClient({ baseUrl: base, apiKey: 'bench' });
  const agentServer = createAgentServerClient({ baseUrl: base, apiKey: 'bench' });
  const contenders = {
    'raw fetch (GET pool)': async () => {
      const response = await fetch(`${base}/v2/sandboxes/pools/python-pool`, { headers: { 'X-Api-Key': 'bench' } });
      return response.json();
    },
    'raw fetch (GET thread)': async () => {
      const response = await fetch(`${base}/threads/${THREAD.thread_id}`, { headers: { 'X-Api-Key': 'bench' } });
      return response.json();
    },
    'openapi-fetch alone (GET pool)': () =>
      bareOpenapiFetch.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'python-pool' } } }),
    'control-plane client (getSandboxPool)': () =>
      controlPlane.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'python-pool' } } }),
    'agent-server client (getThread)': () => agentServer.GET('/threads/{thread_id}', { params: { path: { thread_id: THREAD.thread_id } } }),
  };

  const medians = await measure(contenders);

  /** @type {[string, number, string][]} */
  const rows = [
    ['raw fetch (GET pool)', medians['raw fetch (GET pool)'], ''],
    [
      'openapi-fetch alone (GET pool), reference',
      medians['openapi-fetch alone (GET pool)'],
      `ratio ${(medians['openapi-fetch alone (GET pool)'] / medians['raw fetch (GET pool)']).toFixed(3)}`,
    ],
    [
      'control-plane client (getSandboxPool)',
      medians['control-plane client (getSandboxPool)'],
      `ratio ${(medians['control-plane client (getSandboxPool)'] / medians['raw fetch (GET pool)']).toFixed(3)} (target ≤ 1.10)`,
    ],
    ['raw fetch (GET thread)', medians['raw fetch (GET thread)'], ''],
    [
      'agent-server client (getThread)',
      medians['agent-server client (getThread)'],
      `ratio ${(medians['agent-server client (getThread)'] / medians['raw fetch (GET thread)']).toFixed(3)} (target ≤ 1.10)`,
    ],
  ];
  console.log(`per-request latency, median of ${ROUNDS * REQUESTS_PER_ROUND} sequential requests each (interleaved rounds):`);
  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [name, ms, note] of rows) console.log(`  ${name.padEnd(width)}  ${(ms * 1000).toFixed(0).padStart(6)} µs  ${note}`);

  if (process.env.AGENTPLANE_BENCH_BREAKDOWN) await breakdown(base);
  server.close();

  console.log('\nmin+gzip size of each entry, dependencies bundled (esbuild --minify, gzip -9):');
  const resolve = (/** @type {string} */ name) => fileURLToPath(import.meta.resolve(name));
  const entries = {
    '@agentplane/control-plane': resolve('@agentplane/control-plane'),
    '@agentplane/agent-server': resolve('@agentplane/agent-server'),
    'openapi-fetch alone (reference)': createRequire(import.meta.url).resolve('openapi-fetch'),
  };
  for (const [name, entry] of Object.entries(entries)) {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'neutral',
      write: false,
      logLevel: 'silent',
    });
    const output = result.outputFiles?.[0];
    if (!output) throw new Error(`esbuild wrote nothing for ${name}`);
    const code = output.contents;
    const gzip = zlib.gzipSync(code, { level: 9 }).length;
    const target = name.startsWith('@agentplane') ? `(target ≤ 8 kB: ${gzip <= 8192 ? 'met' : 'MISSED'})` : '';
    console.log(
      `  ${name.padEnd(34)} ${(code.length / 1024).toFixed(1).padStart(6)} kB min  ${(gzip / 1024).toFixed(2).padStart(6)} kB min+gzip  ${target}`,
    );
  }
}

/**
 * Runs the contenders in interleaved rounds after a warm-up; answers each one's median per-request time, ms.
 * @template {string} Name
 * @param {Record<Name, () => Promise<unknown>>} contenders
 * @returns {Promise<Record<Name, number>>}
 */
async function measure(contenders) {
  /** @type {Record<string, number[]>} per-request times, ms */
  const samples = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  /** @type {[string, () => Promise<unknown>][]} */
  const entries = Object.entries(contenders);
  for (const [, fn] of entries) for (const until = performance.now() + WARMUP_MS; performance.now() < until; ) await fn();
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with another contender, so that none always runs right after the same one.
    const order = entries.map((_, i) => /** @type {[string, () => Promise<unknown>]} */ (entries[(i + round) % entries.length]));
    for (const [name, fn] of order) {
      for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
        const started = performance.now();
        await fn();
        samples[name]?.push(performance.now() - started);
      }
    }
  }
  return /** @type {Record<Name, number>} */ (Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, percentile(v, 50)])));
}

/**
 * The control-plane client's overhead, layer by layer (AGENTPLANE_BENCH_BREAKDOWN=1).
 * @param {string} base
 */
async function breakdown(base) {
  const { default: createClient } = await import('openapi-fetch');
  const { createApiClient } = await import('@agentplane/client-core/internal');
  const { createControlPlaneClient } = await import('@agentplane/control-plane');
  const url = `${base}/v2/sandboxes/pools/python-pool`;
  const params = { params: { path: { name: 'python-pool' } } };
  const isRetryable = (/** @type {{ method: string }} */ request) => request.method === 'GET';
  // openapi-fetch's own per-call work: a Request stand-in that only keeps what fetch needs.
  class TrivialRequest {
    constructor(/** @type {string} */ input, /** @type {RequestInit} */ init) {
      this.url = input;
      this.method = init.method;
      this.init = init;
    }
  }
  /** @type {import('openapi-fetch').Client<import('@agentplane/control-plane').paths>} */
  const engine = createClient({
    baseUrl: base,
    Request: /** @type {any} */ (TrivialRequest),
    fetch: (/** @type {any} */ request) => fetch(request.url, request.init),
    pathSerializer: () => url,
    querySerializer: () => '',
    headers: { 'X-Api-Key': 'bench' },
  });
  /** @type {import('@agentplane/control-plane').ControlPlaneClient} */
  const withRequest = createApiClient({ baseUrl: base, headers: { 'X-Api-Key': 'bench' }, retry: false }, { isRetryable });
  /** @type {import('@agentplane/control-plane').ControlPlaneClient} */
  const withAuth = createApiClient({ baseUrl: base, retry: false }, { isRetryable, credentials: { 'X-Api-Key': 'bench' } });
  const client = createControlPlaneClient({ baseUrl: base, apiKey: 'bench' });
  const layers = {
    'raw fetch (GET pool)': async () => (await fetch(url, { headers: { 'X-Api-Key': 'bench' } })).json(),
    'openapi-fetch, trivial Request, fixed path/query': () => engine.GET('/v2/sandboxes/pools/{name}', params),
    "+ OutgoingRequest and the clients' serializers": () => withRequest.GET('/v2/sandboxes/pools/{name}', params),
    '+ auth middleware (key no longer a base header)': () => withAuth.GET('/v2/sandboxes/pools/{name}', params),
    '+ retrying fetch = control-plane client': () => client.GET('/v2/sandboxes/pools/{name}', params),
  };
  const medians = await measure(layers);
  const raw = medians['raw fetch (GET pool)'];
  console.log(`\nbreakdown (AGENTPLANE_BENCH_BREAKDOWN), another interleaved run of the same size:`);
  const width = Math.max(...Object.keys(layers).map((k) => k.length));
  let previous = raw;
  for (const [name, ms] of Object.entries(medians)) {
    const note =
      name === 'raw fetch (GET pool)' ? '' : `ratio ${(ms / raw).toFixed(3)}  layer ${((ms - previous) * 1000).toFixed(1).padStart(5)} µs`;
    console.log(`  ${name.padEnd(width)}  ${(ms * 1000).toFixed(0).padStart(6)} µs  ${note}`);
    previous = ms;
  }
}
