// The packages as users get them, in one install (the slow part, paid once): every public package
// packed as the release packs it, installed into a fresh project outside the workspace with its
// third-party dependencies from the registry, and used there as an app team would. better-sqlite3
// installs its prebuilt binary, as it does for most users, from a local prebuilds folder (as an
// offline mirror serves it) holding the workspace's own build: these machines cannot reach its
// downloads, and compiling SQLite again took most of this suite's ten minutes on CI's busy cores.
// The app's steps:
// - strict TypeScript (skipLibCheck false) over the app's files: the emulator README's Vitest file
//   and Playwright config, and the programs below (the emulator's `./seeding` entry among them);
// - the config's JSON Schema resolves at `@agentplane/emulator/config.schema.json`;
// - `npx agentplane-mock` answers the client packages, the LangGraph SDK and the `agentplane` CLI;
// - the README's GitHub Actions job, step by step: the Vitest file (an in-process emulator per test)
//   passes, `npx agentplane-emulator --config graphs.yaml --db :memory:` starts, and a conversation
//   with a tool call streams through the SDK;
// - the Playwright config's emulator server answers at its URL;
// - the README's pytest fixture and test pass with Debian's python3 and pytest over plain HTTP.
// The only things the test changes in the README's examples are the ports (free ones, through the
// commands' variables), so that it never meets a server already on 8123.
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, packPackages, publicPackages, REPO_ROOT } from '@agentplane/openapi-toolkit';
import { readmeSectionBlocks } from '@agentplane/openapi-toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';

const EMULATOR_README = path.join(REPO_ROOT, 'apps', 'emulator', 'README.md');
// The README's part on testing an app, whose examples are files of the app's own project.
const GUIDE = 'Test your agent app without an LLM';
const blocks = (heading: string, lang: string) => readmeSectionBlocks(EMULATOR_README, heading, lang);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-packed-'));
const project = path.join(work, 'app');
const started: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map(stopGroup));
  fs.rmSync(work, { recursive: true, force: true });
});

/** What a fresh shell in the app's folder has: no variables of this test run (vitest's among them). */
const shellEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? os.homedir(),
  ...(process.env.CI ? { CI: process.env.CI } : {}),
  ...extra,
});

/**
 * The processes still running that a snippet started: each run of a snippet marks its environment
 * (`AGENTPLANE_SNIPPET_RUN`), which every process it starts inherits. Waits up to 10 s for them to
 * end, as a clean stop takes a moment.
 */
async function leftoversOf(mark: string): Promise<string[]> {
  const find = () =>
    fs.readdirSync('/proc').flatMap((pid) => {
      if (!/^\d+$/.test(pid)) return [];
      try {
        if (!fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`AGENTPLANE_SNIPPET_RUN=${mark}`)) return [];
        return [`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()}`];
      } catch {
        return []; // gone meanwhile
      }
    });
  const deadline = Date.now() + 10_000;
  let found = find();
  while (found.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    found = find();
  }
  return found;
}

/**
 * A folder of better-sqlite3 prebuilds as its installer looks for them (named by version, Node ABI,
 * platform and architecture), holding the binary the workspace's install built or downloaded.
 */
