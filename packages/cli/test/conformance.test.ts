// `agentplane conformance` against the emulator in process: exit codes, the report on stdout
// (table or --json), progress on stderr, the JUnit file, and usage errors.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmulator } from '@agentplane/emulator';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';

const emulator = createEmulator();
afterAll(() => emulator.close());
const fetch = (request: Request) =>
  request.url.startsWith(emulator.agentServer.url) ? emulator.agentServer.fetch(request) : emulator.controlPlane.fetch(request);

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { fetch, stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { code, stdout, stderr };
}

describe('agentplane conformance', () => {
  it('exits 0 with the summary table when every check passes, progress on stderr, and writes JUnit', async () => {
    const junit = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'conformance-')), 'report.xml');
    const { code, stdout, stderr } = await cli(
      'conformance',
      '--agent-server',
      emulator.agentServer.url,
      '--only',
      'search',
      '--junit',
      junit,
    );
    expect(stderr).toContain('✔ agent-server search      search:sort: pass');
    expect(stdout).toMatch(/search:count-and-total\s+pass/);
    expect(stdout).toContain('every served operation conforms');
    expect(code).toBe(0);
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="agentplane conformance: agent-server"');
    expect(xml).not.toContain('<failure');
  });

  it('--json prints the report, and the control plane is only read without --allow-writes', async () => {
    const { code, stdout } = await cli(
      'conformance',
      '--control-plane',
      emulator.controlPlane.url,
      '--api-key',
      emulator.defaultApiKey!,
      '--json',
    );
    const report = JSON.parse(stdout) as { ok: boolean; results: { id: string }[]; cleanup: { created: number } };
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.cleanup.created).toBe(0);
    expect(report.results.map((r) => r.id)).not.toContain('deployments:first-revision');
  });

  it("runs the run checks with --allow-runs on the emulator's graph, skips them without, and refuses the run flags without --agent-server", async () => {
    const allowed = await cli('conformance', '--agent-server', emulator.agentServer.url, '--only', 'runs', '--allow-runs', '--json');
    const results = (JSON.parse(allowed.stdout) as { results: { id: string; verdict: string }[] }).results;
    expect(allowed.code).toBe(0);
    expect(results.find((r) => r.id === 'runs:wait')?.verdict).toBe('pass');
    // The emulator's default graph is an echo: the checks that need the conformance script are skipped.
    expect(results.find((r) => r.id === 'runs:tool-call')?.verdict).toBe('skipped');
    const without = await cli('conformance', '--agent-server', emulator.agentServer.url, '--only', 'runs:wait');
    expect(without.code).toBe(0);
    expect(without.stdout).toMatch(/runs:wait\s+skipped/);
    for (const flags of [['--allow-runs'], ['--scripted-graph-id', 'agentplane-conformance']]) {
      const refused = await cli(
        'conformance',
        '--control-plane',
        emulator.controlPlane.url,
        '--api-key',
        emulator.defaultApiKey!,
        ...flags,
      );
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain('--allow-runs and --scripted-graph-id apply to --agent-server only');
    }
  });

  it('is a usage error (exit 3) without a server, with a selector that names nothing, or one that calls nothing', async () => {
    expect((await cli('conformance')).code).toBe(3);
    const unknown = await cli('conformance', '--agent-server', emulator.agentServer.url, '--only', 'getThreads');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('--only "getThreads" names no check, area, operation or tag');
    // Schema checks alone call nothing: every one would be skipped, which is no pass.
    const schemaOnly = await cli('conformance', '--agent-server', emulator.agentServer.url, '--only', 'schema');
    expect(schemaOnly.code).toBe(3);
    expect(schemaOnly.stderr).toContain('the selection leaves no check that calls the server');
  });
});
