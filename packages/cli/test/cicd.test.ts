// The CLI's CI/CD commands against the real emulator in process (support/control-plane.ts: each
// revision poll moves the clock one status): a failed revision's log tail, --logs, `logs`,
// `rollback`, `redeploy` and `preview` (create, update, delete, list, two at once), with the
// requests each sends and the values it must never print.
import type { Deployment } from '@agentplane/control-plane';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/index.js';
import { cli } from './support/cli.js';
import { testControlPlane } from './support/control-plane.js';

function setup(env: Record<string, string> = {}) {
  const server = testControlPlane();
  const run = (args: string[]) =>
    cli(args, {
      env: { AGENTPLANE_BASE_URL: server.baseUrl, AGENTPLANE_API_KEY: server.apiKey, CI: 'true', ...env },
      fetch: server.fetch,
    });
  return { server, run };
}

const fast = ['--interval', '1ms', '--timeout', '30s'];
const GIT = ['--repo-url', 'https://github.com/acme/support-agent', '--config-path', 'langgraph.json'];
const container = (name: string, image: string, extra: object = {}) =>
  ({ name, source: 'external_container', source_revision_config: { image_uri: image }, ...extra }) as const;
const parse = (stdout: string) => JSON.parse(stdout);
/** The lines of `text` that are log lines (a timestamp first), without the leading indentation. */
const logLines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^\d{4}-\d\d-\d\dT/.test(line));

