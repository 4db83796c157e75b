// The reference LangGraph server runs in a process group whose leader (group-leader.mjs) ends the
// group when the process that started it dies: an aborted test run (turbo kills vitest, no
// afterAll runs) must not leave dev servers holding ports and CPU. Checked with a long-lived
// command in place of the server.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LEADER = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../reference-servers/langgraph-js/group-leader.mjs');
/** A command that prints its process ID and runs until killed. */
const LONG_LIVED = ['-e', "console.log('pid', process.pid); setInterval(() => {}, 1000);"];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(pid: number, withinMs = 15_000): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; ) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !alive(pid);
}

/** The `pid N` line the long-lived command prints to `child`'s stdout. */
function printedPid(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = /pid (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`exited before printing a pid: ${out}`)));
  });
}

describe("the reference server's group leader", () => {
  it('ends its group when the process that started it is killed', async () => {
    // The starter spawns the leader as server.mjs does (detached, stdin a pipe from it), then is SIGKILLed.
    const starter = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').spawn(process.execPath, ${JSON.stringify([LEADER, process.execPath, ...LONG_LIVED])}, { detached: true, stdio: ['pipe', 'inherit', 'inherit'] }); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const commandPid = await printedPid(starter);
    try {
      expect(alive(commandPid)).toBe(true);
      starter.kill('SIGKILL');
      expect(await gone(commandPid)).toBe(true);
    } finally {
      if (alive(commandPid)) process.kill(commandPid, 'SIGKILL');
    }
  });

  it('stops with the command on a SIGTERM to its group, exiting as the command did', async () => {
    const leader = spawn(process.execPath, [LEADER, process.execPath, ...LONG_LIVED], {
      detached: true,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => leader.once('exit', (code) => resolve(code)));
    const commandPid = await printedPid(leader);
    try {
      process.kill(-leader.pid!, 'SIGTERM');
      // A command killed by a signal: the leader exits 1.
      expect(await exited).toBe(1);
      expect(await gone(commandPid)).toBe(true);
    } finally {
      if (alive(commandPid)) process.kill(commandPid, 'SIGKILL');
    }
  });
});
