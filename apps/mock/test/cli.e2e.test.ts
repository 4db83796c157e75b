// The `agentplane-mock` command (`npm run mock`): starts both mocks on the requested ports, prints
// their URLs, and stops them (and frees the ports) on SIGINT, SIGTERM, SIGHUP and when the process
// that started it goes away; a bad flag is exit 2.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@agentplane/openapi-toolkit';
import { describe, expect, it } from 'vitest';

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/agentplane-mock.js');

describe('mock launcher', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'serves both APIs and stops cleanly on %s',
    async (signal) => {
      const [cpPort, asPort] = [await freePort(), await freePort()];
      const child = spawn(process.execPath, [cli, '--control-plane-port', String(cpPort), '--agent-server-port', String(asPort)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

      // As long as startPrism waits: Prism reads the whole spec first, slowly on a loaded machine.
      const deadline = Date.now() + 90_000;
      while (!output.includes('Mocks ready')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`launcher did not get ready:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).toContain(`Control plane mock: http://127.0.0.1:${cpPort}`);
      expect(output).toContain(`Agent server mock: http://127.0.0.1:${asPort}`);
      const withKey = { headers: { 'x-api-key': 'k' } };
      expect((await fetch(`http://127.0.0.1:${cpPort}/v2/sandboxes/pools/python-pool`, withKey)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${cpPort}/v2/sandboxes/pools/python-pool`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${asPort}/threads/8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f`)).status).toBe(200);

      child.kill(signal);
      expect(await exited).toBe(0);
      await expect(fetch(`http://127.0.0.1:${cpPort}/v2/sandboxes/pools/python-pool`)).rejects.toThrow();
      await expect(fetch(`http://127.0.0.1:${asPort}/threads`)).rejects.toThrow();
    },
    120_000,
  );

  it('stops both mocks when the process that started it goes away, as npx does on SIGTERM', async () => {
    const [cpPort, asPort] = [await freePort(), await freePort()];
    // A shell that forks the launcher and is then killed outright: the launcher is left an orphan.
    const shell = spawn(
      '/bin/sh',
      ['-c', `"${process.execPath}" "${cli}" --control-plane-port ${cpPort} --agent-server-port ${asPort}; true`],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    shell.stdout.on('data', (chunk) => (output += chunk));
    shell.stderr.on('data', (chunk) => (output += chunk));
    const until = async (text: string, ms: number) => {
      const deadline = Date.now() + ms;
      while (!output.includes(text)) {
        if (Date.now() > deadline) throw new Error(`no "${text}" within ${ms / 1000} s:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until('Mocks ready', 90_000);
    shell.kill('SIGKILL');
    await until('is gone; stopping', 10_000);
    // Both Prism processes stop with it: their ports are free again.
    const deadline = Date.now() + 15_000;
    for (const port of [cpPort, asPort])
      while (
        await fetch(`http://127.0.0.1:${port}/threads`).then(
          () => true,
          () => false,
        )
      ) {
        if (Date.now() > deadline) throw new Error(`port ${port} still answers:\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
  }, 120_000);

  /** Runs the command to its end (it starts no mock for these arguments). */
  async function runToEnd(args: string[]) {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    return { code, stdout, stderr };
  }

  it('refuses a port that is not a number', async () => {
    const { code, stderr } = await runToEnd(['--control-plane-port', 'abc']);
    expect(code).toBe(2);
    expect(stderr).toContain('--control-plane-port must be a port number');
  });

  it('refuses an unknown flag with its usage, and prints the usage and exit codes with --help', async () => {
    const refused = await runToEnd(['--prot', '4010']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("agentplane-mock: Unknown option '--prot'");
    expect(refused.stderr).toContain('Usage: agentplane-mock [options]');
    const help = await runToEnd(['--help']);
    expect(help.code).toBe(0);
    for (const line of ['--control-plane-port <n>', 'AGENTPLANE_AGENT_SERVER_MOCK_PORT', 'AGENTPLANE_MOCK_HOST', 'Exit codes: 0'])
      expect(help.stdout).toContain(line);
  });
});
