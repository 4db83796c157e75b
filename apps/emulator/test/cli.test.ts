// The `agentplane-emulator` bin as users run it: the ready line, a clean stop on SIGINT and
// SIGTERM, a restart on the same file that resumes (data and the default tenant's key kept),
// config files in YAML and JSON, and clear refusals of bad flags and bad configs.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/agentplane-emulator.js', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-emulator-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  controlPlaneUrl: string;
  agentServerUrl: string;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [BIN, '--control-plane-port', '0', '--agent-server-port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line: ${output}`)), 20_000);
    child.stdout!.on('data', () => {
      const ready = /ready: control plane (\S+) · agent server (\S+)/.exec(output);
      if (!ready) return;
      clearTimeout(timer);
      resolve({ child, controlPlaneUrl: ready[1]!, agentServerUrl: ready[2]!, output: () => output, exit });
    });
    void exit.then(() => reject(new Error(`exited before ready: ${output}`)));
  });
}

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('agentplane-emulator', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('prints one ready line with both URLs and stops cleanly on %s', async (signal) => {
    const emulator = await start(['--db', ':memory:']);
    expect(emulator.output().split('\n').filter((line) => line.includes('ready'))).toHaveLength(1);
    expect((await fetch(`${emulator.agentServerUrl}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    emulator.child.kill(signal);
    expect(await emulator.exit).toEqual({ code: 0, signal: null });
    await expect(fetch(`${emulator.agentServerUrl}/threads/search`, { method: 'POST' })).rejects.toThrow();
  });

  it('resumes on the same file: threads, deployments and the default key survive a restart', async () => {
    const db = path.join(dir, 'resume.db');
    const first = await start(['--db', db]);
    const key = /uses API key (\S+)/.exec(first.output())![1]!;
    const thread = await (await fetch(`${first.agentServerUrl}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"metadata":{"kept":true}}' })).json();
    const deployment = await (
      await fetch(`${first.controlPlaneUrl}/v2/deployments`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ name: 'kept', source: 'external_container', source_revision_config: { image_uri: 'r/a:1' } }) })
    ).json();
    first.child.kill('SIGTERM');
    await first.exit;

    const second = await start(['--revision-step-ms', '1'], { AGENTPLANE_EMULATOR_DB: db });
    expect(second.output()).toContain(`uses API key ${key}`);
    expect(await (await fetch(`${second.agentServerUrl}/threads/${thread.thread_id}`)).json()).toMatchObject({ metadata: { kept: true } });
    const revision = await (await fetch(`${second.controlPlaneUrl}/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`, { headers: { 'x-api-key': key } })).json();
    expect(revision.id).toBe(deployment.latest_revision_id);
    second.child.kill('SIGINT');
    await second.exit;
  });

  it('reads tenants from a YAML or JSON config', async () => {
    const yamlFile = path.join(dir, 'config.yaml');
    fs.writeFileSync(yamlFile, 'tenants:\n  - id: tenant-a\n    api_keys: [key-a]\n    sandbox_pools: [ { name: python-pool, template_name: python-3-12, replicas: 2 } ]\n');
    const jsonFile = path.join(dir, 'config.json');
    fs.writeFileSync(jsonFile, JSON.stringify({ tenants: [{ id: 'tenant-a', api_keys: ['key-a'], sandbox_pools: [{ name: 'python-pool', template_name: 'python-3-12', replicas: 2 }] }] }));
    for (const file of [yamlFile, jsonFile]) {
      const emulator = await start(['--db', ':memory:', '--config', file]);
      expect(emulator.output()).not.toContain('uses API key');
      const pool = await fetch(`${emulator.controlPlaneUrl}/v2/sandboxes/pools/python-pool`, { headers: { 'x-api-key': 'key-a' } });
      expect(await pool.json()).toMatchObject({ name: 'python-pool', replicas: 2 });
      emulator.child.kill('SIGTERM');
      await emulator.exit;
    }
  });

  it('refuses bad flags and bad configs with exit code 2 and a reason', async () => {
    expect(await run(['--help'])).toMatchObject({ code: 0, output: expect.stringContaining('--revision-step-ms') });
    expect(await run(['--bogus'])).toMatchObject({ code: 2, output: expect.stringContaining("Unknown option '--bogus'") });
    expect(await run(['--revision-step-ms', 'soon'])).toMatchObject({ code: 2, output: expect.stringContaining('--revision-step-ms must be an integer') });
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'tenants:\n  - id: a\n    api_keys: [k]\n  - id: b\n    api_keys: [k]\n');
    expect(await run(['--config', bad, '--db', ':memory:'])).toMatchObject({ code: 2, output: expect.stringContaining('each key belongs to one tenant') });
    const badPool = path.join(dir, 'bad-pool.yaml');
    fs.writeFileSync(badPool, 'tenants:\n  - id: a\n    api_keys: [k]\n    sandbox_pools: [ { name: Bad_Name, template_name: t, replicas: -1 } ]\n');
    const refused = await run(['--config', badPool, '--db', ':memory:']);
    expect(refused.code).toBe(2);
    expect(refused.output).toMatch(/not a valid SandboxPool: .*name: String should match pattern/);
    expect(await run(['--config', path.join(dir, 'absent.yaml')])).toMatchObject({ code: 2, output: expect.stringContaining('cannot read config') });
    // The AGENTPLANE_EMULATOR_* variables stand in for flags (so `npm start` can be configured).
    expect(await run([], { AGENTPLANE_EMULATOR_CONFIG: path.join(dir, 'absent.yaml') })).toMatchObject({ code: 2, output: expect.stringContaining('cannot read config') });
    expect(await run([], { AGENTPLANE_EMULATOR_AGENT_SERVER_PORT: 'http' })).toMatchObject({ code: 2, output: expect.stringContaining('--agent-server-port must be an integer') });
  });
});
