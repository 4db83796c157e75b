// The emulator as the benchmarks run it: the CLI (`agentplane-emulator`) in its own process, and
// what Linux's /proc says about that process (CPU time, resident memory).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild } from '@agentplane/mock/prism';
import { REPO_ROOT } from '@agentplane/openapi-toolkit';

export const EMULATOR_DIR = path.join(REPO_ROOT, 'apps', 'emulator');
const EMULATOR_BIN = path.join(EMULATOR_DIR, 'bin', 'agentplane-emulator.js');
const CLOCK_TICKS = 100; // USER_HZ of /proc/<pid>/stat: 100 on every Linux architecture in use

const HEAP_PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'heap-probe.cjs');

/**
 * Starts the emulator CLI on `db` with free ports; resolves once it prints its `ready` line.
 * `production` turns response validation off (NODE_ENV=production); otherwise it runs as
 * `npm start` runs it, checking every answer against the spec. `heapProbe` preloads
 * heap-probe.cjs, so that `heapAfterGc()` can read the heap the process holds. `bin`: another
 * checkout's CLI (a baseline to compare with), this one's by default.
 * @param {{db: string, production: boolean, args?: string[], heapProbe?: boolean, bin?: string}} options
 */
export async function startEmulatorProcess({ db, production, args = [], heapProbe = false, bin = EMULATOR_BIN }) {
  const env = { ...process.env };
  if (production) env.NODE_ENV = 'production';
  else delete env.NODE_ENV;
  const probeFile = heapProbe ? path.join(os.tmpdir(), `agentplane-heap-${process.pid}-${crypto.randomUUID()}.jsonl`) : undefined;
  if (probeFile) env.AGENTPLANE_HEAP_PROBE = probeFile;
  const nodeArgs = probeFile ? ['--expose-gc', '--require', HEAP_PROBE] : [];
  const argv = [...nodeArgs, bin, '--db', db, '--agent-server-port', '0', '--control-plane-port', '0', ...args];
  const child = spawn(process.execPath, argv, { cwd: path.dirname(path.dirname(bin)), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stderrLines = 0;
  child.stderr.on('data', (chunk) => {
    output += chunk;
    stderrLines += String(chunk).split('\n').length - 1;
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  /** @type {{controlPlane: string, agentServer: string}} */
  const urls = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulator did not print "ready" within 30 s:\n${output}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /ready: control plane (http:\/\/\S+) · agent server (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ controlPlane: match[1], agentServer: match[2] });
      }
    });
    exited.then((status) => reject(new Error(`the emulator exited before it was ready (${JSON.stringify(status)}):\n${output}`)));
  });
  return {
    /** The agent server's URL. */
    url: urls.agentServer,
    controlPlaneUrl: urls.controlPlane,
    /** Everything the process printed so far (its default API key is in it). */
    output: () => output,
    pid: /** @type {number} */ (child.pid),
    /** Lines on stderr so far: the emulator reports contract violations and internal errors there. */
    stderrLines: () => stderrLines,
    /**
     * The heap still used after a full collection, and memory outside it (SQLite's, buffers), in MB;
     * undefined without `heapProbe`.
     */
    heapAfterGc: async () => (probeFile ? readHeapProbe(/** @type {number} */ (child.pid), probeFile) : undefined),
    stop: async () => {
      await stopChild(child, exited);
      if (probeFile) fs.rmSync(probeFile, { force: true });
    },
  };
}

/**
 * Asks the probe of process `pid` for its heap (SIGUSR2) and reads the line it appends to `file`.
 * @param {number} pid @param {string} file
 * @returns {Promise<{heapUsed: number, external: number, rss: number}>}
 */
async function readHeapProbe(pid, file) {
  const linesBefore = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    if (lines.length > linesBefore) {
      const { heapUsed, external, rss } = JSON.parse(/** @type {string} */ (lines.at(-1)));
      return { heapUsed: heapUsed / 2 ** 20, external: external / 2 ** 20, rss: rss / 2 ** 20 };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the heap probe of process ${pid} did not answer within 10 s`);
}

/**
 * The fields of /proc/<pid>/stat (Linux) after the command name: [0] the state (R running or
 * runnable, S sleeping, T stopped, ...), [2] the process group, [11] and [12] user and system
 * CPU ticks. Undefined once the process is gone. The command name is in parentheses and may hold
 * any character, so the fields start after its last closing parenthesis.
 * @param {number} pid
 * @returns {string[] | undefined}
 */
export function procStat(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (Linux).
 * @param {number} pid
 */
export function cpuSeconds(pid) {
  const fields = procStat(pid);
  if (!fields) throw new Error(`no process ${pid}`);
  return cpuSecondsIn(fields);
}

/**
 * The CPU seconds (user + system) in a process's stat fields, as `procStat` gives them.
 * @param {string[]} fields
 */
export function cpuSecondsIn(fields) {
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * VmRSS and VmHWM (peak) of a process, in MB (Linux /proc).
 * @param {number} pid
 */
export function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (/** @type {string} */ field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rss: mb('VmRSS'), hwm: mb('VmHWM') };
}
