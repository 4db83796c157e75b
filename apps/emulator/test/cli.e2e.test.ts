// The `agentplane-emulator` bin as users run it: the ready line, a clean stop on SIGINT and
// SIGTERM, a restart on the same file that resumes (data and the default tenant's key kept),
// config files in YAML and JSON, and clear refusals of bad flags and bad configs; and
// `agentplane-emulator record`, in front of an emulator, writing a recording on SIGTERM that the
// emulator then replays with --time-scale.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/agentplane-emulator.js', import.meta.url));
// The emulator's own folder: where `npm start` (through turbo and `npm run serve`) runs it.
const EMULATOR_DIR = path.dirname(path.dirname(BIN));
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
  const child = spawn(process.execPath, [BIN, '--control-plane-port', '0', '--agent-server-port', '0', ...args], {
    cwd: EMULATOR_DIR,
    // The npm running these tests sets INIT_CWD; a test that wants one passes it.
    env: { ...process.env, INIT_CWD: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
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
    expect(
      emulator
        .output()
        .split('\n')
        .filter((line) => line.includes('ready')),
    ).toHaveLength(1);
    expect(
      (await fetch(`${emulator.agentServerUrl}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
        .status,
    ).toBe(200);
    emulator.child.kill(signal);
    expect(await emulator.exit).toEqual({ code: 0, signal: null });
    await expect(fetch(`${emulator.agentServerUrl}/threads/search`, { method: 'POST' })).rejects.toThrow();
  });

  it('runs a `* * * * *` cron within seconds with --cron-speed 60 (a schedule minute is a second)', async () => {
    const emulator = await start(['--db', ':memory:', '--cron-speed', '60']);
    const post = async (path: string, body: unknown) =>
      (
        await fetch(`${emulator.agentServerUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();
    const thread = await post('/threads', {});
    const cron = await post(`/threads/${thread.thread_id}/runs/crons`, { assistant_id: 'agent', schedule: '* * * * *' });
    // Polled, not timed: the run comes about a second later on any machine, and the test waits at most 30 s.
    let runs: { metadata: Record<string, unknown> }[] = [];
    for (const deadline = Date.now() + 30_000; runs.length === 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      runs = await (await fetch(`${emulator.agentServerUrl}/threads/${thread.thread_id}/runs`)).json();
    }
    expect(runs[0]?.metadata.cron_id).toBe(cron.cron_id);
    emulator.child.kill('SIGTERM');
    expect(await emulator.exit).toEqual({ code: 0, signal: null });
  });

  it('resumes on the same file: threads, deployments and the default key survive a restart', async () => {
    const db = path.join(dir, 'resume.db');
    const first = await start(['--db', db]);
    const key = /uses API key (\S+)/.exec(first.output())![1]!;
    const thread = await (
      await fetch(`${first.agentServerUrl}/threads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"metadata":{"kept":true}}',
      })
    ).json();
    const deployment = await (
      await fetch(`${first.controlPlaneUrl}/v2/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ name: 'kept', source: 'external_container', source_revision_config: { image_uri: 'r/a:1' } }),
      })
    ).json();
    first.child.kill('SIGTERM');
    await first.exit;

    const second = await start(['--revision-step-ms', '1'], { AGENTPLANE_EMULATOR_DB: db });
    expect(second.output()).toContain(`uses API key ${key}`);
    expect(await (await fetch(`${second.agentServerUrl}/threads/${thread.thread_id}`)).json()).toMatchObject({ metadata: { kept: true } });
    const revision = await (
      await fetch(`${second.controlPlaneUrl}/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`, {
        headers: { 'x-api-key': key },
      })
    ).json();
    expect(revision.id).toBe(deployment.latest_revision_id);
    second.child.kill('SIGINT');
    await second.exit;
  });

  it('reads tenants from a YAML or JSON config', async () => {
    const yamlFile = path.join(dir, 'config.yaml');
    fs.writeFileSync(
      yamlFile,
      'tenants:\n  - id: tenant-a\n    api_keys: [key-a]\n    sandbox_pools: [ { name: python-pool, template_name: python-3-12, replicas: 2 } ]\n',
    );
    const jsonFile = path.join(dir, 'config.json');
    fs.writeFileSync(
      jsonFile,
      JSON.stringify({
        tenants: [
          { id: 'tenant-a', api_keys: ['key-a'], sandbox_pools: [{ name: 'python-pool', template_name: 'python-3-12', replicas: 2 }] },
        ],
      }),
    );
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
    expect(await run(['--help'])).toMatchObject({ code: 0, output: expect.stringContaining('Exit codes: 0 after a clean stop') });
    expect(await run(['--bogus'])).toMatchObject({ code: 2, output: expect.stringContaining("Unknown option '--bogus'") });
    expect(await run(['--revision-step-ms', 'soon'])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--revision-step-ms must be an integer'),
    });
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'tenants:\n  - id: a\n    api_keys: [k]\n  - id: b\n    api_keys: [k]\n');
    expect(await run(['--config', bad, '--db', ':memory:'])).toMatchObject({
      code: 2,
      output: expect.stringContaining('each key belongs to one tenant'),
    });
    const badPool = path.join(dir, 'bad-pool.yaml');
    fs.writeFileSync(
      badPool,
      'tenants:\n  - id: a\n    api_keys: [k]\n    sandbox_pools: [ { name: Bad_Name, template_name: t, replicas: -1 } ]\n',
    );
    const refused = await run(['--config', badPool, '--db', ':memory:']);
    expect(refused.code).toBe(2);
    expect(refused.output).toContain(
      `tenants[0].sandbox_pools[0].name: "Bad_Name": String should match pattern '^[a-z]([-a-z0-9]*[a-z0-9])?$'`,
    );
    expect(refused.output).toContain('tenants[0].sandbox_pools[0].replicas: -1: Input should be greater than or equal to 0');
    expect(await run(['--config', path.join(dir, 'absent.yaml')])).toMatchObject({
      code: 2,
      output: expect.stringContaining('cannot read config'),
    });
    // The AGENTPLANE_EMULATOR_* variables stand in for flags (so `npm start` can be configured).
    expect(await run([], { AGENTPLANE_EMULATOR_CONFIG: path.join(dir, 'absent.yaml') })).toMatchObject({
      code: 2,
      output: expect.stringContaining('cannot read config'),
    });
    expect(await run([], { AGENTPLANE_EMULATOR_AGENT_SERVER_PORT: 'http' })).toMatchObject({
      code: 2,
      output: expect.stringContaining('--agent-server-port must be an integer'),
    });
  });

  it('names the key path, the value found and what is allowed for every config error', async () => {
    const file = path.join(dir, 'mistakes.yaml');
    fs.writeFileSync(
      file,
      [
        'revision_outcomes:',
        '  - { match: "*-broken", status: FAILED }',
        'tenants:',
        '  - id: a',
        '    apikeys: [k]',
        '    sandbox_pools: [ { name: p, template_name: t, replicas: two } ]',
        'agent-server: {}',
        '',
      ].join('\n'),
    );
    const { code, output } = await run(['--config', file, '--db', ':memory:']);
    expect(code).toBe(2);
    const lines = output.split('\n').map((line) => line.trim());
    // Each line names the file, the line and column where the problem stands, then the key path.
    expect(lines).toContain(
      `${file}:2:26: revision_outcomes[0].status: "FAILED" is not allowed; use one of DEPLOYED, CREATE_FAILED, BUILD_FAILED, DEPLOY_FAILED, INTERRUPTED`,
    );
    expect(lines).toContain(
      `${file}:5:5: tenants[0].apikeys: unknown key; did you mean api_keys? allowed here: id, organization_id, api_keys, bearer_tokens, oauth_providers, sandbox_pools`,
    );
    expect(lines).toContain(`${file}:4:5: tenants[0].api_keys: missing; it is required`);
    expect(lines).toContain(`${file}:6:51: tenants[0].sandbox_pools[0].replicas: "two" is not an integer`);
    expect(lines).toContain(
      `${file}:7:1: agent-server: unknown key; did you mean agent_server? allowed here: revision_outcomes, tenants, graphs, cors, crons, agent_server`,
    );
  });

  it('names the flag and the variable of a port in use, and that 0 picks a free one', async () => {
    const first = await start(['--db', ':memory:']);
    const port = new URL(first.agentServerUrl).port;
    const second = await run(['--db', ':memory:', '--control-plane-port', '0', '--agent-server-port', port]);
    first.child.kill('SIGTERM');
    await first.exit;
    expect(second.code).toBe(1);
    expect(second.output).toContain(
      `cannot start: port ${port} on 127.0.0.1 is in use (another emulator, or another server, listens there): choose another with --agent-server-port or AGENTPLANE_EMULATOR_AGENT_SERVER_PORT, or 0 to pick a free one`,
    );
  });

  it('reads relative --config and --db paths from AGENTPLANE_INIT_CWD, where `npm start` was run', async () => {
    const invoked = fs.mkdtempSync(path.join(dir, 'invoked-'));
    fs.writeFileSync(path.join(invoked, 'emulator.yaml'), 'tenants:\n  - id: a\n    api_keys: [key-a]\n');
    // As `npm start` runs it: from the emulator's own folder, with the user's directory passed on.
    const emulator = await start([], {
      AGENTPLANE_INIT_CWD: invoked,
      AGENTPLANE_EMULATOR_CONFIG: 'emulator.yaml',
      AGENTPLANE_EMULATOR_DB: 'data/e.db',
    });
    emulator.child.kill('SIGTERM');
    await emulator.exit;
    expect(fs.existsSync(path.join(invoked, 'data', 'e.db'))).toBe(true);
    expect(emulator.output()).not.toContain('uses API key');
    // The default database lands in the invocation directory too, as the README says.
    const defaulted = await start([], { AGENTPLANE_INIT_CWD: invoked });
    defaulted.child.kill('SIGTERM');
    await defaulted.exit;
    expect(fs.existsSync(path.join(invoked, '.agentplane', 'emulator.db'))).toBe(true);
  });

  it('reads them from INIT_CWD when npx runs it from a subfolder of a package', async () => {
    const invoked = fs.mkdtempSync(path.join(dir, 'npx-'));
    fs.writeFileSync(path.join(invoked, 'emulator.yaml'), 'tenants:\n  - id: a\n    api_keys: [key-a]\n');
    const emulator = await start(['--config', 'emulator.yaml', '--db', 'e.db'], { INIT_CWD: invoked });
    emulator.child.kill('SIGTERM');
    await emulator.exit;
    expect(fs.existsSync(path.join(invoked, 'e.db'))).toBe(true);
    expect(emulator.output()).not.toContain('uses API key');
  });
});