describe('a failed revision shows why', () => {
  it('deploy prints the end of the build log (the reason the config gives) before the error, and exits 1', async () => {
    const { run } = setup();
    const result = await run(['deploy', 'support-agent', ...GIT, '--ref', 'main--bad-deps', ...fast, '--json']);
    expect(result.code).toBe(EXIT.FAILED);
    const tail = result.stderr.indexOf('The build log of revision');
    expect(tail).toBeGreaterThan(0);
    expect(tail).toBeLessThan(result.stderr.indexOf('error: revision'));
    const lines = logLines(result.stderr.slice(tail));
    expect(lines.slice(-3)).toEqual([
      expect.stringMatching(/ERROR {4}ERROR: Could not find a version that satisfies the requirement langchain-openai==9\.9\.9$/),
      expect.stringMatching(/CRITICAL Installing dependencies failed \(exit code 1\)$/),
      expect.stringMatching(/ERROR {4}Build failed: see the errors above$/),
    ]);
    expect(result.stderr).toMatch(
      /hint: the image build failed: its build log says why\..* agentplane logs support-agent --revision [0-9a-f-]{36} --type build\./,
    );
    const doc = parse(result.stdout);
    expect(doc.revision.status).toBe('BUILD_FAILED');
    expect(doc.log_tail.type).toBe('build');
    expect(doc.log_tail.entries.at(-1)).toMatchObject({ level: 'ERROR', message: 'Build failed: see the errors above' });
  });

  it('masks the values of --secret flags in every log line it prints, the tail and --logs alike', async () => {
    const { run } = setup({ OPENAI_API_KEY: 'sk-test-4242-leak' });
    for (const extra of [[], ['--logs']]) {
      const result = await run([
        'deploy',
        `leaky-${extra.length}`,
        '--image',
        'r/app:1--leaky-crash',
        '--secret',
        'OPENAI_API_KEY',
        ...extra,
        ...fast,
      ]);
      expect(result.code).toBe(EXIT.FAILED);
      expect(result.stderr).toContain('Start-up failed: OPENAI_API_KEY=*** was refused');
      expect(result.stderr + result.stdout).not.toContain('sk-test-4242-leak');
    }
  });

  it('--logs prints every line of both logs once, in order, between the status lines; the tail is then not repeated', async () => {
    const { server, run } = setup();
    const result = await run(['deploy', 'support-agent', ...GIT, '--ref', 'main', '--logs', ...fast]);
    expect(result.code, result.stderr).toBe(0);
    const deployment = (await server.byName('support-agent'))!;
    const whole = await cli(['logs', 'support-agent', '--json'], {
      env: { AGENTPLANE_BASE_URL: server.baseUrl, AGENTPLANE_API_KEY: server.apiKey },
      fetch: server.fetch,
    });
    const { logs } = parse(whole.stdout);
    const expected = [...logs.build.map((e: any) => ['build', e]), ...logs.deploy.map((e: any) => ['deploy', e])].map(
      ([type, e]) => `${e.timestamp}  ${e.level.padEnd(8)} ${type.padEnd(6)} ${e.message}`,
    );
    expect(logLines(result.stderr)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(15);
    // Status lines and log lines interleave: the build's lines come before the DEPLOYING status line.
    expect(result.stderr.indexOf('Build finished')).toBeLessThan(result.stderr.indexOf('DEPLOYING'));
    expect(deployment.latest_revision_id).toBe(parse(whole.stdout).revision.id);

    const failed = await run(['deploy', 'support-agent', '--ref', 'x--bad-deps', '--logs', ...fast]);
    expect(failed.code).toBe(EXIT.FAILED);
    expect(failed.stderr).not.toContain('log of revision'); // streamed already
    expect(logLines(failed.stderr).filter((l) => l.includes('Build failed: see the errors above'))).toHaveLength(1);
  });

  it('--logs needs an API key: with a tenant ID only, a usage error before any request', async () => {
    const server = testControlPlane();
    const deployment = await server.seed(container('billing', 'r/app:1'));
    const result = await cli(['wait', deployment.id, deployment.latest_revision_id, '--logs'], {
      env: { AGENTPLANE_BASE_URL: server.baseUrl, AGENTPLANE_TENANT_ID: 'tenant-ci' },
      fetch: server.fetch,
    });
    expect(result.code).toBe(EXIT.USAGE);
    expect(result.stderr).toContain('--logs needs an API key');
    expect(server.requests).toEqual([]);
  });
});

describe('agentplane logs', () => {
  it('prints both logs, build first with the log named, or one with --type; exit 0 whatever the status', async () => {
    const { server, run } = setup();
    const deployment = await server.seed(container('billing', 'r/app:1--deploy-failed'));
    const early = await run(['logs', 'billing']);
    expect(early.code).toBe(0);
    expect(early.stderr).toContain(`Revision ${deployment.latest_revision_id} of billing is QUEUED`);
    expect(await run(['wait', 'billing', ...fast])).toMatchObject({ code: EXIT.FAILED });

    const both = await run(['logs', 'billing']);
    expect(both.code).toBe(0);
    expect(both.stdout.split('\n')[0]).toMatch(/ INFO {5}deploy Rollout queued: waiting for a deployer$/);
    expect(both.stdout).toContain('Health check failed: GET /ok was not answered within 120s');
    const deployOnly = await run(['logs', 'billing', '--type', 'deploy', '--revision', deployment.latest_revision_id]);
    expect(deployOnly.stdout).toMatch(/ ERROR {4}Rollout failed: the revision never served traffic\n$/);
    expect(deployOnly.stdout).not.toMatch(/ deploy /);
    const build = await run(['logs', 'billing', '--type', 'BUILD', '--json']);
    expect(parse(build.stdout)).toMatchObject({ revision: { status: 'DEPLOY_FAILED' }, logs: { build: [] } });
    expect(Object.keys(parse(build.stdout).logs)).toEqual(['build']);
  });

  it('--follow prints each line once as it is written and ends with the revision: 0 when DEPLOYED, 1 when it fails', async () => {
    const { server, run } = setup();
    await server.seed(container('billing', 'r/app:1'));
    const ok = await run(['logs', 'billing', '--follow', ...fast]);
    expect(ok.code, ok.stderr).toBe(0);
    const lines = ok.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/deploy Revision [0-9a-f-]{36} is serving traffic$/);
    expect(new Set(lines).size).toBe(lines.length);
    expect(ok.stderr).toMatch(/billing: revision [0-9a-f-]{36} is DEPLOYED and serving/);

    await server.seed(container('broken', 'r/app:1--interrupted'));
    const failed = await run(['logs', 'broken', '--follow', '--type', 'deploy', ...fast, '--json']);
    expect(failed.code).toBe(EXIT.FAILED);
    const doc = parse(failed.stdout);
    expect(doc.logs.deploy.at(-1).message).toBe('Rollout interrupted before the revision served traffic');
    expect(doc.error.message).toMatch(/ended as INTERRUPTED/);
  });

  it.each([
    [['logs', 'billing', '--type', 'runtime'], /--type "runtime" is not a log/],
    [['logs', 'billing', '--revision', 'latest'], /--revision "latest" is not a revision ID/],
    [['logs', 'billing', '--follow', '--timeout', 'soon'], /--timeout "soon"/],
  ])('%j is a usage error before any request', async (args, message) => {
    const { server, run } = setup();
    const result = await run(args);
    expect(result.code).toBe(EXIT.USAGE);
    expect(result.stderr).toMatch(message);
    expect(server.requests).toEqual([]);
  });
});

