// The control plane's rules and the revision lifecycle simulator, through the real typed client:
// tenants and credentials, deployments (create/get/patch and every rule of decisions C3–C5), revisions
// walking to their configured outcome, supersession, active_revision_id, pools and providers.
import type { DeploymentCreate, HTTPValidationError, RevisionStatus } from '@agentplane/control-plane';
import { createDeploymentAndWait, isTerminalRevisionStatus, RevisionFailedError, waitForRevision } from '@agentplane/control-plane';
import { describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.js';

const STEP = 1000;
const f = useEmulator({
  revisionStepMs: STEP,
  apiKey: 'key-a',
  config: {
    revision_outcomes: [
      { match: '*fail-build*', status: 'BUILD_FAILED' },
      { match: '*fail-deploy*', status: 'DEPLOY_FAILED' },
      { match: '*fail-create*', status: 'CREATE_FAILED' },
      { match: 'refs/tags/interrupt-?', status: 'INTERRUPTED' },
    ],
    tenants: [
      {
        id: 'tenant-a',
        api_keys: ['key-a'],
        bearer_tokens: ['token-a'],
        oauth_providers: [
          {
            provider_id: 'github',
            name: 'GitHub',
            client_id: 'Iv1.a',
            auth_url: 'https://github.com/login/oauth/authorize',
            token_url: 'https://github.com/login/oauth/access_token',
          },
        ],
        sandbox_pools: [{ name: 'python-pool', template_name: 'python-3-12', replicas: 2 }],
      },
      { id: 'tenant-b', api_keys: ['key-b'], sandbox_pools: [{ name: 'node-pool', template_name: 'node-22', replicas: 0 }] },
    ],
  },
});

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}`;
const container = (image: string): DeploymentCreate => ({
  name: uniqueName('svc'),
  source: 'external_container',
  source_revision_config: { image_uri: image },
});
const gitHost = (ref: string): DeploymentCreate => ({
  name: uniqueName('git'),
  source: 'git_host',
  source_config: { repo_url: 'https://github.com/acme/agent', build_on_push: false },
  source_revision_config: { repo_ref: ref, graph_config_path: 'langgraph.json' },
});

async function create(body: DeploymentCreate) {
  const { data, error, response } = await f.control.POST('/v2/deployments', { body });
  if (!data) throw new Error(`create failed: ${response.status} ${JSON.stringify(error)}`);
  return data;
}
async function revisionStatus(deploymentId: string, revisionId: string) {
  const { data } = await f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
    params: { path: { deployment_id: deploymentId, revision_id: revisionId } },
  });
  return data!;
}
/** The statuses a revision shows, one clock step at a time, until terminal. */
async function walk(deploymentId: string, revisionId: string): Promise<RevisionStatus[]> {
  const seen: RevisionStatus[] = [];
  for (let i = 0; i < 12; i++) {
    const { status } = await revisionStatus(deploymentId, revisionId);
    if (seen.at(-1) !== status) seen.push(status);
    if (isTerminalRevisionStatus(status)) return seen;
    f.advance(STEP);
  }
  return seen;
}

describe('credentials and tenants', () => {
  it('401 without a key or with an unknown key; revisions also accept X-Tenant-Id and Bearer', async () => {
    const deployment = await create(container('registry/app:1'));
    const path = { deployment_id: deployment.id, revision_id: deployment.latest_revision_id };
    const url = `${f.emulator.controlPlaneUrl}/v2/deployments/${deployment.id}`;
    expect(await (await fetch(url)).json()).toEqual({ detail: 'Missing X-Api-Key header.' });
    const unknown = await f
      .controlAs('nope')
      .GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } });
    expect(unknown.response.status).toBe(401);
    expect(unknown.error).toEqual({ detail: 'Invalid API key.' });

    const revisionUrl = `${f.emulator.controlPlaneUrl}/v2/deployments/${path.deployment_id}/revisions/${path.revision_id}`;
    for (const headers of [{ 'X-Tenant-Id': 'tenant-a' }, { Authorization: 'Bearer token-a' }, { 'X-Api-Key': 'key-a' }] as Record<
      string,
      string
    >[]) {
      expect((await fetch(revisionUrl, { headers })).status).toBe(200);
    }
    for (const headers of [{ 'X-Tenant-Id': 'tenant-zzz' }, { Authorization: 'Bearer key-b-wrong' }, {}] as Record<string, string>[]) {
      expect((await fetch(revisionUrl, { headers })).status).toBe(401);
    }
    // Tenant B's credentials authenticate, but A's deployment does not exist for B.
    const asB = await fetch(revisionUrl, { headers: { 'X-Tenant-Id': 'tenant-b' } });
    expect(asB.status).toBe(404);
    expect(await asB.json()).toEqual({ detail: `Deployment ID ${deployment.id} not found.` });
  });

  it('scopes deployments, pools and providers to the tenant', async () => {
    const deployment = await create(container('registry/app:1'));
    const b = f.controlAs('key-b');
    expect((await b.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } })).response.status).toBe(
      404,
    );
    expect(
      (await b.PATCH('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } }, body: {} })).response.status,
    ).toBe(404);

    const pool = await f.control.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'python-pool' } } });
    expect(pool.data).toMatchObject({ name: 'python-pool', template_name: 'python-3-12', replicas: 2 });
    const otherPool = await f.control.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'node-pool' } } });
    expect(otherPool.response.status).toBe(404);
    expect(otherPool.error).toEqual({ detail: { error: 'NotFound', message: 'Resource not found.' } });
    expect((await b.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'node-pool' } } })).data).toMatchObject({ replicas: 0 });

    const provider = await f.control.GET('/v2/auth/providers/{provider_id}', { params: { path: { provider_id: 'github' } } });
    expect(provider.data).toMatchObject({
      provider_id: 'github',
      name: 'GitHub',
      organization_id: 'tenant-a',
      uses_pkce: false,
      code_challenge_method: null,
      token_endpoint_auth_method: 'client_secret_post',
      is_dynamic_client: false,
    });
    const missing = await b.GET('/v2/auth/providers/{provider_id}', { params: { path: { provider_id: 'github' } } });
    expect(missing.error).toEqual({ detail: 'OAuth provider github not found.' });
  });
});

describe('deployments', () => {
  it('creates with defaults, returns secret names only, and gets it back', async () => {
    const created = await create({ ...gitHost('main'), secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-secret' }] });
    expect(created).toMatchObject({
      source: 'git_host',
      source_config: {
        repo_url: 'https://github.com/acme/agent',
        deployment_type: 'dev',
        build_on_push: false,
        integration_id: null,
        custom_url: null,
        resource_spec: null,
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json', image_uri: null, repo_commit_sha: null },
      secrets: [{ name: 'OPENAI_API_KEY' }],
      active_revision_id: null,
    });
    expect(JSON.stringify(created)).not.toContain('sk-secret');
    const { data } = await f.control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: created.id } } });
    expect(data).toEqual(created);
  });

  it('refuses what decisions C3–C5 forbid with 422 naming the field', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [
        { name: 'x', source: 'git_host', source_revision_config: { repo_ref: 'main', graph_config_path: 'g.json' } },
        ['body', 'source_config'],
      ],
      [
        { name: 'x', source: 'git_host', source_config: { repo_url: 'u' }, source_revision_config: { repo_ref: 'main' } },
        ['body', 'source_revision_config', 'graph_config_path'],
      ],
      [{ name: 'x', source: 'external_container', source_revision_config: {} }, ['body', 'source_revision_config', 'image_uri']],
      [
        { name: 'x', source: 'external_container', source_revision_config: { image_uri: 'i', repo_ref: 'main' } },
        ['body', 'source_revision_config', 'repo_ref'],
      ],
      [{ ...gitHost('refs/tags/v1'), source_config: { repo_url: 'u', build_on_push: true } }, ['body', 'source_config', 'build_on_push']],
      [
        { ...container('i'), source_revision_config: { image_uri: 'i', repo_commit_sha: 'abc' } },
        ['body', 'source_revision_config', 'repo_commit_sha'],
      ],
      [{ ...container('i'), name: '' }, ['body', 'name']],
      [
        {
          ...container('i'),
          secrets: [
            { name: 'A', value: '1' },
            { name: 'A', value: '2' },
          ],
        },
        ['body', 'secrets', 1, 'name'],
      ],
      [
        { ...container('i'), source_config: { resource_spec: { min_scale: 5, max_scale: 2 } } },
        ['body', 'source_config', 'resource_spec', 'min_scale'],
      ],
    ];
    for (const [body, loc] of cases) {
      const { response, error } = await f.control.POST('/v2/deployments', { body: body as DeploymentCreate });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(
        (error as HTTPValidationError).detail.map((d) => d.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
    const taken = await create(container('i'));
    const duplicate = await f.control.POST('/v2/deployments', { body: { ...container('j'), name: taken.name } });
    expect(duplicate.error!.detail).toEqual([
      { loc: ['body', 'name'], msg: `A deployment named ${taken.name} already exists in this tenant`, type: 'value_error' },
    ]);
  });

  it('PATCH: keeps absent fields, replaces secrets, refuses source changes and fields of the other source', async () => {
    const deployment = await create({
      ...container('registry/app:1'),
      source_config: { custom_url: 'https://a.example', resource_spec: { cpu: 2 } },
      secrets: [{ name: 'A', value: '1' }],
    });
    const path = { deployment_id: deployment.id };
    expect(deployment.source_config.resource_spec).toEqual({ min_scale: 1, max_scale: 1, cpu: 2, memory_mb: 1024 });
    const patched = await f.control.PATCH('/v2/deployments/{deployment_id}', {
      params: { path },
      body: { source_config: { deployment_type: 'prod' }, secrets: [{ name: 'B', value: '2' }] },
    });
    expect(patched.data).toMatchObject({
      source_config: { custom_url: 'https://a.example', deployment_type: 'prod', resource_spec: { cpu: 2 } },
      secrets: [{ name: 'B' }],
      latest_revision_id: deployment.latest_revision_id,
    });
    expect(Date.parse(patched.data!.updated_at)).toBeGreaterThanOrEqual(Date.parse(deployment.updated_at));

    const source = await f.control.PATCH('/v2/deployments/{deployment_id}', { params: { path }, body: { source: 'git_host' } as never });
    expect(source.error).toEqual({ detail: [{ loc: ['body', 'source'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] });
    const wrongField = await f.control.PATCH('/v2/deployments/{deployment_id}', {
      params: { path },
      body: { source_revision_config: { repo_ref: 'main' } },
    });
    expect((wrongField.error as HTTPValidationError).detail[0]!.loc).toEqual(['body', 'source_revision_config', 'repo_ref']);

    const git = await create({ ...gitHost('main'), source_config: { repo_url: 'u', build_on_push: true } });
    const tag = await f.control.PATCH('/v2/deployments/{deployment_id}', {
      params: { path: { deployment_id: git.id } },
      body: { source_revision_config: { repo_ref: 'refs/tags/v2' } },
    });
    expect(tag.response.status).toBe(422);
    expect((tag.error as HTTPValidationError).detail[0]!.loc).toEqual(['body', 'source_revision_config', 'repo_ref']);
    const tagOk = await f.control.PATCH('/v2/deployments/{deployment_id}', {
      params: { path: { deployment_id: git.id } },
      body: { source_config: { build_on_push: false }, source_revision_config: { repo_ref: 'refs/tags/v2' } },
    });
    expect(tagOk.data!.source_revision_config.repo_ref).toBe('refs/tags/v2');
    expect(tagOk.data!.source_revision_config.graph_config_path).toBe('langgraph.json');
  });
});

describe('revision lifecycle', () => {
  it('git_host walks QUEUED → … → DEPLOYED; the commit appears once it builds; active follows', async () => {
    const deployment = await create(gitHost('main'));
    const revision = deployment.latest_revision_id;
    expect(await walk(deployment.id, revision)).toEqual([
      'QUEUED',
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
    const { data } = await f.control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } });
    expect(data!.active_revision_id).toBe(revision);
    expect(data!.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('external_container skips the build states', async () => {
    const deployment = await create(container('registry/app:1'));
    expect(await walk(deployment.id, deployment.latest_revision_id)).toEqual(['QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
  });

  it.each([
    ['registry/app:fail-build-1', 'external', ['QUEUED', 'BUILD_FAILED']],
    ['fail-build', 'git', ['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'BUILD_FAILED']],
    ['registry/app:fail-deploy', 'external', ['QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOY_FAILED']],
    ['registry/fail-create', 'external', ['CREATING', 'CREATE_FAILED']],
    ['refs/tags/interrupt-1', 'git', ['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'INTERRUPTED']],
  ] as const)('config outcome: %s (%s) walks to its failure', async (value, kind, expected) => {
    const deployment = await create(kind === 'git' ? gitHost(value) : container(value));
    expect(await walk(deployment.id, deployment.latest_revision_id)).toEqual(expected);
    const { data } = await f.control.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } });
    expect(data!.active_revision_id).toBeNull();
  });

  it('a newer revision supersedes an unfinished one (SKIPPED); active stays on the last DEPLOYED', async () => {
    const deployment = await create(container('registry/app:1'));
    const first = deployment.latest_revision_id;
    await walk(deployment.id, first);
    const path = { deployment_id: deployment.id };
    const second = (
      await f.control.PATCH('/v2/deployments/{deployment_id}', {
        params: { path },
        body: { source_revision_config: { image_uri: 'registry/app:2' } },
      })
    ).data!;
    expect(second.latest_revision_id).not.toBe(first);
    expect(second.active_revision_id).toBe(first);
    expect(second.source_revision_config.image_uri).toBe('registry/app:2');
    f.advance(STEP);
    const third = (
      await f.control.PATCH('/v2/deployments/{deployment_id}', {
        params: { path },
        body: { source_revision_config: { image_uri: 'registry/app:fail-deploy' } },
      })
    ).data!;
    expect(await revisionStatus(deployment.id, second.latest_revision_id)).toMatchObject({ status: 'SKIPPED' });
    expect(await walk(deployment.id, third.latest_revision_id)).toContain('DEPLOY_FAILED');
    expect((await revisionStatus(deployment.id, first)).status).toBe('DEPLOYED');
    const { data } = await f.control.GET('/v2/deployments/{deployment_id}', { params: { path } });
    expect(data).toMatchObject({ latest_revision_id: third.latest_revision_id, active_revision_id: first });
  });

  it('404s a revision of another deployment and a missing one', async () => {
    const a = await create(container('registry/a:1'));
    const b = await create(container('registry/b:1'));
    const cross = await f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
      params: { path: { deployment_id: a.id, revision_id: b.latest_revision_id } },
    });
    expect(cross.error).toEqual({ detail: `Revision ID ${b.latest_revision_id} not found.` });
  });

  it('drives the client package helpers end to end (createDeploymentAndWait, waitForRevision failure)', async () => {
    const ticker = setInterval(() => f.advance(STEP), 5);
    try {
      const { deployment, revision } = await createDeploymentAndWait(f.control, container('registry/app:ok'), {
        intervalMs: 10,
        timeoutMs: 10_000,
      });
      expect(revision.status).toBe('DEPLOYED');
      expect(revision.id).toBe(deployment.latest_revision_id);
      const failing = await create(container('registry/app:fail-build'));
      const error = await waitForRevision(f.control, {
        deploymentId: failing.id,
        revisionId: failing.latest_revision_id,
        intervalMs: 10,
        timeoutMs: 10_000,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RevisionFailedError);
      expect((error as RevisionFailedError).revision.status).toBe('BUILD_FAILED');
    } finally {
      clearInterval(ticker);
    }
  });
});

describe('listing and deleting', () => {
  it('lists the tenant deployments newest first, filters by name case-insensitively, pages with offset echoed', async () => {
    const prefix = `Listing${crypto.randomUUID().slice(0, 6)}`;
    const made = [];
    for (let i = 0; i < 5; i++) {
      f.advance(1); // the fixture's clock stands still: give each deployment its own created_at
      made.push(await create({ ...container('registry/app:1'), name: `${prefix.toLowerCase()}-${i}` }));
    }
    const page = async (query: { name_contains?: string; limit?: number; offset?: number }) =>
      (await f.control.GET('/v2/deployments', { params: { query } })).data!;
    const all = await page({ name_contains: prefix.toUpperCase(), limit: 100 });
    expect(all.resources.map((d) => d.name)).toEqual(made.map((d) => d.name).reverse());
    expect(all.offset).toBe(0);
    const second = await page({ name_contains: prefix, limit: 2, offset: 2 });
    expect(second).toEqual({ resources: all.resources.slice(2, 4), offset: 2 });
    expect((await page({ name_contains: prefix, offset: 10 })).resources).toEqual([]);
    expect((await f.controlAs('key-b').GET('/v2/deployments', { params: { query: { name_contains: prefix } } })).data!.resources).toEqual(
      [],
    );
  });

  it('lists revisions newest first with the status filter; delete removes the deployment, its revisions and frees the name', async () => {
    const deployment = await create(container('registry/app:1'));
    const path = { deployment_id: deployment.id };
    await walk(deployment.id, deployment.latest_revision_id);
    const second = (
      await f.control.PATCH('/v2/deployments/{deployment_id}', {
        params: { path },
        body: { source_revision_config: { image_uri: 'registry/app:2' } },
      })
    ).data!;
    const revisions = (await f.control.GET('/v2/deployments/{deployment_id}/revisions', { params: { path } })).data!;
    expect(revisions.resources.map((r) => r.id)).toEqual([second.latest_revision_id, deployment.latest_revision_id]);
    const deployed = (await f.control.GET('/v2/deployments/{deployment_id}/revisions', { params: { path, query: { status: 'DEPLOYED' } } }))
      .data!;
    expect(deployed.resources.map((r) => r.id)).toEqual([deployment.latest_revision_id]);

    const removed = await f.control.DELETE('/v2/deployments/{deployment_id}', { params: { path } });
    expect(removed.response.status).toBe(204);
    expect((await f.control.GET('/v2/deployments/{deployment_id}', { params: { path } })).response.status).toBe(404);
    expect(
      (
        await f.control.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
          params: { path: { ...path, revision_id: deployment.latest_revision_id } },
        })
      ).response.status,
    ).toBe(404);
    expect((await f.control.DELETE('/v2/deployments/{deployment_id}', { params: { path } })).response.status).toBe(404);
    expect((await create({ ...container('registry/app:3'), name: deployment.name })).name).toBe(deployment.name);
  });
});