/** `agentplane-emulator record` as a process in front of an upstream, once it prints its ready line. */
async function startRecording(upstream: string, out: string) {
  const recorder = spawn(process.execPath, [BIN, 'record', '--upstream', upstream, '--out', out, '--agent-server-port', '0'], {
    env: { ...process.env, INIT_CWD: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  recorder.stdout.on('data', (chunk) => (output += chunk));
  recorder.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => recorder.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line: ${output}`)), 20_000);
    recorder.stdout.on('data', () => {
      const ready = /record ready: agent server (\S+) /.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    });
  });
  return { recorder, url, exited, output: () => output };
}

describe('agentplane-emulator record', () => {
  it('proxies an upstream, writes the recording on SIGTERM, and the emulator replays it', async () => {
    const config = path.join(dir, 'upstream.yaml');
    fs.writeFileSync(
      config,
      'graphs:\n  support:\n    replies: [{ text: "You said: {{input}}" }]\n    stream: { chunk: word, delay_ms: 50 }\n',
    );
    const upstream = await start(['--db', ':memory:', '--config', config]);
    const out = path.join(dir, 'recorded', 'support.yaml');
    const { recorder, url, exited, output } = await startRecording(upstream.agentServerUrl, out);
    const ask = { assistant_id: 'support', input: { messages: [{ role: 'user', content: 'hello' }] } };
    const through = await fetch(`${url}/runs/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask),
    });
    expect(((await through.json()) as { messages: { content: string }[] }).messages.at(-1)!.content).toBe('You said: hello');
    recorder.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output()).toMatch(/wrote .*support\.yaml: 2 graph\(s\), 1 run\(s\)|wrote .*support\.yaml: 1 graph\(s\), 1 run\(s\)/);
    upstream.child.kill('SIGTERM');
    await upstream.exit;

    // The replay, ten times faster: the same answer.
    const replay = await start(['--db', ':memory:', '--config', out, '--time-scale', '0.1']);
    const again = await fetch(`${replay.agentServerUrl}/runs/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask),
    });
    expect(((await again.json()) as { messages: { content: string }[] }).messages.at(-1)!.content).toBe('You said: hello');
    replay.child.kill('SIGTERM');
    await replay.exit;
  });

  it('says what it could not record, exits 1, and keeps the recording it would have replaced', async () => {
    const config = path.join(dir, 'slow-upstream.yaml');
    fs.writeFileSync(config, 'graphs:\n  slow:\n    replies: [{ text: "one two three" }]\n    stream: { chunk: word, delay_ms: 20000 }\n');
    const upstream = await start(['--db', ':memory:', '--config', config]);
    const out = path.join(dir, 'kept', 'slow.yaml');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const good =
      '# yaml-language-server: $schema=x\n# Recorded by `agentplane-emulator record`: a good one.\n# 1 graph(s), 3 run(s). Replay it.\ngraphs: {}\n';
    fs.writeFileSync(out, good);
    const { recorder, url, exited, output } = await startRecording(upstream.agentServerUrl, out);
    // A run in the background that is still working when its upstream goes away.
    const thread = (await (
      await fetch(`${url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()) as {
      thread_id: string;
    };
    const run = await fetch(`${url}/threads/${thread.thread_id}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'slow', input: { messages: [{ role: 'user', content: 'hello' }] } }),
    });
    expect(run.status).toBe(200);
    upstream.child.kill('SIGTERM');
    await upstream.exit;
    recorder.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(output()).toMatch(/not recorded: run \S+ on thread \S+ is not in the recording: /);
    expect(output()).toContain('the recording is incomplete');
    expect(fs.readFileSync(out, 'utf8')).toBe(good);
    expect(output()).toContain(`${out} is kept as it was (3 run(s))`);
    expect(fs.existsSync(path.join(dir, 'kept', 'slow.partial.yaml'))).toBe(true);
  });

  it('refuses bad flags with exit code 2, and an upstream that does not answer with 1', async () => {
    expect(await run(['record', '--help'])).toMatchObject({ code: 0, output: expect.stringContaining('--upstream <url>') });
    expect(await run(['record', '--out', 'x.yaml'])).toMatchObject({ code: 2, output: expect.stringContaining('--upstream is required') });
    expect(await run(['record', '--upstream', 'http://127.0.0.1:9'])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--out is required'),
    });
    expect(await run(['record', '--upstream', 'ftp://x', '--out', 'x.yaml'])).toMatchObject({
      code: 2,
      output: expect.stringContaining('must be an http(s) URL'),
    });
    const down = await run([
      'record',
      '--upstream',
      'http://127.0.0.1:9',
      '--out',
      path.join(dir, 'never.yaml'),
      '--wait-for-upstream',
      '0',
    ]);
    expect(down).toMatchObject({ code: 1, output: expect.stringContaining('does not answer GET /ok') });
    // A server that answers, but is not an agent server there: said at once, with what to check.
    const notAgentServer = http.createServer((_, response) => response.writeHead(404).end('Cannot GET /ok'));
    await new Promise<void>((resolve) => notAgentServer.listen(0, '127.0.0.1', resolve));
    const wrong = await run([
      'record',
      '--upstream',
      `http://127.0.0.1:${(notAgentServer.address() as AddressInfo).port}/api`,
      '--out',
      path.join(dir, 'never.yaml'),
    ]);
    notAgentServer.close();
    expect(wrong).toMatchObject({ code: 1, output: expect.stringContaining('answers, but not as an agent server: GET http://127.0.0.1:') });
    expect(wrong.output).toContain('/api/ok answered 404 ("Cannot GET /ok"), where an agent server answers 200 {"ok": true}');
    expect(fs.existsSync(path.join(dir, 'never.yaml'))).toBe(false);
    expect(await run(['--time-scale=-1'])).toMatchObject({
      code: 2,
      output: expect.stringContaining('--time-scale must be a number >= 0'),
    });
  });
});