describe('agentplane rollback and redeploy', () => {
  it('rolls back to the revision that served before: one redeploy, the old image serves, status shows it active', async () => {
    const { server, run } = setup();
    expect((await run(['deploy', 'billing', '--image', 'r/app:1.0', ...fast])).code).toBe(0);
    const good = (await server.byName('billing'))!.latest_revision_id;
    expect((await run(['deploy', 'billing', '--image', 'r/app:1.1', ...fast])).code).toBe(0);
    const writes = server.writes().length;

    const result = await run(['rollback', 'billing', ...fast, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.writes().slice(writes)).toEqual([
      expect.stringMatching(new RegExp(`^POST /v2/deployments/[0-9a-f-]+/revisions/${good}/redeploy$`)),
    ]);
    const doc = parse(result.stdout);
    expect(doc.rolled_back_to).toMatchObject({ id: good, source_revision_config: { image_uri: 'r/app:1.0' } });
    expect(doc.revision).toMatchObject({ status: 'DEPLOYED', source_revision_config: { image_uri: 'r/app:1.0' } });
    expect(doc.deployment.active_revision_id).toBe(doc.revision.id);
    expect(result.stderr).toContain(`to revision ${good} (image r/app:1.0)`);
    const status = parse((await run(['status', 'billing', '--json'])).stdout);
    expect(status.deployment).toMatchObject({ active_revision_id: doc.revision.id, source_revision_config: { image_uri: 'r/app:1.0' } });

    // Again: back and forth between the last two releases.
    const again = parse((await run(['rollback', 'billing', '--previous', ...fast, '--json'])).stdout);
    expect(again.revision.source_revision_config.image_uri).toBe('r/app:1.1');
  });

  it('rolls back --to a given revision; a git revision is deployed from its image, not built again', async () => {
    const { server, run } = setup();
    expect((await run(['deploy', 'support', ...GIT, '--ref', 'v1', ...fast])).code).toBe(0);
    const first = (await server.byName('support'))!;
    expect((await run(['deploy', 'support', '--ref', 'v2', ...fast])).code).toBe(0);
    const result = await run(['rollback', 'support', '--to', first.latest_revision_id, ...fast]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('BUILDING');
    expect(result.stderr).toMatch(/to revision [0-9a-f-]{36} \(ref v1, commit [0-9a-f]{12}\)/);
  });

  it('exits 4, changing nothing, when there is nothing to roll back to or --to names no revision', async () => {
    const { server, run } = setup();
    await server.seed(container('fresh', 'r/app:1--build-failed'));
    const nothing = await run(['rollback', 'fresh', ...fast]);
    expect(nothing.code).toBe(EXIT.NOT_FOUND);
    expect(nothing.stderr).toContain('nothing to roll back to: no revision of fresh has been DEPLOYED');
    expect((await run(['deploy', 'once', '--image', 'r/app:1', ...fast])).code).toBe(0);
    const only = await run(['rollback', 'once', ...fast]);
    expect(only.code).toBe(EXIT.NOT_FOUND);
    expect(only.stderr).toMatch(
      /nothing to roll back to: revision [0-9a-f-]{36} is serving, and no revision of once was DEPLOYED before it/,
    );
    const unknown = await run(['rollback', 'once', '--to', '0f3e2d1c-4b5a-4c6d-8e7f-9a0b1c2d3e4f', ...fast]);
    expect(unknown.code).toBe(EXIT.NOT_FOUND);
    expect(unknown.stderr).toContain('Revision ID 0f3e2d1c-4b5a-4c6d-8e7f-9a0b1c2d3e4f not found.');
    expect(server.writes().filter((w) => w.includes('redeploy'))).toEqual([]);
    const both = await run(['rollback', 'once', '--to', '0f3e2d1c-4b5a-4c6d-8e7f-9a0b1c2d3e4f', '--previous']);
    expect(both.code).toBe(EXIT.USAGE);
  });

  it('redeploy makes one new revision of the current configuration and waits for it', async () => {
    const { server, run } = setup();
    const deployment = await server.seed(container('billing', 'r/app:latest'));
    const result = await run(['redeploy', 'billing', ...fast, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.writes()).toEqual([`POST /v2/deployments/${deployment.id}/revisions`]);
    const doc = parse(result.stdout);
    expect(doc.revision).toMatchObject({ status: 'DEPLOYED', source_revision_config: { image_uri: 'r/app:latest' } });
    expect(doc.revision.id).not.toBe(deployment.latest_revision_id);
    expect(doc.deployment.latest_revision_id).toBe(doc.revision.id);
  });
});

describe('agentplane preview', () => {
  const origin = (server: ReturnType<typeof testControlPlane>) =>
    server.seed(
      container('billing-agent', 'r/billing:1.0', {
        source_config: {
          deployment_type: 'prod',
          build_on_push: true,
          custom_url: 'https://billing.example.com',
          resource_spec: { min_scale: 2 },
        },
        secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-origin' }],
      }),
    );

  it('creates <name>-pr-<n> from the configuration of <name>, updates it on the next run, deletes it, and deleting again succeeds', async () => {
    const { server, run } = setup({ OPENAI_API_KEY: 'sk-preview' });
    await origin(server);
    const url = 'https://billing-agent-pr-42.preview.example.com';
    const created = await run(['preview', 'billing-agent', '--pr', '42', '--image', 'r/billing:pr-42-a', '--custom-url', url, ...fast]);
    expect(created.code, created.stderr).toBe(0);
    const preview = (await server.byName('billing-agent-pr-42'))!;
    expect(created.stdout).toContain(`preview  billing-agent-pr-42\nid       ${preview.id}\nurl      ${url}\n`);
    const create = server.requests.find((r) => r.method === 'POST' && r.path === '/v2/deployments')!;
    expect(create.body).toEqual({
      name: 'billing-agent-pr-42',
      source: 'external_container',
      source_config: {
        integration_id: null,
        repo_url: null,
        deployment_type: 'prod',
        resource_spec: { min_scale: 2, max_scale: 10, cpu: 2, memory_mb: 4096 },
        build_on_push: false,
        custom_url: url,
      },
      source_revision_config: { image_uri: 'r/billing:pr-42-a' },
      secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-preview' }],
    });

    const updated = await run(['preview', 'billing-agent', '--pr', '42', '--image', 'r/billing:pr-42-b', ...fast, '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    const doc = parse(updated.stdout);
    expect(doc).toMatchObject({
      created: false,
      deployment: { id: preview.id },
      revision: { status: 'DEPLOYED', source_revision_config: { image_uri: 'r/billing:pr-42-b' } },
      preview: { name: 'billing-agent-pr-42', pr: 42, of: 'billing-agent', id: preview.id, url },
    });
    expect(doc.revision.id).not.toBe(preview.latest_revision_id);

    const deleted = await run(['preview', 'delete', 'billing-agent', '--pr', '42']);
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted preview billing-agent-pr-42 (${preview.id}) and its revisions.\n` });
    const again = await run(['preview', 'delete', 'billing-agent', '--pr', '42', '--json']);
    expect(again.code).toBe(0);
    expect(parse(again.stdout)).toEqual({ deleted: null });
    expect(server.writes().filter((w) => w.startsWith('DELETE'))).toEqual([`DELETE /v2/deployments/${preview.id}`]);
  });

  it('two runs for the same pull request at once make one preview', async () => {
    const { server, run } = setup({ OPENAI_API_KEY: 'sk-preview' });
    await origin(server);
    // Hold every create until both runs have looked the name up: both find nothing and both create.
    let lookups = 0;
    let release: () => void = () => {};
    const bothLooked = new Promise<void>((resolve) => (release = resolve));
    server.beforeEach(async (request) => {
      const url = new URL(request.url);
      if (request.method === 'GET' && url.pathname === '/v2/deployments' && url.searchParams.get('name_contains') === 'billing-agent-pr-7')
        if (++lookups === 2) release();
      if (request.method === 'POST' && url.pathname === '/v2/deployments') await bothLooked;
    });
    const runs = await Promise.all([1, 2].map(() => run(['preview', 'billing-agent', '--pr', '7', ...fast])));
    expect(server.writes().filter((w) => w === 'POST /v2/deployments')).toHaveLength(2);
    const list = await run(['preview', 'list', 'billing-agent', '--json']);
    expect(parse(list.stdout).previews.map((p: { deployment: Deployment }) => p.deployment.name)).toEqual(['billing-agent-pr-7']);
    expect(runs.map((r) => r.stderr).join('\n')).toContain('was created meanwhile');
    // The later run's revision superseded the earlier one's: one of them serves.
    expect(runs.some((r) => r.code === 0)).toBe(true);
  });

  it('lists the open previews of <name> by pull request, and nothing else', async () => {
    const { server, run } = setup({ OPENAI_API_KEY: 'sk' });
    await origin(server);
    for (const pr of ['10', '9']) expect((await run(['preview', 'billing-agent', '--pr', pr, '--no-wait'])).code).toBe(0);
    await server.seed(container('billing-agent-prod', 'r/x:1'));
    await server.seed(container('billing-agent-pr-x', 'r/x:1'));
    const table = await run(['preview', 'list', 'billing-agent']);
    expect(table.stdout.split('\n').map((line) => line.split(/\s+/)[0])).toEqual(['PR', '9', '10', '']);
    const none = await run(['preview', 'list', 'support-agent']);
    expect(none.stdout).toBe('support-agent has no open preview.\n');
  });

  it.each([
    [['preview', 'billing-agent', '--image', 'r/x:1'], EXIT.USAGE, /needs --pr <n>/],
    [['preview', 'billing-agent', '--pr', '4x'], EXIT.USAGE, /--pr "4x" is not a pull request number/],
    [['preview', 'b'.repeat(55), '--pr', '123456789'], EXIT.USAGE, /1 to 63 characters/],
    [['preview', 'billing-agent', '--pr', '1', '--image', 'r/x:1', '--ref', 'main'], EXIT.USAGE, /cannot be combined/],
    [
      ['preview', 'billing-agent', '--pr', '1', '--ref', 'main'],
      EXIT.USAGE,
      /runs a container image: --ref and --config-path do not apply/,
    ],
    [
      ['preview', 'billing-agent', '--pr', '1'],
      EXIT.USAGE,
      /the secret OPENAI_API_KEY of billing-agent: the environment variable OPENAI_API_KEY is not set/,
    ],
    [['preview', 'nope', '--pr', '1'], EXIT.NOT_FOUND, /no deployment named "nope"/],
  ])('%j exits %i and changes nothing', async (args, code, message) => {
    const { server, run } = setup();
    await origin(server);
    const result = await run(args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(server.writes()).toEqual([]);
  });
});
