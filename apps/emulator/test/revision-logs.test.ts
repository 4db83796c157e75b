// A revision's build and deploy logs (listRevisionLogs), redeploying a revision, creating a
// revision of the current configuration, and the listing filters, through the real typed client
// with the lifecycle clock moved by hand: lines appear as the status moves and are timed inside
// the status they belong to; a failure says why (from the config's `log` lines or the emulator's
// own); paging by cursor is stable while the log is written; logs are tenant-scoped and never
// hold a secret value.
import type { Deployment, DeploymentCreate, LogLevel, Revision, RevisionLogEntry, RevisionLogType } from '@agentplane/control-plane';
import { isTerminalRevisionStatus } from '@agentplane/control-plane';
import { describe, expect, it } from 'vitest';
import { RevisionStatusSchema } from '../src/generated/control-plane/contract.js';
import { useEmulator } from './support/harness.js';

const STEP = 1000;
const f = useEmulator({
  revisionStepMs: STEP,
  apiKey: 'key-a',
  config: {
    revision_outcomes: [
      {
        match: '*why-build*',
        status: 'BUILD_FAILED',
        log: [
          'ERROR: Could not find a version that satisfies the requirement langchain-openai==9.9.9',
          { level: 'CRITICAL', message: 'Installing dependencies failed (exit code 1)' },
        ],
      },
      { match: '*fail-build*', status: 'BUILD_FAILED' },
      { match: '*fail-deploy*', status: 'DEPLOY_FAILED' },
      { match: '*fail-create*', status: 'CREATE_FAILED' },
      { match: '*interrupt*', status: 'INTERRUPTED' },
      { match: '*warn*', status: 'DEPLOYED', log: [{ level: 'WARNING', message: 'Slow start: 9s to the first health check' }] },
    ],
    tenants: [
      { id: 'tenant-a', api_keys: ['key-a'] },
      { id: 'tenant-b', api_keys: ['key-b'] },
    ],
  },
});

let counter = 0;
const container = (image: string, extra: Partial<DeploymentCreate> = {}): DeploymentCreate => ({
  name: `logs-svc-${++counter}`,
  source: 'external_container',
  source_revision_config: { image_uri: image },
  ...extra,
});
const gitHost = (ref: string): DeploymentCreate => ({
  name: `logs-git-${++counter}`,
  source: 'git_host',
  source_config: { repo_url: 'https://github.com/acme/support-agent', build_on_push: false },
  source_revision_config: { repo_ref: ref, graph_config_path: 'langgraph.json' },
});

async function create(body: DeploymentCreate): Promise<Deployment> {
  const { data, error } = await f.control.POST('/v2/deployments', { body });
  if (!data) throw new Error(JSON.stringify(error));
  return data;
}
async function revision(deploymentId: string, revisionId: string): Promise<Revision> {
  return (
    await f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
      params: { path: { deployment_id: deploymentId, revision_id: revisionId } },
    })
  ).data!;
}
type LogQuery = {
  type: RevisionLogType;
  order?: 'asc' | 'desc';
  limit?: number;
  offset?: string;
  level?: LogLevel;
  query?: string;
  start_time?: string;
  end_time?: string;
};
async function logs(deploymentId: string, revisionId: string, query: LogQuery, as = f.control) {
  return as.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
    params: { path: { deployment_id: deploymentId, revision_id: revisionId }, query },
  });
}
/** The whole log as it is now, one request. */
async function whole(deploymentId: string, revisionId: string, type: RevisionLogType) {
  const { data } = await logs(deploymentId, revisionId, { type, limit: 1000 });
  return data!;
}
const messages = (entries: RevisionLogEntry[]) => entries.map((entry) => entry.message);
/** Moves the clock one step at a time until the revision is terminal; returns the statuses seen with their `updated_at`. */
async function walk(deploymentId: string, revisionId: string) {
  const seen: { status: string; since: string }[] = [];
  for (let i = 0; i < 12; i++) {
    const r = await revision(deploymentId, revisionId);
    if (seen.at(-1)?.status !== r.status) seen.push({ status: r.status, since: r.updated_at });
    if (isTerminalRevisionStatus(r.status)) return seen;
    f.advance(STEP);
  }
  return seen;
}