function localPrebuilds(): string {
  const sqlite = path.join(REPO_ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(fs.readFileSync(path.join(sqlite, 'package.json'), 'utf8')) as { version: string };
  const folder = path.join(work, 'prebuilds');
  fs.mkdirSync(folder, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', path.join(folder, name), 'build/Release/better_sqlite3.node'], { cwd: sqlite });
  return folder;
}

/** A file of the app, written as the README shows it. */
function writeAppFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
  fs.writeFileSync(path.join(project, file), text);
}

/** The README block that names `file` on its first line (`// tests/agent.test.ts`, `# conftest.py`); exactly one. */
function namedBlock(lang: string, file: string): string {
  const named = blocks(GUIDE, lang).filter((block) => /^(\/\/|#) (.+)$/.exec(block.split('\n')[0] ?? '')?.[2] === file);
  if (named.length !== 1) throw new Error(`${EMULATOR_README}: "${GUIDE}" has ${named.length} ${lang} blocks named ${file}, not one`);
  return named[0]!;
}

/** Starts a command in the app's folder in a process group of its own (npx and what it runs). */
function startInApp(command: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { cwd: project, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

async function waitFor(what: string, ready: () => boolean | Promise<boolean>, child: ChildProcess, output: () => string): Promise<void> {
  // As long as a Prism mock may take to read its spec on a loaded 2-core machine: only a hang stops here.
  const deadline = Date.now() + 120_000;
  while (!(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${what} did not get ready:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops a process group started by startInApp: SIGTERM, then SIGKILL after 10 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  const alive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) process.kill(-child.pid!, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive()) process.kill(-child.pid!, 'SIGKILL');
}

// The app's programs (not README examples): the client packages and the LangGraph SDK against the
// installed mock, and a streamed conversation with a tool call against the installed emulator.
const CLIENTS_PROGRAM = `
import { createControlPlaneClient, waitForRevision, unwrap, type SandboxPool } from '@agentplane/control-plane';
import { createAgentServerClient, iterateThreads } from '@agentplane/agent-server';
import { checkCatalog, type CheckInfo } from '@agentplane/conformance';
import { Client } from '@langchain/langgraph-sdk';

const [controlPlaneUrl, agentServerUrl] = process.argv.slice(2) as [string, string];
const controlPlane = createControlPlaneClient({ baseUrl: controlPlaneUrl, apiKey: 'packed-test' });
const pool: SandboxPool = unwrap(await controlPlane.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'python-pool' } } }));
// The mock serves the revision's 'Deployed' example when asked to.
const deployedView = createControlPlaneClient({ baseUrl: controlPlaneUrl, apiKey: 'packed-test', headers: { Prefer: 'example=Deployed' } });
const revision = await waitForRevision(deployedView, {
  deploymentId: '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50',
  revisionId: '5e8f2c1a-9b7d-4e6f-a3c2-7d1e0f9b8a64',
  intervalMs: 10,
  timeoutMs: 5_000,
});
const agentServer = createAgentServerClient({ baseUrl: agentServerUrl });
const thread = unwrap(await agentServer.POST('/threads', { body: { metadata: { graph_id: 'support' } } }));
let searched = 0;
for await (const _ of iterateThreads(agentServer, { status: 'idle' }, { pageSize: 2 })) searched++;
const checks: CheckInfo[] = checkCatalog();
// The LangGraph SDK against the same mock: its answers are the spec's examples.
const sdk = new Client({ apiUrl: agentServerUrl, apiKey: null });
const sdkThread = await sdk.threads.create({ metadata: { graph_id: 'support' } });
console.log(JSON.stringify({
  pool: pool.name,
  revision: revision.status,
  thread: thread.status,
  searched,
  schemaChecks: checks.some((check) => check.id === 'schema:getThread'),
  sdkThread: typeof sdkThread.thread_id,
}));
`;

const CONVERSATION_PROGRAM = `
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';

type Message = { type: string; content: unknown; tool_calls?: { name: string }[] };
const client = new Client({ apiUrl: process.env.AGENT_SERVER_URL ?? 'http://127.0.0.1:8123', apiKey: null });
const { thread_id } = await client.threads.create({ metadata: { graph_id: 'support' } });
const events = new Set<string>();
let values: { messages: Message[] } | undefined;
const input = { messages: [{ type: 'human', content: 'Where is my order?' }] };
for await (const chunk of client.runs.stream(thread_id, 'support', { input, streamMode: ['values', 'messages-tuple'] })) {
  events.add(chunk.event);
  if (chunk.event === 'values') values = chunk.data as { messages: Message[] };
}
assert.deepEqual([...events].sort(), ['messages', 'metadata', 'values']);
assert.deepEqual(values?.messages.map((message) => message.type), ['human', 'ai', 'tool', 'ai']);
assert.equal(values?.messages[1]?.tool_calls?.[0]?.name, 'lookup_order');
const state = await client.threads.getState(thread_id);
assert.deepEqual(state.values, values);
console.log('conversation: streamed, with a tool call');
`;

// The emulator's other entry, for load tests: its declarations resolve too, and it writes a database.
const SEEDING_PROGRAM = `
import { openThreadStore } from '@agentplane/emulator/seeding';

const seeded = openThreadStore(process.argv[2] ?? ':memory:');
seeded.close();
console.log('seeding: opened and closed');
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2023', 'dom'],
    types: ['node'],
    noEmit: true,
  },
  include: ['*.ts', 'tests/**/*.ts'],
};

describe('the public packages, packed and installed outside the workspace', () => {
  beforeAll(async () => {
    fs.mkdirSync(project);
    const packed = await packPackages(publicPackages(), new Set(), path.join(work, 'tarballs'));
    const root = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const emulator = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'apps', 'emulator', 'package.json'), 'utf8'));
    // Third-party tools at the versions this repository pins (rollup as the root overrides it:
    // later builds lack platform binaries in the registry these machines reach).
    const devDependencies = {
      '@langchain/langgraph-sdk': emulator.devDependencies['@langchain/langgraph-sdk'],
      '@playwright/test': emulator.devDependencies['@playwright/test'],
      '@types/node': root.devDependencies['@types/node'],
      typescript: root.devDependencies.typescript,
      vitest: root.devDependencies.vitest,
    };
    writeAppFile(
      'package.json',
      JSON.stringify(
        {
          name: 'packed-app',
          private: true,
          type: 'module',
          scripts: { 'test:e2e': 'node build/conversation.js' },
          dependencies: Object.fromEntries(packed.map(({ name, file }) => [name, `file:${file}`])),
          devDependencies,
          overrides: { rollup: root.overrides.rollup },
        },
        null,
        2,
      ),
    );
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd: project,
      env: shellEnv({ npm_config_better_sqlite3_local_prebuilds: localPrebuilds() }),
      stdio: 'pipe',
    });
    // Had the installer not taken the local prebuild, npm would have compiled it (and left its objects).
    const compiled = fs.existsSync(path.join(project, 'node_modules', 'better-sqlite3', 'build', 'Release', 'obj.target'));
    expect(compiled, 'better-sqlite3 was compiled: its installer did not take the local prebuild').toBe(false);
    for (const { name } of packed) {
      const installed = path.join(project, 'node_modules', name);
      expect(fs.lstatSync(installed).isSymbolicLink(), `${name} is a copy, not a link into the workspace`).toBe(false);
    }

    writeAppFile('tsconfig.json', JSON.stringify(TSCONFIG, null, 2));
    writeAppFile(
      'tsconfig.programs.json',
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: false, outDir: 'build' }, include: ['*.ts'] }, null, 2),
    );
    writeAppFile('clients.ts', CLIENTS_PROGRAM);
    writeAppFile('conversation.ts', CONVERSATION_PROGRAM);
    writeAppFile('seeding.ts', SEEDING_PROGRAM);
    writeAppFile('tests/agent.test.ts', namedBlock('ts', 'tests/agent.test.ts'));
    writeAppFile('playwright.config.ts', namedBlock('ts', 'playwright.config.ts'));
    writeAppFile('conftest.py', namedBlock('python', 'conftest.py'));
    writeAppFile('test_agent.py', namedBlock('python', 'test_agent.py'));
    // graphs.yaml: the README says to save the example of Scripted graphs.
    writeAppFile('graphs.yaml', blocks('Scripted graphs', 'yaml')[0] ?? '');
  }, 900_000);

  it('type-checks strictly, skipLibCheck false: the README Vitest file and Playwright config, and the programs', () => {
    const tsc = path.join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    for (const config of ['tsconfig.json', 'tsconfig.programs.json']) {
      const result = spawnSync(process.execPath, [tsc, '-p', config], { cwd: project, encoding: 'utf8', env: shellEnv() });
      expect(result.status, `${config}:\n${result.stdout}${result.stderr}`).toBe(0);
    }
    const seeded = path.join(project, 'seeded.db');
    expect(execFileSync(process.execPath, ['build/seeding.js', seeded], { cwd: project, encoding: 'utf8', env: shellEnv() })).toContain(
      'seeding: opened and closed',
    );
    expect(fs.existsSync(seeded)).toBe(true);
  }, 300_000);

  it("ships the config's JSON Schema at @agentplane/emulator/config.schema.json, for an editor's $schema line", () => {
    const resolved = execFileSync(process.execPath, ['-p', "require.resolve('@agentplane/emulator/config.schema.json')"], {
      cwd: project,
      encoding: 'utf8',
      env: shellEnv(),
    }).trim();
    expect(resolved).toBe(path.join(project, 'node_modules', '@agentplane', 'emulator', 'dist', 'config.schema.json'));
    const schema = JSON.parse(fs.readFileSync(resolved, 'utf8'));
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(Object.keys(schema.properties)).toContain('graphs');
  });

  it('npx agentplane-mock answers the client packages, the LangGraph SDK and the agentplane CLI', async () => {
    const [controlPlanePort, agentServerPort] = [await freePort(), await freePort()];
    const mock = startInApp(
      'npx',
      ['agentplane-mock', '--control-plane-port', String(controlPlanePort), '--agent-server-port', String(agentServerPort)],
      shellEnv(),
    );
    await waitFor('agentplane-mock', () => mock.output().includes('Mocks ready'), mock.child, mock.output);
    const urls = { controlPlane: `http://127.0.0.1:${controlPlanePort}`, agentServer: `http://127.0.0.1:${agentServerPort}` };
    try {
      const output = execFileSync(process.execPath, ['build/clients.js', urls.controlPlane, urls.agentServer], {
        cwd: project,
        encoding: 'utf8',
        env: shellEnv(),
      });
      // The static mock answers every page with the same 2 threads and X-Pagination-Total: 42, so the
      // iterator reads 21 pages and stops at the total.
      expect(JSON.parse(output)).toEqual({
        pool: 'python-pool',
        revision: 'DEPLOYED',
        thread: 'idle',
        searched: 42,
        schemaChecks: true,
        sdkThread: 'string',
      });
      expectCliAgainst(urls);
    } finally {
      await stopGroup(mock.child);
    }
  }, 300_000);

  it("runs the README's GitHub Actions job step by step: the Vitest file, then the emulator command and a streamed conversation", async () => {
    const workflow = YAML.parse(namedBlock('yaml', '.github/workflows/test.yml')) as {
      jobs: Record<string, { steps: { uses?: string; run?: string; if?: string; env?: Record<string, string> }[] }>;
    };
    const [agentServerPort, controlPlanePort] = [await freePort(), await freePort()];
    const mark = `actions-${Date.now()}`;
    const ran: string[] = [];
    for (const step of Object.values(workflow.jobs).flatMap((job) => job.steps)) {
      // checkout and setup-node: the app is here, on this Node. npm ci: installed just before (a
      // second install would build better-sqlite3 again). `if: failure()`: nothing failed.
      if (step.uses || step.run === 'npm ci' || step.if === 'failure()') continue;
      const env = shellEnv({
        AGENTPLANE_SNIPPET_RUN: mark,
        ...step.env,
        AGENTPLANE_EMULATOR_AGENT_SERVER_PORT: String(agentServerPort),
        AGENTPLANE_EMULATOR_CONTROL_PLANE_PORT: String(controlPlanePort),
        ...(step.env?.AGENT_SERVER_URL ? { AGENT_SERVER_URL: `http://127.0.0.1:${agentServerPort}` } : {}),
      });
      const { child, output } = startInApp('bash', ['-e', '-c', step.run!], env);
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code, `${step.run}\n${output()}`).toBe(0);
      ran.push(step.run!);
    }
    expect(ran).toEqual([
      'npx vitest run',
      expect.stringContaining('npx agentplane-emulator --config graphs.yaml --db :memory:'),
      'npm run test:e2e',
      expect.stringContaining('kill "$(cat emulator.pid)"'),
    ]);
    const log = fs.readFileSync(path.join(project, 'emulator.log'), 'utf8');
    expect(log).toContain(`agent server http://127.0.0.1:${agentServerPort}`);
    // The job stops what it started: the emulator stopped cleanly, and nothing it started runs on.
    expect(log).toContain('agentplane-emulator: stopped');
    expect(await leftoversOf(mark)).toEqual([]);
  }, 300_000);

  it("starts the emulator of the README's Playwright config, which answers at its URL", async () => {
    const { default: config } = (await import(path.join(project, 'build', 'playwright.config.js'))) as {
      default: { webServer: { command: string; url: string; gracefulShutdown?: { signal: string } }[] };
    };
    const server = config.webServer.find((entry) => entry.command.includes('agentplane-emulator'));
    expect(server?.command).toBe('npx agentplane-emulator --config graphs.yaml --db :memory:');
    // Playwright stops it as stopGroup does below: SIGTERM to the process group (its default is SIGKILL).
    expect(server?.gracefulShutdown).toMatchObject({ signal: 'SIGTERM' });
    const mark = `playwright-${Date.now()}`;
    const port = await freePort();
    const url = server!.url.replace(':8123/', `:${port}/`);
    expect(url).not.toBe(server!.url);
    const emulator = startInApp(
      'bash',
      ['-c', server!.command],
      shellEnv({
        AGENTPLANE_SNIPPET_RUN: mark,
        AGENTPLANE_EMULATOR_AGENT_SERVER_PORT: String(port),
        AGENTPLANE_EMULATOR_CONTROL_PLANE_PORT: '0',
      }),
    );
    try {
      await waitFor(
        'the Playwright web server',
        async () => (await fetch(url).catch(() => undefined))?.status === 200,
        emulator.child,
        emulator.output,
      );
    } finally {
      await stopGroup(emulator.child);
    }
    expect(await leftoversOf(mark)).toEqual([]);
    expect(emulator.output()).toContain('agentplane-emulator: stopped');
  }, 120_000);

  const PYTHON = '/usr/bin/python3';
  const hasPytest = spawnSync(PYTHON, ['-c', 'import pytest'], { stdio: 'ignore' }).status === 0;
  if (!hasPytest) {
    const notice = `Debian's python3 with pytest not found (${PYTHON} -c 'import pytest' failed): the README's pytest example is SKIPPED. Install it with \`apt-get install -y --no-install-recommends python3-pytest\`.`;
    if (process.env.CI) throw new Error(`${notice} CI never skips it.`);
    console.warn(`\n⚠️  ${notice}\n`);
  }

  it.skipIf(!hasPytest)(
    "runs the README's pytest fixture and test with Debian's python3 and pytest",
    async () => {
      const mark = `pytest-${Date.now()}`;
      const result = spawnSync(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_agent.py'], {
        cwd: project,
        encoding: 'utf8',
        env: shellEnv({ AGENTPLANE_SNIPPET_RUN: mark }),
        timeout: 120_000,
      });
      expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/\b1 passed\b/);
      // The fixture stops what it started.
      expect(await leftoversOf(mark)).toEqual([]);
    },
    180_000,
  );

  it('says how to build better-sqlite3 when its native build is missing (an install with scripts off)', () => {
    const build = path.join(project, 'node_modules', 'better-sqlite3', 'build');
    fs.renameSync(build, `${build}.off`);
    try {
      const result = spawnSync(
        'npx',
        ['agentplane-emulator', '--db', ':memory:', '--agent-server-port', '0', '--control-plane-port', '0'],
        {
          cwd: project,
          encoding: 'utf8',
          env: shellEnv(),
          timeout: 60_000,
        },
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('better-sqlite3, the SQLite driver the emulator keeps its data with, has no native build');
      expect(result.stderr).toContain('`npm rebuild better-sqlite3`');
    } finally {
      fs.renameSync(`${build}.off`, build);
    }
  });
});

