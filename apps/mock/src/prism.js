// Starts and stops one Prism mock server for one API. Shared by the `npm run mock` launcher,
// the contract tests' globalSetup and the benchmark, so all three run Prism the same way:
// from its absolute entry (not npx), with --errors so that an example violating its schema
// fails loudly instead of being served.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** Absolute path of the Prism CLI entry, resolved from the installed package. */
export function prismEntry() {
  const manifestPath = require.resolve('@stoplight/prism-cli/package.json');
  const bin = require(manifestPath).bin;
  return path.resolve(path.dirname(manifestPath), typeof bin === 'string' ? bin : bin.prism);
}

/**
 * @typedef {object} PrismServer
 * @property {string} url base URL, such as http://127.0.0.1:4010
 * @property {number} port
 * @property {import('node:child_process').ChildProcess} child
 * @property {() => Promise<void>} stop sends SIGTERM and waits for the exit (SIGKILL after 5 s)
 */

/**
 * Starts Prism on `specPath` and resolves once it accepts connections. Prism reads and
 * dereferences the whole spec first: a few seconds alone, but over 30 s on a loaded 2-core
 * machine with the agent server's spec, hence the 90 s default.
 * @param {{specPath: string, port: number, host?: string, verbose?: string, timeoutMs?: number, stdio?: 'inherit' | 'pipe'}} options
 * @returns {Promise<PrismServer>}
 */
export async function startPrism({ specPath, port, host = '127.0.0.1', verbose = 'error', timeoutMs = 90_000, stdio = 'pipe' }) {
  if (await isPortInUse(port, host)) {
    throw new Error(`port ${port} on ${host} is already in use; choose another port`);
  }
  const args = [prismEntry(), 'mock', specPath, '--port', String(port), '--host', host, '--errors', '--verboseLevel', verbose];
  const child = spawn(process.execPath, args, { stdio: ['ignore', stdio, stdio] });
  let output = '';
  if (stdio === 'pipe') {
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const early = await Promise.race([exited, delay(100).then(() => null)]);
    if (early) {
      throw new Error(`Prism exited before listening (${JSON.stringify(early)}) for ${specPath}:\n${output}`);
    }
    if (await isPortInUse(port, host)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Prism did not listen on ${host}:${port} within ${timeoutMs} ms:\n${output}`);
    }
  }

  return {
    url: `http://${host}:${port}`,
    port,
    child,
    stop: () => stopChild(child, exited),
  };
}

/**
 * Stops a child process: SIGTERM, then SIGKILL if it has not exited within 5 s. `exited` is a
 * promise of its exit, made when it was spawned (a late `once('exit')` could miss it).
 * @param {import('node:child_process').ChildProcess} child
 * @param {Promise<unknown>} exited
 */
export async function stopChild(child, exited) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}

/**
 * A port free on `host` for Prism to listen on behind the front: the OS picks it. (The mock is
 * published, so it cannot use the repository toolkit's freePort.)
 * @param {string} host
 * @returns {Promise<number>}
 */
export function privatePort(host) {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, host, () => {
      const { port } = /** @type {net.AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/** @param {number} ms */
function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** @param {number} port @param {string} host @returns {Promise<boolean>} */
function isPortInUse(port, host) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