describe('build and deploy logs', () => {
  it('a git_host build clones, installs and builds as its status moves, each line timed inside its status', async () => {
    const deployment = await create({ ...gitHost('main'), secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-do-not-log-me' }] });
    const id = deployment.latest_revision_id;
    expect((await whole(deployment.id, id, 'build')).logs).toEqual([]); // QUEUED: nothing written yet
    f.advance(STEP);
    expect(messages((await whole(deployment.id, id, 'build')).logs)).toEqual(['Build queued: waiting for a builder']);
    const history = await walk(deployment.id, id);
    expect(history.map((h) => h.status)).toEqual(['AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
    const commit = (await revision(deployment.id, id)).source_revision_config.repo_commit_sha!;

    const build = await whole(deployment.id, id, 'build');
    expect(build.next_offset).toBeNull(); // the phase is over and read to its end
    expect(messages(build.logs)).toEqual([
      'Build queued: waiting for a builder',
      `Builder bld-${id.slice(0, 8)} assigned`,
      'Cloning https://github.com/acme/support-agent at main',
      `Checked out commit ${commit.slice(0, 12)}`,
      'Reading graph configuration langgraph.json',
      'Installing dependencies',
      'Building the image',
      `Built image for commit ${commit.slice(0, 12)}`,
      'Build finished in 2.0s',
    ]);
    const deploy = await whole(deployment.id, id, 'deploy');
    expect(messages(deploy.logs)).toEqual([
      'Rollout queued: waiting for a deployer',
      `Deployer dpl-${id.slice(0, 8)} assigned`,
      `Pulling the image built from commit ${commit.slice(0, 12)}`,
      'Setting 1 secret(s) as environment variables: OPENAI_API_KEY (values hidden)',
      'Starting 1 replica(s): 1 CPU, 1024 MB each',
      'Server started: listening on port 8000',
      'Health check passed: GET /ok answered 200',
      `Revision ${id} is serving traffic`,
    ]);
    // Timestamps agree with the status history: each line within the status it was written in.
    const window = (status: string) => {
      const i = history.findIndex((h) => h.status === status);
      return [Date.parse(history[i]!.since), Date.parse(history[i + 1]?.since ?? '9999-01-01')] as const;
    };
    const within = (entry: RevisionLogEntry, status: string) => {
      const [from, to] = window(status);
      const at = Date.parse(entry.timestamp);
      return at >= from && at < to;
    };
    expect(build.logs.slice(0, 2).every((e) => within(e, 'AWAITING_BUILD'))).toBe(true);
    expect(build.logs.slice(2, 8).every((e) => within(e, 'BUILDING'))).toBe(true);
    expect(within(build.logs[8]!, 'AWAITING_DEPLOY')).toBe(true);
    expect(deploy.logs.slice(2, 7).every((e) => within(e, 'DEPLOYING'))).toBe(true);
    expect(deploy.logs.at(-1)!.timestamp).toBe(history.at(-1)!.since);
    for (const log of [build.logs, deploy.logs]) {
      const times = log.map((e) => Date.parse(e.timestamp));
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
  });

  it("a failed build's log ends with the config's lines saying why, then the failure, timed when it failed; the deploy log stays empty", async () => {
    const deployment = await create(gitHost('release/why-build'));
    const id = deployment.latest_revision_id;
    const history = await walk(deployment.id, id);
    expect(history.at(-1)!.status).toBe('BUILD_FAILED');
    const build = await whole(deployment.id, id, 'build');
    expect(build.logs.slice(-3)).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'ERROR: Could not find a version that satisfies the requirement langchain-openai==9.9.9',
      }),
      expect.objectContaining({ level: 'CRITICAL', message: 'Installing dependencies failed (exit code 1)' }),
      { timestamp: history.at(-1)!.since, level: 'ERROR', message: 'Build failed: see the errors above' },
    ]);
    expect(messages(build.logs)).not.toContain('Building the image');
    expect(await whole(deployment.id, id, 'deploy')).toEqual({ logs: [], next_offset: null });
  });

  it.each([
    [
      'registry.test/app:1-fail-deploy',
      'DEPLOY_FAILED',
      'deploy',
      [
        'Container exited with code 1 during start-up',
        'Health check failed: GET /ok was not answered within 120s',
        'Rollout failed: the revision never served traffic',
      ],
    ],
    [
      'registry.test/app:1-interrupt',
      'INTERRUPTED',
      'deploy',
      ['The deployer restarted during the rollout', 'Rollout interrupted before the revision served traffic'],
    ],
    [
      'registry.test/app:1-fail-build',
      'BUILD_FAILED',
      'build',
      [
        'Resolving image registry.test/app:1-fail-build',
        'Image registry.test/app:1-fail-build was not found in its registry (manifest unknown)',
        'Image check failed: the image cannot be deployed',
      ],
    ],
    [
      'registry.test/app:1-fail-create',
      'CREATE_FAILED',
      'build',
      [
        expect.stringMatching(/^Creating revision /),
        expect.stringMatching(/^The source could not be validated: image registry.test\/app:1-fail-create/),
        'Revision creation failed',
      ],
    ],
  ] as const)(
    "a container revision of %s ends as %s and writes why to its %s log, the one the spec names (x-failure-log), the emulator's own reasons when the config gives none",
    async (image, status, type, tail) => {
      expect(RevisionStatusSchema['x-failure-log'][status]).toBe(type);
      const deployment = await create(container(image));
      const id = deployment.latest_revision_id;
      expect((await walk(deployment.id, id)).at(-1)!.status).toBe(status);
      const log = await whole(deployment.id, id, type);
      expect(messages(log.logs).slice(-tail.length)).toEqual(tail);
      expect(log.logs.at(-1)!.level).toBe('ERROR');
      expect(log.next_offset).toBeNull();
      // The other log says nothing about the failure.
      const other = await whole(deployment.id, id, type === 'build' ? 'deploy' : 'build');
      expect(other.logs.filter((entry) => entry.level === 'ERROR')).toEqual([]);
    },
  );

  it('a container revision is not built: its build log is empty and complete; its deploy log pulls the image it names', async () => {
    const deployment = await create(container('registry.test/app:2-warn'));
    const id = deployment.latest_revision_id;
    expect(await whole(deployment.id, id, 'build')).toEqual({ logs: [], next_offset: null });
    await walk(deployment.id, id);
    const deploy = await whole(deployment.id, id, 'deploy');
    expect(messages(deploy.logs)).toContain('Pulling image registry.test/app:2-warn');
    expect(messages(deploy.logs)).toContain('No secrets to set');
    // A deployed revision's configured lines are written into its rollout too.
    expect(deploy.logs).toContainEqual(expect.objectContaining({ level: 'WARNING', message: 'Slow start: 9s to the first health check' }));
  });

  it('pages stably while the log is written: following with the cursor gets every line once, in order; null only once the phase is over', async () => {
    const deployment = await create(gitHost('main'));
    const id = deployment.latest_revision_id;
    const followed: Record<RevisionLogType, RevisionLogEntry[]> = { build: [], deploy: [] };
    const cursors: Record<RevisionLogType, string | undefined | null> = { build: undefined, deploy: undefined };
    for (let tick = 0; tick < 80 && (cursors.build !== null || cursors.deploy !== null); tick++) {
      for (const type of ['build', 'deploy'] as const) {
        if (cursors[type] === null) continue;
        const { data } = await logs(deployment.id, id, { type, limit: 2, ...(cursors[type] ? { offset: cursors[type]! } : {}) });
        followed[type].push(...data!.logs);
        if (data!.next_offset === null)
          expect(isTerminalRevisionStatus((await revision(deployment.id, id)).status) || type === 'build').toBe(true);
        cursors[type] = data!.next_offset;
      }
      f.advance(STEP / 4);
    }
    expect(cursors).toEqual({ build: null, deploy: null });
    expect(followed.build).toEqual((await whole(deployment.id, id, 'build')).logs);
    expect(followed.deploy).toEqual((await whole(deployment.id, id, 'deploy')).logs);
    expect(followed.deploy).toHaveLength(8);
  });

  it('reads the tail newest first and pages on to older lines; filters by level, text and time', async () => {
    const deployment = await create(container('registry.test/app:3-fail-deploy'));
    const id = deployment.latest_revision_id;
    await walk(deployment.id, id);
    const all = (await whole(deployment.id, id, 'deploy')).logs;
    const tail = await logs(deployment.id, id, { type: 'deploy', order: 'desc', limit: 3 });
    expect(tail.data!.logs).toEqual(all.slice(-3).reverse());
    const older = await logs(deployment.id, id, { type: 'deploy', order: 'desc', limit: 100, offset: tail.data!.next_offset! });
    expect(older.data).toEqual({ logs: all.slice(0, -3).reverse(), next_offset: null });

    const errors = (await logs(deployment.id, id, { type: 'deploy', level: 'WARNING' })).data!.logs;
    expect(errors.length).toBeGreaterThan(0);
    expect(errors).toEqual(all.filter((e) => ['WARNING', 'ERROR', 'CRITICAL'].includes(e.level)));
    expect((await logs(deployment.id, id, { type: 'deploy', level: 'DEBUG' })).data!.logs).toEqual(all);
    expect(messages((await logs(deployment.id, id, { type: 'deploy', query: 'HEALTH CHECK' })).data!.logs)).toEqual([
      'Health check failed: GET /ok was not answered within 120s',
    ]);
    const middle = all[3]!.timestamp;
    const window = (await logs(deployment.id, id, { type: 'deploy', start_time: middle, end_time: all.at(-1)!.timestamp })).data!.logs;
    expect(window).toEqual(all.filter((e) => e.timestamp >= middle && e.timestamp < all.at(-1)!.timestamp));
    expect((await logs(deployment.id, id, { type: 'deploy', start_time: middle, end_time: middle })).data!.logs).toEqual([]);
  });

  it('a superseded revision stops writing and says so in the phase it was in; its logs are complete', async () => {
    const deployment = await create(gitHost('main'));
    const first = deployment.latest_revision_id;
    f.advance(2 * STEP + STEP / 2); // BUILDING
    const updated = await f.control.PATCH('/v2/deployments/{deployment_id}', {
      params: { path: { deployment_id: deployment.id } },
      body: { source_revision_config: { repo_ref: 'develop' } },
    });
    expect(updated.data!.latest_revision_id).not.toBe(first);
    f.advance(10 * STEP);
    const skipped = await revision(deployment.id, first);
    expect(skipped.status).toBe('SKIPPED');
    const build = await whole(deployment.id, first, 'build');
    expect(build.next_offset).toBeNull();
    expect(build.logs.at(-1)).toEqual({
      timestamp: skipped.updated_at,
      level: 'WARNING',
      message: 'Superseded by a newer revision before it finished: stopped',
    });
    expect(messages(build.logs)).not.toContain('Building the image'); // timed after it was stopped
    expect(await whole(deployment.id, first, 'deploy')).toEqual({ logs: [], next_offset: null });
  });

  it('never writes a secret value, and is scoped to the tenant; an unknown revision is a 404', async () => {
    const value = 'sk-live-7f3a9c2e1b';
    const deployment = await create(container('registry.test/app:4', { secrets: [{ name: 'STRIPE_KEY', value }] }));
    const id = deployment.latest_revision_id;
    await walk(deployment.id, id);
    const text = JSON.stringify([await whole(deployment.id, id, 'build'), await whole(deployment.id, id, 'deploy')]);
    expect(text).toContain('STRIPE_KEY');
    expect(text).not.toContain(value);

    const other = await logs(deployment.id, id, { type: 'build' }, f.controlAs('key-b'));
    expect(other.response.status).toBe(404);
    expect(other.error).toEqual({ detail: `Deployment ID ${deployment.id} not found.` });
    const unknown = '0f3e2d1c-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
    expect((await logs(deployment.id, unknown, { type: 'build' })).error).toEqual({ detail: `Revision ID ${unknown} not found.` });
  });

  it('refuses a missing type and an offset that is not a cursor of this order with 422 naming the parameter', async () => {
    const deployment = await create(container('registry.test/app:5'));
    const id = deployment.latest_revision_id;
    const url = `${f.emulator.controlPlaneUrl}/v2/deployments/${deployment.id}/revisions/${id}/logs`;
    const get = async (query: string) => {
      const response = await fetch(`${url}?${query}`, { headers: { 'X-Api-Key': 'key-a' } });
      return { status: response.status, body: await response.json() };
    };
    expect(await get('')).toEqual({ status: 422, body: { detail: [{ loc: ['query', 'type'], msg: 'Field required', type: 'missing' }] } });
    const cursorIssue = {
      loc: ['query', 'offset'],
      msg: 'Not a log cursor of this order: pass the next_offset of an earlier answer with the same order, or no offset',
      type: 'value_error',
    };
    f.advance(10 * STEP);
    const asc = (await logs(deployment.id, id, { type: 'deploy', limit: 1 })).data!.next_offset!;
    const desc = (await logs(deployment.id, id, { type: 'deploy', order: 'desc', limit: 1 })).data!.next_offset!;
    for (const query of [
      'type=deploy&offset=12',
      `type=deploy&offset=${asc}=`,
      `type=deploy&order=desc&offset=${asc}`,
      `type=deploy&offset=${desc}`,
    ]) {
      expect(await get(query), query).toEqual({ status: 422, body: { detail: [cursorIssue] } });
    }
    expect((await get(`type=deploy&offset=${asc}`)).status).toBe(200);
  });
});

describe('redeploying a revision and creating a revision of the current configuration', () => {
  it('rolls a container deployment back to an earlier image without a build; the new revision serves once DEPLOYED', async () => {
    const deployment = await create(container('registry.test/app:1.0.0'));
    const good = deployment.latest_revision_id;
    await walk(deployment.id, good);
    const bad = (
      await f.control.PATCH('/v2/deployments/{deployment_id}', {
        params: { path: { deployment_id: deployment.id } },
        body: { source_revision_config: { image_uri: 'registry.test/app:1.1.0' } },
      })
    ).data!.latest_revision_id;
    await walk(deployment.id, bad);
    const rolled = await f.control.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
      params: { path: { deployment_id: deployment.id, revision_id: good } },
    });
    expect(rolled.response.status).toBe(200);
    const back = rolled.data!;
    expect(back.latest_revision_id).not.toBe(good);
    expect(back.active_revision_id).toBe(bad); // until the new revision is deployed
    expect(back.source_revision_config.image_uri).toBe('registry.test/app:1.0.0');
    expect((await walk(back.id, back.latest_revision_id)).map((h) => h.status)).toEqual([
      'QUEUED',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
    const after = (await f.control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } })).data!;
    expect(after.active_revision_id).toBe(back.latest_revision_id);
    expect(await whole(deployment.id, back.latest_revision_id, 'build')).toEqual({ logs: [], next_offset: null });
  });

  it('redeploys a built git revision from its image (same commit at once, no build), and builds one that never got an image', async () => {
    const deployment = await create(gitHost('main'));
    const built = deployment.latest_revision_id;
    await walk(deployment.id, built);
    const commit = (await revision(deployment.id, built)).source_revision_config.repo_commit_sha;
    const again = (
      await f.control.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
        params: { path: { deployment_id: deployment.id, revision_id: built } },
      })
    ).data!;
    const first = await revision(deployment.id, again.latest_revision_id);
    expect(first).toMatchObject({ status: 'QUEUED', source_revision_config: { repo_ref: 'main', repo_commit_sha: commit } });
    expect((await walk(deployment.id, first.id)).map((h) => h.status)).toEqual(['QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
    expect(messages((await whole(deployment.id, first.id, 'build')).logs)).toEqual([
      `No build: deploying the image revision ${built} built (commit ${commit!.slice(0, 12)})`,
    ]);

    const failing = (
      await f.control.PATCH('/v2/deployments/{deployment_id}', {
        params: { path: { deployment_id: deployment.id } },
        body: { source_revision_config: { repo_ref: 'feature/fail-build' } },
      })
    ).data!.latest_revision_id;
    await walk(deployment.id, failing);
    const retried = (
      await f.control.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
        params: { path: { deployment_id: deployment.id, revision_id: failing } },
      })
    ).data!;
    expect((await walk(deployment.id, retried.latest_revision_id)).map((h) => h.status)).toEqual([
      'QUEUED',
      'AWAITING_BUILD',
      'BUILDING',
      'BUILD_FAILED',
    ]);
  });

  it('creates a revision of the current configuration (201): the latest, a new build of a branch with a new commit; it supersedes one in progress', async () => {
    const deployment = await create(gitHost('main'));
    await walk(deployment.id, deployment.latest_revision_id);
    const before = (await revision(deployment.id, deployment.latest_revision_id)).source_revision_config.repo_commit_sha;
    const created = await f.control.POST('/v2/deployments/{deployment_id}/revisions', {
      params: { path: { deployment_id: deployment.id } },
    });
    expect(created.response.status).toBe(201);
    const next = created.data!;
    expect(next).toMatchObject({
      status: 'QUEUED',
      source: 'git_host',
      source_revision_config: { repo_ref: 'main', repo_commit_sha: null },
    });
    const now = (await f.control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } })).data!;
    expect(now.latest_revision_id).toBe(next.id);
    expect(now.updated_at).toBe(next.created_at);
    const third = (
      await f.control.POST('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: deployment.id } } })
    ).data!;
    expect((await revision(deployment.id, next.id)).status).toBe('SKIPPED');
    await walk(deployment.id, third.id);
    const after = (await revision(deployment.id, third.id)).source_revision_config.repo_commit_sha;
    expect(after).toMatch(/^[0-9a-f]{40}$/);
    expect(after).not.toBe(before); // the branch head was built again
  });

  it("404s an unknown deployment or revision, and another tenant's", async () => {
    const deployment = await create(container('registry.test/app:6'));
    const unknown = '0f3e2d1c-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
    const redeploy = (deploymentId: string, revisionId: string, as = f.control) =>
      as.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
        params: { path: { deployment_id: deploymentId, revision_id: revisionId } },
      });
    expect((await redeploy(deployment.id, unknown)).error).toEqual({ detail: `Revision ID ${unknown} not found.` });
    expect((await redeploy(unknown, unknown)).error).toEqual({ detail: `Deployment ID ${unknown} not found.` });
    expect((await redeploy(deployment.id, deployment.latest_revision_id, f.controlAs('key-b'))).response.status).toBe(404);
    const create404 = await f
      .controlAs('key-b')
      .POST('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: deployment.id } } });
    expect(create404.error).toEqual({ detail: `Deployment ID ${deployment.id} not found.` });
    // Nothing was created by the refused requests.
    const revisions = await f.control.GET('/v2/deployments/{deployment_id}/revisions', {
      params: { path: { deployment_id: deployment.id } },
    });
    expect(revisions.data!.resources.map((r) => r.id)).toEqual([deployment.latest_revision_id]);
  });
});