/** The CLI's bin, linked by npm from the installed tarball, against the installed mock. */
function expectCliAgainst(urls: { controlPlane: string; agentServer: string }): void {
  const bin = path.join(project, 'node_modules', '.bin', 'agentplane');
  const env = shellEnv({ AGENTPLANE_BASE_URL: urls.controlPlane, AGENTPLANE_API_KEY: 'packed-test' });
  expect(execFileSync(bin, ['--version'], { cwd: project, encoding: 'utf8', env }).trim()).toBe(
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'packages', 'cli', 'package.json'), 'utf8')).version,
  );
  const pool = JSON.parse(execFileSync(bin, ['pool', 'get', 'python-pool', '--json'], { cwd: project, encoding: 'utf8', env }));
  expect(pool.pool.name).toBe('python-pool');
  // The conformance command as installed: a static mock keeps every schema but none of the behaviour.
  const conformance = spawnSync(bin, ['conformance', '--agent-server', urls.agentServer, '--json'], {
    cwd: project,
    encoding: 'utf8',
    env,
  });
  expect(conformance.status).toBe(1);
  const report = JSON.parse(conformance.stdout) as { results: { area: string; verdict: string; operations: string[] }[] };
  const schema = report.results.filter((result) => result.area === 'schema');
  expect(schema.length).toBeGreaterThan(0);
  expect(schema.filter((result) => result.verdict === 'fail')).toEqual([]);
  // Only the run and stream checks call the operations that start, list or stream runs, and they
  // run a graph only with --allow-runs (decision L9): without it those schema checks are skipped,
  // the rest pass (joinRunStream is called for a run that does not exist, which runs nothing).
  const skipped = schema.filter((result) => result.verdict === 'skipped').flatMap((result) => result.operations);
  expect(skipped.sort()).toEqual(
    [
      'cancelRuns',
      'createRun',
      'createRunBatch',
      'createStatelessRun',
      'joinThreadStream',
      'listRuns',
      'streamRun',
      'streamStatelessRun',
      'waitRun',
      'waitStatelessRun',
    ].sort(),
  );
  expect(schema.filter((result) => result.verdict !== 'skipped').every((result) => result.verdict === 'pass')).toBe(true);
}
