// The GitHub Actions workflows of the repository README, run against the emulator (decision T7):
// each step that calls the CLI, and each summary step, runs in bash as the runner would run it,
// with `${{ }}` expressions replaced from a table of the ones this test knows (an unknown one
// fails the test) and `npx @agentplane/cli@<version>` replaced by the built bin, told to poll every
// 50 ms rather than every 5 s where the command waits (so that the test takes seconds, not
// minutes; nothing else of the command changes). The steps that build and push an image are not
// run: there is no registry here.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createControlPlaneClient, findDeploymentByName, unwrap } from '@agentplane/control-plane';
import { REPO_ROOT } from '@agentplane/openapi-toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { VERSION } from '../src/version.js';
import { useHttpEmulator } from './support/http-emulator.js';
import { BIN } from './support/process.js';

const API_KEY = 'readme-workflows-key';
const emulator = useHttpEmulator({ revisionStepMs: 60, config: { tenants: [{ id: 'acme', api_keys: [API_KEY] }] } });
const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-readme-workflows-'));
afterAll(() => fs.rmSync(workdir, { recursive: true, force: true }));
const api = () => createControlPlaneClient({ baseUrl: emulator().controlPlaneUrl, apiKey: API_KEY });

/** The workflows of the README's CI/CD section, by name. */
function readmeWorkflows(): Record<string, any> {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Deploying from CI/CD'),
    readme.indexOf('\n## ', readme.indexOf('## Deploying from CI/CD') + 1),
  );
  const workflows = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => YAML.parse(m[1]!));
  return Object.fromEntries(workflows.map((workflow) => [workflow.name, workflow]));
}

const hasJq = (() => {
  try {
    execFileSync('jq', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasJq)
  console.warn('readme-workflows: jq is not installed, so the summary steps are not run (.ci/run installs it; CI never skips them)');

interface Event {
  /** `${{ }}` expressions and their values. */
  values: Record<string, string>;
  /** The job's working directory (its files: preview.json, the summary). */
  dir: string;
}

function newEvent(values: Record<string, string>): Event {
  const dir = fs.mkdtempSync(path.join(workdir, 'run-'));
  return {
    dir,
    values: {
      'vars.AGENTPLANE_BASE_URL': emulator().controlPlaneUrl,
      'secrets.AGENTPLANE_API_KEY': API_KEY,
      'secrets.OPENAI_API_KEY': 'sk-prod-7d1e0f9b8a64',
      'secrets.PREVIEW_OPENAI_API_KEY': 'sk-preview-3c2a7d1e0f9b',
      ...values,
    },
  };
}

function substitute(text: string, event: Event): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expression: string) => {
    if (!Object.hasOwn(event.values, expression))
      throw new Error(`the README workflow uses \${{ ${expression} }}, which this test does not model`);
    return event.values[expression]!;
  });
}

/** Runs one job's steps as the runner would (bash -eo pipefail), stopping at the first failure; answers each run step's exit code by name. */
async function runJob(job: any, event: Event): Promise<Record<string, number>> {
  const codes: Record<string, number> = {};
  const jobEnv = Object.fromEntries(Object.entries<string>(job.env ?? {}).map(([k, v]) => [k, substitute(String(v), event)]));
  let failed = false;
  for (const step of job.steps) {
    if (step.uses) continue; // actions/checkout, actions/setup-node
    if (/docker (build|push|login)/.test(step.run)) continue; // no registry here
    if (step.if !== undefined) {
      const summary = /^always\(\) && hashFiles\('([^']+)'\) != ''$/.exec(step.if);
      expect(summary, `a step condition this test does not model: ${step.if}`).not.toBeNull();
      if (!fs.existsSync(path.join(event.dir, summary![1]!)) || !hasJq) continue;
    } else if (failed) continue;
    const pin = /npx --yes @agentplane\/cli@([\d.]+)/.exec(step.run);
    if (pin) expect(pin[1], 'the README pins the CLI at its current version').toBe(VERSION);
    const waits = !/ preview delete /.test(step.run);
    const script = substitute(step.run, event).replace(
      /npx --yes @agentplane\/cli@[\d.]+/g,
      `node ${BIN}${waits ? ' --interval 50ms' : ''}`,
    );
    const env = {
      PATH: process.env.PATH ?? '',
      CI: 'true',
      GITHUB_STEP_SUMMARY: path.join(event.dir, 'summary.md'),
      ...jobEnv,
      ...Object.fromEntries(Object.entries<string>(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), event)])),
    };
    const code = await new Promise<number>((resolve) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: event.dir, env, stdio: 'ignore' });
      child.once('exit', (exit) => resolve(exit ?? -1));
    });
    codes[step.name] = code;
    if (code !== 0) failed = true;
  }
  return codes;
}

