// The executable, as a process: help, a usage error's exit code, and SIGINT mid-wait (exit 130)
// against the emulator over HTTP; and `npx agentplane` from the repository root, as the README
// runs it right after an install and a build.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { createControlPlaneClient, findDeploymentByName } from '@agentplane/control-plane';
import { describe, expect, it } from 'vitest';
import { CONTROL_PLANE_CREDENTIALS } from './support/control-plane.js';
import { useHttpEmulator } from './support/http-emulator.js';
import { agentplane, BIN } from './support/process.js';

const REPO_ROOT = path.resolve(path.dirname(BIN), '../../..');

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the agentplane bin', () => {
  const emulator = useHttpEmulator({ revisionStepMs: 400 });
  const env = () => ({ AGENTPLANE_BASE_URL: emulator().controlPlaneUrl, AGENTPLANE_API_KEY: CONTROL_PLANE_CREDENTIALS.apiKey, CI: 'true' });
  const api = () => createControlPlaneClient({ baseUrl: emulator().controlPlaneUrl, apiKey: CONTROL_PLANE_CREDENTIALS.apiKey });

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
    const proc = agentplane(['deploy', 'bin-sigint', '--image', 'registry.test/app:1', '--interval', '20ms'], env());
    const statusLines = () => [...proc.stderr().matchAll(/^\s+\d+s {2}([A-Z_]+)/gm)].map((m) => m[1]);
    await until(() => statusLines().length > 0, 'a first status line');
    const before = (await findDeploymentByName(api(), 'bin-sigint'))!;
    proc.kill('SIGINT');
    expect(await proc.code).toBe(130);
    // The revision may move on between the first line and the signal on a loaded machine: the
    // message names the last status the CLI printed, whichever that was.
    const last = statusLines().at(-1);
    expect(proc.stderr()).toMatch(
      new RegExp(`error: interrupted: stopped waiting\\. Revision ${before.latest_revision_id} of bin-sigint was ${last}`),
    );
    // Nothing was written since: the same latest revision, not updated, and it goes on on the server.
    const after = (await findDeploymentByName(api(), 'bin-sigint'))!;
    expect(after).toMatchObject({ id: before.id, latest_revision_id: before.latest_revision_id, updated_at: before.updated_at });
  });
});
