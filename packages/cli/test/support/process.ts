// The built `agentplane` bin as a process (bin/agentplane.js, which loads dist/): what a pipeline
// runs. Its output is collected as it comes, so a test can act on progress (send SIGINT) or wait
// for the exit.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/agentplane.js');

export interface Proc {
  code: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  kill: (signal: NodeJS.Signals) => void;
}

/** Runs the bin with `args` and only PATH and `env` in its environment. */
export function agentplane(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return {
    code: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    stdout: () => stdout,
    stderr: () => stderr,
    kill: (signal) => child.kill(signal),
  };
}

/** Runs the bin to its end. */
export async function agentplaneDone(args: string[], env: Record<string, string> = {}) {
  const proc = agentplane(args, env);
  const code = await proc.code;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}
