// Isolation stops every other server of a comparison during a round, lets the measured one run,
// waits until it is quiet, and always lets every server run again, interrupted or not. A mistake
// here would not fail a benchmark: it would skew its figures, or leave servers stopped.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { procStat } from '../src/emulator-process.js';
import { isolate } from '../src/isolation.js';

/** @type {{child: import('node:child_process').ChildProcess, detached: boolean}[]} */
const children = [];
afterEach(() => {
  for (const { child, detached } of children.splice(0)) {
    // A detached child leads a group: its own children go with it.
    const target = detached ? -(/** @type {number} */ (child.pid)) : /** @type {number} */ (child.pid);
    for (const signal of /** @type {const} */ (['SIGCONT', 'SIGKILL'])) {
      try {
        process.kill(target, signal);
      } catch {
        // gone already
      }
    }
  }
});

/**
 * A Node process running `source`; detached ones lead a process group of their own.
 * @param {string} source
 * @returns {import('node:child_process').ChildProcessByStdio<null, import('node:stream').Readable, null> & {pid: number}}
 */
function start(source, { detached = false } = {}) {
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'], detached });
  children.push({ child, detached });
  return /** @type {any} */ (child);
}

/**
 * Resolves once the child has printed `line`.
 * @param {ReturnType<typeof start>} child
 * @param {string} line
 * @returns {Promise<string>}
 */
function printed(child, line) {
  return new Promise((resolve) => {
    let output = '';
    child.stdout.on('data', (/** @type {Buffer} */ chunk) => {
      output += chunk;
      if (output.includes(line)) resolve(output);
    });
  });
}

/** Whether the process is stopped (state T; S sleeping and R running are not). */
const stopped = (/** @type {number | undefined} */ pid) => procStat(/** @type {number} */ (pid))?.[0] === 'T';

const IDLE = "setInterval(() => {}, 1000); console.log('up');";

describe('isolating the servers of a comparison', () => {
  it('stops every other server, lets the measured one run, and resumes them all', async () => {
    const [a, b, c] = [start(IDLE), start(IDLE), start(IDLE)];
    await Promise.all([a, b, c].map((child) => printed(child, 'up')));
    const machine = isolate([a.pid, b.pid]);
    const withBystander = isolate([a.pid, b.pid, c.pid]);
    try {
      await machine.alone(a.pid);
      expect([stopped(a.pid), stopped(b.pid), stopped(c.pid)]).toEqual([false, true, false]);
      await withBystander.alone(b.pid);
      expect([stopped(a.pid), stopped(b.pid), stopped(c.pid)]).toEqual([true, false, true]);
    } finally {
      machine.resumeAll();
      withBystander.resumeAll();
    }
    expect([stopped(a.pid), stopped(b.pid), stopped(c.pid)]).toEqual([false, false, false]);
  });

  it('stops the whole process group of a server that leads one', async () => {
    // A launcher that starts the real server, as `langgraphjs dev` does.
    const launcher = start(
      `const child = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(IDLE)}], { stdio: ['ignore', 'pipe', 'inherit'] });
       child.stdout.on('data', () => console.log('server ' + child.pid));
       setInterval(() => {}, 1000);`,
      { detached: true },
    );
    const server = Number(/server (\d+)/.exec(await printed(launcher, 'server '))?.[1]);
    const other = start(IDLE);
    await printed(other, 'up');
    const machine = isolate([launcher.pid, other.pid]);
    try {
      await machine.alone(other.pid);
      expect([stopped(launcher.pid), stopped(server), stopped(other.pid)]).toEqual([true, true, false]);
    } finally {
      machine.resumeAll();
    }
    expect([stopped(launcher.pid), stopped(server)]).toEqual([false, false]);
  });

  it('starts a round only once the measured server is quiet', async () => {
    // Busy for half a second once it is up (as a server writing its store after a round), then it
    // leaves a mark and sleeps. Half a second of wall time: on a loaded machine it may get little
    // CPU meanwhile, and must still count as busy.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-isolation-'));
    const mark = path.join(dir, 'idle');
    const busy = start(
      `console.log('up'); const end = Date.now() + 500; while (Date.now() < end);
       require('node:fs').writeFileSync(${JSON.stringify(mark)}, ''); setInterval(() => {}, 1000);`,
    );
    await printed(busy, 'up');
    const machine = isolate([busy.pid]);
    try {
      await machine.alone(busy.pid);
      expect(fs.existsSync(mark)).toBe(true);
    } finally {
      machine.resumeAll();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets the stopped servers run again when the benchmark is interrupted', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-isolation-'));
    const program = path.join(dir, 'interrupted.mjs');
    fs.writeFileSync(
      program,
      `import { spawn } from 'node:child_process';
       import { isolate } from ${JSON.stringify(new URL('../src/isolation.js', import.meta.url).href)};
       const server = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
       server.unref();
       await new Promise((resolve) => setTimeout(resolve, 200));
       console.log(server.pid);
       await isolate([server.pid, process.pid]).alone(process.pid);
       process.kill(process.pid, 'SIGTERM');
       await new Promise((resolve) => setTimeout(resolve, 5000));
       console.log('not interrupted');`,
    );
    const run = spawnSync(process.execPath, [program], { encoding: 'utf8', timeout: 20_000 });
    fs.rmSync(dir, { recursive: true, force: true });
    const server = Number(run.stdout.trim().split('\n')[0]);
    try {
      expect(run.signal).toBe('SIGTERM'); // it went as the signal makes it go
      expect(run.stdout).not.toContain('not interrupted');
      expect(stopped(server)).toBe(false);
    } finally {
      process.kill(server, 'SIGKILL');
    }
  });
});
