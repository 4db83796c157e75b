// `agentplane-mock` (and `npm run mock` in the repository): one Prism mock per API, behind the
// validation translator, serving the bundled specs the client packages publish. Stops both on
// SIGINT, SIGTERM, SIGHUP (its terminal closed) or when the process that started it goes away:
// under `npx` a SIGTERM kills npm and its `sh -c` at once and passes nothing on, which left the
// mock and its two Prism processes running, holding their ports. Exit codes: 0 after a clean
// stop, 1 when a mock cannot start or Prism stops on its own, 2 for a bad flag.
import { parseArgs } from 'node:util';
import { startMock } from './mock-server.js';
import { MOCKS } from './mocks.js';

const ORPHAN_CHECK_MS = 250;

const USAGE = `Usage: agentplane-mock [options]

Serves a stateless Prism mock of each agentplane API from its bundled spec, answering from the
spec's named examples (Prefer: code=404, Prefer: example=<name>) and refusing invalid requests
with a 422 naming the fields at fault. It writes no files.

Options:
  --control-plane-port <n>  default $AGENTPLANE_CONTROL_PLANE_MOCK_PORT or 4010
  --agent-server-port <n>   default $AGENTPLANE_AGENT_SERVER_MOCK_PORT or 4011
  --host <host>             default $AGENTPLANE_MOCK_HOST or 127.0.0.1
  -h, --help                show this help

Prints each mock's URL, then "Mocks ready"; Ctrl-C (SIGINT), SIGTERM, SIGHUP or the end of the
process that started it stops both.
Exit codes: 0 after a clean stop, 1 when a mock cannot start (a port in use) or Prism stops on
its own, 2 for a bad flag.
`;

/**
 * Runs the mocks until a reason to stop (a signal, the starting process gone); resolves with the exit code.
 * @param {string[]} argv the arguments after the command
 * @returns {Promise<number>}
 */
export async function main(argv) {
  let flags;
  try {
    flags = parseArgs({
      args: argv,
      options: {
        'control-plane-port': { type: 'string' },
        'agent-server-port': { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`agentplane-mock: ${/** @type {Error} */ (error).message}\n\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const host = flags.host ?? process.env.AGENTPLANE_MOCK_HOST ?? '127.0.0.1';
  /** @type {Map<string, number>} */
  const ports = new Map();
  for (const mock of MOCKS) {
    const given = mock.portFlag === 'control-plane-port' ? flags['control-plane-port'] : flags['agent-server-port'];
    const value = given ?? process.env[mock.portEnv] ?? String(mock.defaultPort);
    const port = Number(value);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      process.stderr.write(`agentplane-mock: --${mock.portFlag} must be a port number (1-65535), got "${value}"\n`);
      return 2;
    }
    ports.set(mock.api, port);
  }

  /** @type {import('./mock-server.js').MockServer[]} */
  const servers = [];
  /** @type {(code: number) => void} */
  let finish = () => {};
  const finished = new Promise((resolve) => (finish = resolve));
  let stopping = false;
  /** @param {number} exitCode */
  const stopAll = async (exitCode) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(servers.map((s) => s.stop()));
    finish(exitCode);
  };
  // Every signal stays handled once a stop began: a second Ctrl-C then waits for the first.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));
  // An orphan is seen by its parent process ID changing.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid === parent) return;
    process.stderr.write(`agentplane-mock: the process that started it (pid ${parent}) is gone; stopping.\n`);
    void stopAll(0);
  }, ORPHAN_CHECK_MS);
  orphanWatch.unref();
  void finished.then(() => clearInterval(orphanWatch));

  try {
    for (const mock of MOCKS) {
      const server = await startMock({
        api: mock.api,
        port: ports.get(mock.api) ?? mock.defaultPort,
        host,
        verbose: 'warn',
        stdio: 'inherit',
      });
      if (stopping) {
        // A signal came while this one started: the others are stopping already.
        await server.stop();
        break;
      }
      servers.push(server);
      server.child.once('exit', (code, signal) => {
        if (!stopping) {
          process.stderr.write(`agentplane-mock: Prism for ${mock.api} exited unexpectedly (${signal ?? code}); stopping.\n`);
          void stopAll(1);
        }
      });
      process.stdout.write(`${mock.title} mock: ${server.url}\n`);
    }
    process.stdout.write('Mocks ready. Ctrl-C stops them.\n');
  } catch (error) {
    process.stderr.write(`agentplane-mock: ${error instanceof Error ? error.message : String(error)}\n`);
    await stopAll(1);
  }
  return finished;
}