const summary = (event: Event) => fs.readFileSync(path.join(event.dir, 'summary.md'), 'utf8');
const revisionsOf = async (deploymentId: string) =>
  unwrap(await api().GET('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: deploymentId } } })).resources;

// Each job runs several processes (bash, node): on a loaded 2-core machine a test takes far longer
// than the file's default bound, which only guards against a hang.
describe("the README's GitHub Actions workflows, against the emulator", { timeout: 180_000 }, () => {
  const workflows = readmeWorkflows();
  const push = (sha: string) => newEvent({ 'github.sha': sha });

  it('has the deploy, preview and rollback workflows, on the events they are for', () => {
    expect(Object.keys(workflows).sort()).toEqual(['Deploy', 'Preview', 'Roll back']);
    expect(workflows.Deploy.on.push.branches).toEqual(['main']);
    expect(workflows.Preview.on.pull_request.types).toEqual(['opened', 'synchronize', 'reopened', 'closed']);
    expect(workflows.Preview.jobs.preview.if).toBe("github.event.action != 'closed'");
    expect(workflows.Preview.jobs.cleanup.if).toBe("github.event.action == 'closed'");
    expect(Object.keys(workflows['Roll back'].on)).toEqual(['workflow_dispatch']);
    // A rollback never races a deploy: they share one concurrency group, and neither cancels the other.
    expect(workflows['Roll back'].concurrency).toEqual(workflows.Deploy.concurrency);
  });

  it('deploy on push, twice; then a rollback job puts the first image back, and one with a revision the second', async () => {
    for (const sha of ['1f0c6d2e3a47', '9d7e0f1a2b3c']) {
      const event = push(sha);
      expect(await runJob(workflows.Deploy.jobs.deploy, event)).toEqual({
        'Deploy and wait until DEPLOYED': 0,
        ...(hasJq ? { Summary: 0 } : {}),
      });
      if (hasJq) expect(summary(event)).toMatch(/^Revision [0-9a-f-]{36}: DEPLOYED\n$/);
    }
    const deployment = (await findDeploymentByName(api(), 'billing-agent'))!;
    const [second, first] = await revisionsOf(deployment.id);
    expect(first!.source_revision_config.image_uri).toBe('registry.example.com/agents/billing-agent:1f0c6d2e3a47');

    const rollback = newEvent({ 'inputs.revision': '' });
    expect(await runJob(workflows['Roll back'].jobs.rollback, rollback)).toMatchObject({ 'Roll back and wait until DEPLOYED': 0 });
    const active = async () => {
      const now = (await findDeploymentByName(api(), 'billing-agent'))!;
      const serving = (await revisionsOf(now.id)).find((r) => r.id === now.active_revision_id)!;
      return serving.source_revision_config.image_uri;
    };
    expect(await active()).toBe(first!.source_revision_config.image_uri);
    if (hasJq)
      expect(summary(rollback)).toMatch(
        new RegExp(
          `^Rolled back to revision ${first!.id} \\(registry\\.example\\.com/agents/billing-agent:1f0c6d2e3a47\\): new revision [0-9a-f-]{36} is DEPLOYED\\n$`,
        ),
      );

    const to = newEvent({ 'inputs.revision': second!.id });
    expect(await runJob(workflows['Roll back'].jobs.rollback, to)).toMatchObject({ 'Roll back and wait until DEPLOYED': 0 });
    expect(await active()).toBe(second!.source_revision_config.image_uri);
  });

  it('preview on open and on push updates one deployment; on close it is deleted, and closing again succeeds', async () => {
    // The deployment it previews exists: the deploy workflow made it, with its secret (run it when this test runs alone).
    if (!(await findDeploymentByName(api(), 'billing-agent'))) await runJob(workflows.Deploy.jobs.deploy, push('0a1b2c3d4e5f'));
    expect((await findDeploymentByName(api(), 'billing-agent'))?.secrets).toEqual([{ name: 'OPENAI_API_KEY' }]);
    const pr = (action: string, sha: string) => newEvent({ 'github.event.number': '42', 'github.event.action': action, 'github.sha': sha });

    const opened = pr('opened', 'aaaa1111');
    expect(await runJob(workflows.Preview.jobs.preview, opened)).toMatchObject({ 'Deploy the preview and wait until DEPLOYED': 0 });
    const preview = (await findDeploymentByName(api(), 'billing-agent-pr-42'))!;
    expect(preview.source_config.custom_url).toBe('https://billing-agent-pr-42.preview.example.com');
    expect(preview.secrets).toEqual([{ name: 'OPENAI_API_KEY' }]);
    if (hasJq)
      expect(summary(opened)).toBe(
        `Preview billing-agent-pr-42 (${preview.id}): DEPLOYED at https://billing-agent-pr-42.preview.example.com\n`,
      );

    const pushed = pr('synchronize', 'bbbb2222');
    expect(await runJob(workflows.Preview.jobs.preview, pushed)).toMatchObject({ 'Deploy the preview and wait until DEPLOYED': 0 });
    const after = (await findDeploymentByName(api(), 'billing-agent-pr-42'))!;
    expect(after.id).toBe(preview.id);
    expect(after.source_revision_config.image_uri).toBe('registry.example.com/agents/billing-agent:pr-42-bbbb2222');
    expect(await revisionsOf(preview.id)).toHaveLength(2);

    for (const _ of [1, 2]) {
      expect(await runJob(workflows.Preview.jobs.cleanup, pr('closed', 'bbbb2222'))).toEqual({ 'Delete the preview': 0 });
      expect(await findDeploymentByName(api(), 'billing-agent-pr-42')).toBeUndefined();
    }
  });
});
