// The CI/CD commands through the built bin, as processes, against the emulator over HTTP: a failing
// build shows its reason from the log and exits 1; `logs --follow` ends with the revision; a
// rollback puts the previous image back in service and `status` shows it active; a preview is
// created, updated (same deployment, new revision), deleted, and deleted again (exit 0); two
// preview runs for one pull request at once make one deployment. Nothing here asserts a duration:
// the revisions move on the emulator's clock and the commands wait for them.
import type { Deployment } from '@agentplane/control-plane';
import { describe, expect, it } from 'vitest';
import { CONTROL_PLANE_CREDENTIALS } from './support/control-plane.js';
import { useHttpEmulator } from './support/http-emulator.js';
import { agentplane, agentplaneDone } from './support/process.js';

const emulator = useHttpEmulator({ revisionStepMs: 60 });

const env = (more: Record<string, string> = {}) => ({
  AGENTPLANE_BASE_URL: emulator().controlPlaneUrl,
  AGENTPLANE_API_KEY: CONTROL_PLANE_CREDENTIALS.apiKey,
  CI: 'true',
  ...more,
});
const WAIT = ['--interval', '20ms', '--timeout', '60s'];
const run = (args: string[], more: Record<string, string> = {}) => agentplaneDone(args, env(more));
const json = (text: string) => JSON.parse(text);

// Several processes per test: the bound only guards against a hang, on a loaded machine too.
describe('through the built CLI', { timeout: 120_000 }, () => {
  it('a failing build shows its reason from the log and exits 1', async () => {
    const result = await run([
      'deploy',
      'e2e-bad-build',
      '--repo-url',
      'https://github.com/acme/support-agent',
      '--ref',
      'main--bad-deps',
      '--config-path',
      'langgraph.json',
      ...WAIT,
    ]);
    expect(result.code, result.stderr).toBe(1);
    const tail = result.stderr.indexOf('The build log of revision');
    expect(tail).toBeGreaterThan(0);
    const why = result.stderr.indexOf('ERROR: Could not find a version that satisfies the requirement langchain-openai==9.9.9');
    expect(why).toBeGreaterThan(tail);
    expect(result.stderr.indexOf('CRITICAL Installing dependencies failed (exit code 1)')).toBeGreaterThan(why);
    expect(result.stderr.indexOf('error: revision')).toBeGreaterThan(why);
    expect(result.stderr).toMatch(/ended as BUILD_FAILED/);
  });

  it('`logs --follow` prints the lines as they come and ends with the revision: exit 0 when DEPLOYED, 1 when it failed', async () => {
    const submitted = json((await run(['deploy', 'e2e-follow', '--image', 'registry.test/app:1', '--no-wait', '--json'])).stdout);
    const followed = await run(['logs', 'e2e-follow', '--follow', ...WAIT]);
    expect(followed.code, followed.stderr).toBe(0);
    const lines = followed.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(new RegExp(`deploy Revision ${submitted.revision.id} is serving traffic$`));
    expect(new Set(lines).size).toBe(lines.length);
    expect(followed.stderr).toContain(`e2e-follow: revision ${submitted.revision.id} is DEPLOYED and serving`);

    await run(['deploy', 'e2e-follow-fail', '--image', 'registry.test/app:1--deploy-failed', '--no-wait']);
    const failed = await run(['logs', 'e2e-follow-fail', '--follow', ...WAIT]);
    expect(failed.code).toBe(1);
    expect(failed.stdout.trimEnd().split('\n').at(-1)).toMatch(/ERROR {4}deploy Rollout failed: the revision never served traffic$/);
  });

  it('rollback returns the previous image to service, and `status` shows it active', async () => {
    expect((await run(['deploy', 'e2e-rollback', '--image', 'registry.test/app:1.0', ...WAIT])).code).toBe(0);
    expect((await run(['deploy', 'e2e-rollback', '--image', 'registry.test/app:1.1', ...WAIT])).code).toBe(0);
    const rolled = await run(['rollback', 'e2e-rollback', ...WAIT, '--json']);
    expect(rolled.code, rolled.stderr).toBe(0);
    const doc = json(rolled.stdout);
    expect(doc.revision).toMatchObject({ status: 'DEPLOYED', source_revision_config: { image_uri: 'registry.test/app:1.0' } });
    const status = await run(['status', 'e2e-rollback']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/image +registry\.test\/app:1\.0\n/);
    expect(status.stdout).toContain(`active revision  ${doc.revision.id}\n`);
  });

  it('preview: create, update (the same deployment, a new revision), delete, and delete again (exit 0)', async () => {
    expect((await run(['deploy', 'e2e-origin', '--image', 'registry.test/app:1', '--secret', 'OPENAI_API_KEY=sk-1', ...WAIT])).code).toBe(
      0,
    );
    const secrets = { OPENAI_API_KEY: 'sk-preview' };
    const url = 'https://e2e-origin-pr-5.preview.example.com';
    const created = await run(
      ['preview', 'e2e-origin', '--pr', '5', '--image', 'registry.test/app:pr-5-a', '--custom-url', url, ...WAIT],
      secrets,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(
      new RegExp(`^preview  e2e-origin-pr-5\\nid       [0-9a-f-]{36}\\nurl      ${url.replace(/\./g, '\\.')}\\n$`, 'm'),
    );
    const updated = await run(['preview', 'e2e-origin', '--pr', '5', '--image', 'registry.test/app:pr-5-b', ...WAIT, '--json'], secrets);
    expect(updated.code, updated.stderr).toBe(0);
    const doc = json(updated.stdout);
    expect(doc.created).toBe(false);
    expect(doc.preview).toMatchObject({ name: 'e2e-origin-pr-5', url });
    expect(created.stdout).toContain(`id       ${doc.deployment.id}\n`);
    expect(doc.revision.source_revision_config.image_uri).toBe('registry.test/app:pr-5-b');
    const revisions = json((await run(['revisions', 'e2e-origin-pr-5', '--json'])).stdout).revisions;
    expect(revisions.map((r: { id: string }) => r.id)).toHaveLength(2);

    const deleted = await run(['preview', 'delete', 'e2e-origin', '--pr', '5']);
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted preview e2e-origin-pr-5 (${doc.deployment.id}) and its revisions.\n` });
    const again = await run(['preview', 'delete', 'e2e-origin', '--pr', '5']);
    expect(again).toMatchObject({ code: 0, stdout: 'No preview e2e-origin-pr-5: nothing to delete.\n' });
    expect((await run(['status', 'e2e-origin-pr-5'])).code).toBe(4);
  });

  it('two preview runs for the same pull request at once make one deployment', async () => {
    expect((await run(['deploy', 'e2e-race', '--image', 'registry.test/app:1', ...WAIT])).code).toBe(0);
    const both = [1, 2].map(() => agentplane(['preview', 'e2e-race', '--pr', '9', ...WAIT], env()));
    const codes = await Promise.all(both.map((p) => p.code));
    // The later run's revision may supersede the earlier one's (exit 1, SKIPPED); one deploys.
    expect(
      codes.every((code) => code === 0 || code === 1),
      both.map((p) => p.stderr()).join('\n'),
    ).toBe(true);
    expect(codes).toContain(0);
    const listed = json((await run(['preview', 'list', 'e2e-race', '--json'])).stdout);
    expect(listed.previews.map((p: { deployment: Deployment }) => p.deployment.name)).toEqual(['e2e-race-pr-9']);
  });
});
