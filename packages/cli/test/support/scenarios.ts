// The CLI's behaviour as a CI pipeline sees it, written once against a Target, so that the same
// scenarios run against the emulator in process and over HTTP (or any real control plane):
// only the Target changes. Every assertion goes through the CLI's output and the public API.
import { unwrap } from '@agentplane/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from './cli.js';
import { cli } from './cli.js';
import type { Outcome, Target } from './target.js';
import { countByName, targetClient, targetEnv, uniqueName } from './target.js';

export function describeCliScenarios(makeTarget: () => Target | Promise<Target>): void {
  let target: Target;
  beforeAll(async () => {
    target = await makeTarget();
  });
  afterAll(async () => {
    await target?.close?.();
  });

  /** Runs the CLI against the target (CI mode unless told otherwise). */
  const agentplane = (args: string[], options: Parameters<typeof cli>[1] = {}) =>
    cli(args, { env: targetEnv(target, { CI: 'true' }), ...(target.fetch ? { fetch: target.fetch } : {}), ...options });
  const waitFlags = () => ['--interval', target.intervalFlag, '--timeout', target.timeoutFlag];
  const deploy = (name: string, image: string, ...more: string[]) =>
    agentplane(['deploy', name, '--image', image, ...waitFlags(), ...more]);
  const parse = (result: CliResult) => {
    expect(result.stdout.trim().startsWith('{'), `stdout is one JSON document:\n${result.stdout}`).toBe(true);
    return JSON.parse(result.stdout);
  };

  describe('deploy', () => {
    it('creates a new deployment and waits until DEPLOYED (exit 0)', async () => {
      const name = uniqueName('new');
      const result = await deploy(name, target.image('DEPLOYED'));
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^${name}: revision [0-9a-f-]{36} is DEPLOYED and serving`));
      expect(result.stderr).toContain(`Creating deployment ${name} (external_container)`);
      expect(result.stderr).toMatch(/DEPLOYED/);
      expect(await countByName(target, name)).toBe(1);
    });

    it('updates an existing deployment by name: a PATCH of image_uri, a new revision, never a second deployment', async () => {
      const name = uniqueName('existing');
      const first = parse(await deploy(name, target.image('DEPLOYED'), '--json'));
      const image = target.image('DEPLOYED');
      const second = await deploy(name, image, '--json');
      expect(second.code, second.stderr).toBe(0);
      const doc = parse(second);
      expect(doc.created).toBe(false);
      expect(doc.deployment.id).toBe(first.deployment.id);
      expect(doc.deployment.source_revision_config.image_uri).toBe(image);
      expect(doc.revision.id).not.toBe(first.revision.id);
      expect(doc.revision).toMatchObject({ status: 'DEPLOYED', source_revision_config: { image_uri: image } });
      expect(doc.deployment.active_revision_id).toBe(doc.revision.id);
      expect(second.stderr).toContain(`Updating deployment ${name}`);
      expect(await countByName(target, name)).toBe(1);
    });

    it('creates from git, then updates repo_ref (a tag deploys with build_on_push false)', async () => {
      const name = uniqueName('git');
      const created = await agentplane([
        'deploy',
        name,
        '--repo-url',
        'https://github.com/acme/support-agent',
        '--ref',
        target.ref('DEPLOYED'),
        '--config-path',
        'langgraph.json',
        ...waitFlags(),
        '--json',
      ]);
      expect(created.code, created.stderr).toBe(0);
      expect(parse(created)).toMatchObject({ created: true, deployment: { source: 'git_host' }, revision: { status: 'DEPLOYED' } });
      const updated = await agentplane(['deploy', name, '--ref', 'refs/tags/v1.4.0', ...waitFlags(), '--json']);
      expect(updated.code, updated.stderr).toBe(0);
      const doc = parse(updated);
      expect(doc).toMatchObject({
        created: false,
        deployment: { source_config: { build_on_push: false }, source_revision_config: { repo_ref: 'refs/tags/v1.4.0' } },
      });
      expect(doc.revision.source_revision_config.repo_ref).toBe('refs/tags/v1.4.0');
      expect(await countByName(target, name)).toBe(1);
    });

    it('is idempotent: the same deploy twice makes one deployment', async () => {
      const name = uniqueName('twice');
      const image = target.image('DEPLOYED');
      expect((await deploy(name, image)).code).toBe(0);
      expect((await deploy(name, image)).code).toBe(0);
      expect(await countByName(target, name)).toBe(1);
    });

    it.each<[Outcome, RegExp]>([
      ['CREATE_FAILED', /could not create the revision/],
      ['BUILD_FAILED', /build failed/],
      ['DEPLOY_FAILED', /rollout failed/],
      ['INTERRUPTED', /stopped before it finished/],
    ])('exits 1 when the revision ends as %s, naming the status and a hint', async (outcome, hint) => {
      const name = uniqueName(outcome.toLowerCase().replace('_', '-'));
      const result = await deploy(name, target.image(outcome), '--json');
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`error: revision [0-9a-f-]{36} of ${name} ended as ${outcome}`));
      expect(result.stderr).toMatch(/^hint: /m);
      expect(result.stderr).toMatch(hint);
      const doc = parse(result);
      expect(doc.revision.status).toBe(outcome);
      expect(doc.error).toMatchObject({ exit_code: 1 });
    });

    it('exits 1 when the revision ends as SKIPPED (another deploy superseded it), naming the newer revision', async () => {
      const name = uniqueName('skipped');
      const first = parse(await agentplane(['deploy', name, '--image', target.image('SLOW'), '--no-wait', '--json']));
      const second = parse(await agentplane(['deploy', name, '--image', target.image('DEPLOYED'), '--no-wait', '--json']));
      const result = await agentplane(['wait', name, first.revision.id, ...waitFlags(), '--json']);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`error: revision ${first.revision.id} of ${name} ended as SKIPPED`);
      expect(result.stderr).toContain(
        `hint: a newer revision superseded this one before it was deployed: another deploy ran meanwhile. Follow the newer one: agentplane wait ${name} ${second.revision.id}`,
      );
      expect(parse(result).revision.status).toBe('SKIPPED');
    });

    it('exits 2 when the revision does not finish within --timeout, naming where it stood', async () => {
      const name = uniqueName('slow');
      const result = await agentplane([
        'deploy',
        name,
        '--image',
        target.image('SLOW'),
        '--interval',
        target.intervalFlag,
        '--timeout',
        target.shortTimeoutFlag,
      ]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/error: timed out after \S+: revision [0-9a-f-]{36} of .* is still [A-Z_]+ \(for/);
      expect(result.stderr).toMatch(/hint: .*agentplane wait .* --timeout/);
    });

    it('returns at once with --no-wait (exit 0), the revision still in progress', async () => {
      const name = uniqueName('nowait');
      const result = await agentplane(['deploy', name, '--image', target.image('SLOW'), '--no-wait', '--json']);
      expect(result.code, result.stderr).toBe(0);
      const doc = parse(result);
      expect(doc.created).toBe(true);
      expect(doc.revision.id).toBe(doc.deployment.latest_revision_id);
      expect(['DEPLOYED', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'INTERRUPTED', 'SKIPPED']).not.toContain(doc.revision.status);
    });

    it('prints one JSON document on stdout and nothing else with --json', async () => {
      const result = await deploy(uniqueName('json'), target.image('DEPLOYED'), '--json');
      expect(result.code).toBe(0);
      const doc = parse(result);
      expect(Object.keys(doc).sort()).toEqual(['created', 'deployment', 'revision']);
      expect(doc.revision.status).toBe('DEPLOYED');
      expect(doc.deployment.latest_revision_id).toBe(doc.revision.id);
      expect(result.stdout).toBe(`${JSON.stringify(doc, null, 2)}\n`);
      expect(result.stderr).toContain('DEPLOYED'); // progress went to stderr
    });

    it('stops on SIGINT mid-wait with exit 130, says where the revision stood, and leaves the deployment alone', async () => {
      const name = uniqueName('sigint');
      const submitted = parse(await agentplane(['deploy', name, '--image', target.image('SLOW'), '--no-wait', '--json']));
      const controller = new AbortController();
      let seen: string | undefined;
      const result = await agentplane(['wait', name, '--interval', target.intervalFlag, '--timeout', '1h', '--json'], {
        signal: controller.signal,
        // Interrupt as soon as the wait has reported a status (a CI-mode progress line).
        onStderr: (chunk) => {
          seen ??= /^\s+\d+s {2}([A-Z_]+)/m.exec(chunk)?.[1];
          if (seen) controller.abort();
        },
      });
      expect(result.code).toBe(130);
      expect(result.stderr).toMatch(
        new RegExp(`error: interrupted: stopped waiting\\. Revision ${submitted.revision.id} of ${name} was ${seen} \\(for`),
      );
      expect(result.stderr).toContain(`hint: resume with: agentplane wait ${name} ${submitted.revision.id}`);
      expect(parse(result)).toMatchObject({ revision: { id: submitted.revision.id, status: seen }, error: { exit_code: 130 } });
      // Untouched: the same deployment, with the same latest revision, not updated since.
      const client = targetClient(target);
      const now = unwrap(
        await client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: submitted.deployment.id } } }),
      );
      expect(now.latest_revision_id).toBe(submitted.revision.id);
      expect(now.updated_at).toBe(submitted.deployment.updated_at);
      expect(await countByName(target, name)).toBe(1);
    });
  });

  describe('wait, status, revisions, delete', () => {
    it('waits for the latest revision by name, and for a revision by IDs', async () => {
      const name = uniqueName('wait');
      const submitted = parse(await agentplane(['deploy', name, '--image', target.image('DEPLOYED'), '--no-wait', '--json']));
      const byName = await agentplane(['wait', name, ...waitFlags()]);
      expect(byName.code, byName.stderr).toBe(0);
      expect(byName.stdout).toContain(`revision ${submitted.revision.id} is DEPLOYED`);
      const byIds = await agentplane(['wait', submitted.deployment.id, submitted.revision.id, ...waitFlags(), '--json']);
      expect(byIds.code).toBe(0);
      expect(parse(byIds).revision.status).toBe('DEPLOYED');
    });

    it('shows status and revisions, newest first, then deletes; afterwards the deployment is not found (exit 4)', async () => {
      const name = uniqueName('lifecycle');
      await deploy(name, target.image('DEPLOYED'));
      await deploy(name, target.image('BUILD_FAILED'));
      const status = await agentplane(['status', name, '--json']);
      expect(status.code).toBe(0);
      expect(parse(status).revision.status).toBe('BUILD_FAILED');
      const revisions = parse(await agentplane(['revisions', name, '--json']));
      expect(revisions.revisions.map((r: { status: string }) => r.status)).toEqual(['BUILD_FAILED', 'DEPLOYED']);
      const failed = parse(await agentplane(['revisions', name, '--status', 'build_failed', '--json']));
      expect(failed.revisions).toHaveLength(1);

      const deleted = await agentplane(['delete', name]);
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toContain(`Deleted deployment ${name}`);
      const gone = await agentplane(['status', name]);
      expect(gone.code).toBe(4);
      expect(gone.stderr).toContain(`no deployment named "${name}"`);
      expect(await countByName(target, name)).toBe(0);
    });

    it('exits 4 for a deployment ID that does not exist', async () => {
      const result = await agentplane(['wait', '00000000-0000-4000-8000-000000000000']);
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('Deployment ID 00000000-0000-4000-8000-000000000000 not found.');
      expect(result.stderr).toMatch(/^hint: /m);
    });
  });

  describe('credentials', () => {
    it('exits 3 when the control plane refuses the API key (401), saying what to check', async () => {
      const result = await agentplane(['deploy', uniqueName('badkey'), '--image', target.image('DEPLOYED')], {
        env: targetEnv(target, { CI: 'true', AGENTPLANE_API_KEY: target.invalidApiKey }),
      });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/refused the credentials \(401\)/);
      expect(result.stderr).toMatch(/hint: check --api-key \/ AGENTPLANE_API_KEY/);
    });
  });
}
