// The built emulator CLI as its own process on a database file: started, its URLs and API key read
// from its ready line, killed at will. The e2e tests of durability and of stream reliability use it.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/agentplane-emulator.js', import.meta.url));

export interface RunningCli {
  child: ChildProcess;
  agentServerUrl: string;
  controlPlaneUrl: string;
  apiKey: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The processes started and not yet exited. */
export const children = new Set<ChildProcess>();

export async function startCli(db: string, config?: string): Promise<RunningCli> {
  // No AGENTPLANE_EMULATOR_* from the environment: the flags alone decide.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AGENTPLANE_EMULATOR_')));
  const child = spawn(
    process.execPath,
    [
      BIN,
      '--db',
      db,
      '--control-plane-port',
      '0',
      '--agent-server-port',
      '0',
      '--revision-step-ms',
      '20',
      ...(config ? ['--config', config] : []),
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  const ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 20 s; stdout: ${stdout} stderr: ${stderr}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (/ready.*\n/.test(stdout)) {
        clearTimeout(timer);
        resolve(stdout);
      }
    });
    void exited.then(({ code, signal }) => reject(new Error(`exited (${code ?? signal}) before ready; stderr: ${stderr}`)));
  });
  const urls = /ready: control plane (http:\/\/\S+) · agent server (http:\/\/\S+)/.exec(ready);
  const apiKey = /uses API key (\S+)/.exec(ready)?.[1];
  if (!urls || !apiKey) throw new Error(`cannot read the URLs and the API key from: ${ready}`);
  return { child, controlPlaneUrl: urls[1]!, agentServerUrl: urls[2]!, apiKey, stderr: () => stderr, exited };
}
