// Start-up benchmark: how long until the emulator answers, in process and as a process.
//   - import: `import('@agentplane/emulator')` in a fresh Node process (module loading only);
//   - createEmulator(): both APIs in process on an in-memory database, ready to answer (median of
//     many, each a fresh emulator in the same process, the first one shown apart);
//   - startEmulator(): the same on two TCP ports;
//   - the CLI (`agentplane-emulator --db :memory:`), from spawn to its `ready` line;
//   - bare Node (`node -e ''`), from spawn to exit, in the same run: the floor the CLI cannot go
//     below on this machine at this moment.
// Targets: in process ≤ 50 ms median, the process ≤ 200 ms from spawn to ready.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { percentile } from './http-load.js';

export const title = 'Emulator start-up';

const IN_PROCESS_RUNS = 31;
const PROCESS_RUNS = 15;
const BIN = fileURLToPath(new URL('../../emulator/bin/agentplane-emulator.js', import.meta.url));

/** Measured in a fresh process: the import, then fresh emulators one after another. */
const IN_PROCESS_SCRIPT = `
const started = performance.now();
const { createEmulator, startEmulator } = await import('@agentplane/emulator');
const importMs = performance.now() - started;
const created = [];
for (let i = 0; i < ${IN_PROCESS_RUNS}; i++) {
  const t = performance.now();
  const emulator = createEmulator();
  // Ready means answering: one request through each API.
  await emulator.agentServer.fetch(emulator.agentServer.url + '/threads', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  await emulator.controlPlane.fetch(emulator.controlPlane.url + '/v2/deployments', { headers: { 'x-api-key': emulator.defaultApiKey } });
  created.push(performance.now() - t);
  emulator.close();
}
const listening = [];
for (let i = 0; i < ${IN_PROCESS_RUNS}; i++) {
  const t = performance.now();
  const emulator = await startEmulator({ db: ':memory:', controlPlanePort: 0, agentServerPort: 0 });
  listening.push(performance.now() - t);
  await emulator.close();
}
process.stdout.write(JSON.stringify({ importMs, created, listening }));
`;

export async function run() {
  const inProcess = JSON.parse(await output(process.execPath, ['--input-type=module', '-e', IN_PROCESS_SCRIPT]));
  /** @type {number[]} */
  const cli = [];
  /** @type {number[]} */
  const bare = [];
  // Interleaved, so that other work on the machine hits both alike.
  for (let i = 0; i < PROCESS_RUNS; i++) {
    bare.push(await timeUntil(process.execPath, ['-e', ''], () => false));
    cli.push(
      await timeUntil(process.execPath, [BIN, '--db', ':memory:', '--control-plane-port', '0', '--agent-server-port', '0'], (text) =>
        text.includes(' ready: '),
      ),
    );
  }
  const createdMedian = percentile(inProcess.created, 50);
  const cliMedian = percentile(cli, 50);
  const bareMedian = percentile(bare, 50);
  const rows = [
    ['import @agentplane/emulator (fresh process)', inProcess.importMs, ''],
    [
      `createEmulator(), answering both APIs (median of ${IN_PROCESS_RUNS})`,
      createdMedian,
      `target ≤ 50 ms: ${createdMedian <= 50 ? 'met' : 'MISSED'}; first one ${fmt(inProcess.created[0])}`,
    ],
    [`startEmulator() on two ports (median of ${IN_PROCESS_RUNS})`, percentile(inProcess.listening, 50), ''],
    [
      `agentplane-emulator, spawn to ready (median of ${PROCESS_RUNS})`,
      cliMedian,
      `target ≤ 200 ms: ${cliMedian <= 200 ? 'met' : 'MISSED'}`,
    ],
    [
      `bare node -e '', spawn to exit (median of ${PROCESS_RUNS}), same rounds`,
      bareMedian,
      `the CLI is ${fmt(cliMedian - bareMedian)} above it`,
    ],
  ];
  const width = Math.max(...rows.map((r) => String(r[0]).length));
  for (const [what, ms, note] of rows) console.log(`${String(what).padEnd(width)}  ${fmt(Number(ms)).padStart(9)}  ${note}`);
}

/** @param {number} ms */
function fmt(ms) {
  return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

/**
 * A command's stdout, once it exits with 0.
 * @param {string} command @param {string[]} args
 * @returns {Promise<string>}
 */
function output(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
    });
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`${command} exited with ${code}`))));
  });
}

/**
 * Milliseconds from spawn until `ready(stdout)` holds (the process is then killed) or it exits.
 * @param {string} command @param {string[]} args @param {(text: string) => boolean} ready
 * @returns {Promise<number>}
 */
function timeUntil(command, args, ready) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    let elapsed = 0;
    child.stdout.on('data', (chunk) => {
      text += chunk;
      if (!elapsed && ready(text)) {
        elapsed = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.once('error', reject);
    child.once('exit', () => resolve(elapsed || performance.now() - started));
  });
}
