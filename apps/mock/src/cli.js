#!/usr/bin/env node
// `npm run mock`: one Prism mock per API (behind the validation translator), serving the bundled
// specs of the client packages.
// Ports: --control-plane-port / AGENTPLANE_CONTROL_PLANE_MOCK_PORT (default 4010) and
// --agent-server-port / AGENTPLANE_AGENT_SERVER_MOCK_PORT (default 4011); --host /
// AGENTPLANE_MOCK_HOST (default 127.0.0.1). Stops both on SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { startMock } from './mock-server.js';
import { MOCKS } from './mocks.js';

const { values: flags } = parseArgs({
  options: {
    'control-plane-port': { type: 'string' },
    'agent-server-port': { type: 'string' },
    host: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (flags.help) {
  console.log(`Usage: node apps/mock/src/cli.js [--control-plane-port N] [--agent-server-port N] [--host H]

Serves a Prism mock of each API from its bundled spec (build first: npm run build).
  --control-plane-port  default $AGENTPLANE_CONTROL_PLANE_MOCK_PORT or 4010
  --agent-server-port   default $AGENTPLANE_AGENT_SERVER_MOCK_PORT or 4011
  --host                default $AGENTPLANE_MOCK_HOST or 127.0.0.1`);
  process.exit(0);
}

const host = flags.host ?? process.env.AGENTPLANE_MOCK_HOST ?? '127.0.0.1';
/** @type {import('./mock-server.js').MockServer[]} */
const servers = [];
let stopping = false;

/** @param {number} exitCode */
async function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  await Promise.all(servers.map((s) => s.stop()));
  process.exit(exitCode);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  for (const mock of MOCKS) {
    const given = mock.portFlag === 'control-plane-port' ? flags['control-plane-port'] : flags['agent-server-port'];
    const port = parsePort(given ?? process.env[mock.portEnv] ?? String(mock.defaultPort), mock.portFlag);
    const server = await startMock({ api: mock.api, port, host, verbose: 'warn', stdio: 'inherit' });
    servers.push(server);
    server.child.once('exit', (code, signal) => {
      if (!stopping) {
        console.error(`Prism for ${mock.api} exited unexpectedly (${signal ?? code}); stopping.`);
        void stopAll(1);
      }
    });
    console.log(`${mock.title} mock: ${server.url}`);
  }
  console.log('Mocks ready. Ctrl-C stops them.');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await stopAll(1);
}

/** @param {string} value @param {string} name */
function parsePort(value, name) {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`--${name} must be a port number (1-65535), got "${value}"`);
    process.exit(2);
  }
  return port;
}
