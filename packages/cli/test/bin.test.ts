// The executable, as a process: help, a usage error's exit code, and SIGINT mid-wait (exit 130)
// against the fake control plane served over HTTP; and `npx agentplane` from the repository root,
// as the README runs it right after an install and a build.
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeControlPlane } from './support/fake-control-plane.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/agentplane.js');
const REPO_ROOT = path.resolve(path.dirname(BIN), '../../..');

interface Proc {
  code: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  kill: (signal: NodeJS.Signals) => void;
}

function agentplane(args: string[], env: Record<string, string> = {}): Proc {
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

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the agentplane bin', () => {
  const fake = new FakeControlPlane();
  let server: Awaited<ReturnType<FakeControlPlane['serve']>>;
  beforeAll(async () => {
    server = await fake.serve();
  });
  afterAll(async () => {
    await server?.close();
  });
  const env = () => ({ AGENTPLANE_BASE_URL: server.url, AGENTPLANE_API_KEY: fake.apiKey, CI: 'true' });

  it('prints help (exit 0) and exits 3 on a usage error', async () => {
    const help = agentplane(['--help']);
    expect(await help.code).toBe(0);
    expect(help.stdout()).toContain('Usage: agentplane <command>');
    const usage = agentplane(['deploy']);
    expect(await usage.code).toBe(3);
    expect(usage.stderr()).toContain('error: `agentplane deploy` needs <name>');
    expect(usage.stdout()).toBe('');
  });

  it('is linked by the install: `npx --no-install agentplane --help` works in the repository root', async () => {
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
      execFile('npx', ['--no-install', 'agentplane', '--help'], { cwd: REPO_ROOT }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out }),
      ),
    );
    expect(stdout).toContain('Usage: agentplane <command>');
  });

  it('deploys and prints one JSON document on stdout', async () => {
    const proc = agentplane(['deploy', 'bin-json', '--image', 'registry.test/app:1', '--interval', '10ms', '--json'], env());
    expect(await proc.code).toBe(0);
    expect(JSON.parse(proc.stdout())).toMatchObject({ created: true, revision: { status: 'DEPLOYED' } });
  });

  it('stops waiting on SIGINT with exit 130 and leaves the deployment alone', async () => {
    const proc = agentplane(['deploy', 'bin-sigint', '--image', 'registry.test/app:1--never', '--interval', '20ms'], env());
    await until(() => proc.stderr().includes('BUILDING'), 'the revision to be BUILDING');
    const writes = fake.writes().length;
    proc.kill('SIGINT');
    expect(await proc.code).toBe(130);
    expect(proc.stderr()).toMatch(/error: interrupted: stopped waiting\. Revision \S+ of bin-sigint was BUILDING/);
    expect(fake.writes()).toHaveLength(writes);
    expect(fake.byName('bin-sigint')!.revisions[0]!.revision.status).toBe('BUILDING');
  });
});