describe('listing filters', () => {
  it('lists deployments by the status of their latest revision and by IDs, combined with the other filters', async () => {
    const ok = await create(container('registry.test/filters:1'));
    f.advance(1); // newest first is by creation time: one after the other
    const failed = await create(container('registry.test/filters:1-fail-deploy'));
    f.advance(10 * STEP);
    const list = async (query: { status?: 'DEPLOYED' | 'DEPLOY_FAILED'; deployment_ids?: string; name_contains?: string }) =>
      (await f.control.GET('/v2/deployments', { params: { query: { limit: 100, ...query } } })).data!.resources.map((d) => d.id);
    expect(await list({ deployment_ids: `${failed.id},${ok.id.toUpperCase()}` })).toEqual([failed.id, ok.id]);
    expect(await list({ deployment_ids: failed.id, status: 'DEPLOYED' })).toEqual([]);
    expect(await list({ deployment_ids: `${failed.id},${ok.id}`, status: 'DEPLOY_FAILED' })).toEqual([failed.id]);
    expect(await list({ status: 'DEPLOY_FAILED', name_contains: failed.name })).toEqual([failed.id]);
    expect(await list({ deployment_ids: '0f3e2d1c-4b5a-4c6d-8e7f-9a0b1c2d3e4f' })).toEqual([]);
    const bad = await f.control.GET('/v2/deployments', { params: { query: { deployment_ids: `${ok.id}, ${failed.id}` } } });
    expect(bad.response.status).toBe(422);
    expect((bad.error as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['query', 'deployment_ids']);
  });
});
