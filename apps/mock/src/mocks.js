// Which APIs get a mock, on which default ports, from which bundle: the bundled spec that the
// API's client package publishes (`@agentplane/<api>/openapi.json`), so the mock serves the
// contract of the client version installed beside it.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const MOCKS = [
  {
    api: 'control-plane',
    title: 'Control plane',
    defaultPort: 4010,
    portFlag: 'control-plane-port',
    portEnv: 'AGENTPLANE_CONTROL_PLANE_MOCK_PORT',
  },
  {
    api: 'agent-server',
    title: 'Agent server',
    defaultPort: 4011,
    portFlag: 'agent-server-port',
    portEnv: 'AGENTPLANE_AGENT_SERVER_MOCK_PORT',
  },
];

/** Each API's boolean query parameters, found by the build (scripts/write-query-booleans.js). */
export const QUERY_BOOLEANS_FILE = new URL('../dist/query-booleans.json', import.meta.url);

/**
 * The bundled JSON spec Prism serves; fails with a hint when it has not been built.
 * @param {string} api
 */
export function mockSpecPath(api) {
  try {
    return require.resolve(`@agentplane/${api}/openapi.json`);
  } catch {
    throw new Error(`@agentplane/${api}/openapi.json is missing: in the agentplane repository, run \`npm run build\` first`);
  }
}

/**
 * The query parameters of an API whose `1` and `0` the mock reads as `true` and `false`.
 * @param {string} api
 * @returns {Set<string>}
 */
export function queryBooleans(api) {
  if (!fs.existsSync(QUERY_BOOLEANS_FILE)) {
    throw new Error(`${QUERY_BOOLEANS_FILE.pathname} is missing: in the agentplane repository, run \`npm run build\` first`);
  }
  const booleans = JSON.parse(fs.readFileSync(QUERY_BOOLEANS_FILE, 'utf8'))[api];
  if (!Array.isArray(booleans)) throw new Error(`${QUERY_BOOLEANS_FILE.pathname} names no query parameters of ${api}`);
  return new Set(booleans);
}

/**
 * The media types besides `application/json` whose bodies the API reads as JSON: its bundled
 * spec's `x-json-media-types` (the agent server's `text/plain`).
 * @param {string} api
 * @returns {string[]}
 */
export function jsonMediaTypes(api) {
  return JSON.parse(fs.readFileSync(mockSpecPath(api), 'utf8'))['x-json-media-types'] ?? [];
}
