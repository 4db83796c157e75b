// `node group-leader.mjs <command> [args...]`: runs a command inside a process group this process
// leads, and ends the whole group when the process that started it goes away. The caller spawns
// it detached (a group of its own), with stdin a pipe from the caller: when the caller dies, even
// by SIGKILL (a test runner aborted mid-suite, before any afterAll could stop the server), the
// pipe closes and the group goes with it, instead of a LangGraph dev server, its tsx and its
// esbuild holding their port and CPU until someone kills them by hand.
//
// A stop from the caller (SIGTERM to the group) reaches the command directly; this process waits
// for the command to exit and exits as it did.
import { spawn } from 'node:child_process';

/** How long the group has to stop after SIGTERM before it is killed. */
const GRACE_MS = 5_000;

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: node group-leader.mjs <command> [args...]');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on('error', (error) => {
  console.error(`group-leader: ${command}: ${error.message}`);
  process.exit(1);
});
// The group's SIGTERM is for the command: this process outlives it to report its exit.
process.on('SIGTERM', () => {});

function endGroup() {
  try {
    process.kill(-process.pid, 'SIGTERM');
  } catch {
    // the group is gone
  }
  setTimeout(() => process.kill(-process.pid, 'SIGKILL'), GRACE_MS).unref();
}
process.stdin.on('end', endGroup);
process.stdin.on('error', endGroup);
process.stdin.resume();
