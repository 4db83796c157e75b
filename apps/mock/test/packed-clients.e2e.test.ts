// The packages as users get them: `npm pack` each, install the tarballs into a fresh project
// outside the workspace, type-check a small program against their declarations, then run it
// (and the installed `agentplane` executable) against the Prism mocks.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@agentplane/openapi-toolkit';
import { afterAll, expect, inject, it } from 'vitest';

const urls = inject('mockUrls');
const PACKAGES = ['client-core', 'control-plane', 'agent-server', 'conformance', 'cli'];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-packed-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const PROGRAM = `
import { createControlPlaneClient, waitForRevision, unwrap, type SandboxPool } from '@agentplane/control-plane';
import { createAgentServerClient, iterateThreads } from '@agentplane/agent-server';
import { checkCatalog, type CheckInfo } from '@agentplane/conformance';

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
console.log(JSON.stringify({ pool: pool.name, revision: revision.status, thread: thread.status, searched, schemaChecks: checks.some((check) => check.id === 'schema:getThread') }));
`;

// Packing, installing and type-checking take minutes on a 2-core CI machine where the e2e suites
// run side by side (over 180 s once): the time limit only stops a hang.
it('packs, installs outside the workspace, type-checks and runs against the mocks', () => {
  const tarballs = PACKAGES.map((name) => {
    const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
      cwd: path.join(REPO_ROOT, 'packages', name),
      encoding: 'utf8',
    });
    return path.join(work, out.trim().split('\n').at(-1)!);
  });
  const project = path.join(work, 'app');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify(
      {
        name: 'packed-app',
        private: true,
        type: 'module',
        dependencies: Object.fromEntries(PACKAGES.map((name, i) => [`@agentplane/${name}`, `file:${tarballs[i]}`])),
      },
      null,
      2,
    ),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: project, stdio: 'pipe' });
  for (const name of PACKAGES) expect(fs.lstatSync(path.join(project, 'node_modules', '@agentplane', name)).isSymbolicLink()).toBe(false);

  fs.writeFileSync(path.join(project, 'main.ts'), PROGRAM);
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const typesNode = path.join(REPO_ROOT, 'node_modules', '@types');
  execFileSync(
    process.execPath,
    [
      tsc,
      'main.ts',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--lib',
      'es2023,dom',
      '--typeRoots',
      typesNode,
      '--types',
      'node',
      '--outDir',
      'dist',
    ],
    { cwd: project, stdio: 'pipe' },
  );
  const output = execFileSync(process.execPath, ['dist/main.js', urls['control-plane']!, urls['agent-server']!], {
    cwd: project,
    encoding: 'utf8',
  });
  // The static mock answers every page with the same 2 threads and X-Pagination-Total: 42, so the
  // iterator reads 21 pages and stops at the total.
  expect(JSON.parse(output)).toEqual({ pool: 'python-pool', revision: 'DEPLOYED', thread: 'idle', searched: 42, schemaChecks: true });

  // The CLI's bin, linked by npm from the installed tarball.
  const bin = path.join(project, 'node_modules', '.bin', 'agentplane');
  const env = { PATH: process.env.PATH ?? '', AGENTPLANE_BASE_URL: urls['control-plane']!, AGENTPLANE_API_KEY: 'packed-test' };
  expect(execFileSync(bin, ['--version'], { cwd: project, encoding: 'utf8', env }).trim()).toBe('0.1.0');
  const pool = JSON.parse(execFileSync(bin, ['pool', 'get', 'python-pool', '--json'], { cwd: project, encoding: 'utf8', env }));
  expect(pool.pool.name).toBe('python-pool');
  // The conformance command as installed: a static mock keeps every schema but none of the behaviour.
  const conformance = spawnSync(bin, ['conformance', '--agent-server', urls['agent-server']!, '--json'], {
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
}, 480_000);
