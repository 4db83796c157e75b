// Layer (b) for the control plane. Without --allow-writes a run only reads what cannot exist (IDs
// no deployment has, a name no deployment has), because deployments cost money; with it, it
// creates one deployment of its own, follows its revisions and deletes it at the end.
import type { ControlPlaneClient } from '@agentplane/control-plane';
import { isTerminalRevisionStatus } from '@agentplane/control-plane';
import type { Verify } from '../verify.js';
import { answer, short } from './agent-server-session.js';
import type { CheckDefinition } from './check.js';

export interface ControlPlaneSession {
  client: ControlPlaneClient;
  runId: string;
  allowWrites: boolean;
  pollIntervalMs: number;
  revisionTimeoutMs: number;
  sleep(ms: number): Promise<void>;
  /** Deployments this run created and has not deleted. */
  live: Set<string>;
  created: number;
}

type Check = CheckDefinition<ControlPlaneSession> & { writes?: boolean };
const check = (definition: Omit<Check, 'api'>): Check => ({ api: 'control-plane', ...definition });

const UNKNOWN = '0f3e2d1c-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
const detailOf = (error: unknown) => (error as { detail?: unknown } | undefined)?.detail;

/** Creates the run's deployment (a container image that names the run). */
async function createDeployment(s: ControlPlaneSession, v: Verify) {
  const created = await answer(
    s.client.POST('/v2/deployments', {
      body: {
        name: `conformance-${s.runId.slice(0, 8)}-${s.created + 1}`,
        source: 'external_container',
        source_revision_config: { image_uri: `registry.example/agentplane-conformance:${s.runId.slice(0, 8)}` },
      },
    }),
  );
  if (created.data) {
    s.live.add(created.data.id);
    s.created++;
  }
  if (created.status !== 201 || !created.data) return v.stop(`createDeployment answered ${created.status}: ${short(created.error)}`);
  return created.data;
}

async function waitTerminal(s: ControlPlaneSession, v: Verify, deploymentId: string, revisionId: string) {
  const deadline = Date.now() + s.revisionTimeoutMs;
  for (;;) {
    const revision = await answer(
      s.client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
        params: { path: { deployment_id: deploymentId, revision_id: revisionId } },
      }),
    );
    if (!revision.data) return v.stop(`getRevision answered ${revision.status}: ${short(revision.error)}`);
    if (isTerminalRevisionStatus(revision.data.status)) return revision.data;
    if (Date.now() > deadline) return v.stop(`revision ${revisionId} is still ${revision.data.status} after ${s.revisionTimeoutMs} ms`);
    await s.sleep(s.pollIntervalMs);
  }
}

export const CONTROL_PLANE_CHECKS: Check[] = [
  check({
    id: 'deployments:list',
    area: 'deployments',
    title: 'listing deployments by a name no deployment has answers an empty page',
    rule: 'listDeployments: query name_contains, 200 (decision C10)',
    operations: ['listDeployments'],
    async run(s, v) {
      const listed = await answer(
        s.client.GET('/v2/deployments', { params: { query: { name_contains: `no-such-deployment-${s.runId}` } } }),
      );
      v.equal(listed.status, 200, 'status');
    },
  }),
  check({
    id: 'deployments:unknown',
    area: 'errors',
    title: 'an unknown deployment, revision, OAuth provider or sandbox pool is a 404 in its documented shape',
    rule: 'getDeployment, getRevision, getOauthProvider: 404 {detail}; getSandboxPool: 404 {detail: {error, message}} (decision C7)',
    operations: ['getDeployment', 'getRevision', 'getOauthProvider', 'getSandboxPool'],
    async run(s, v) {
      const deployment = await answer(s.client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: UNKNOWN } } }));
      v.equal([deployment.status, detailOf(deployment.error)], [404, `Deployment ID ${UNKNOWN} not found.`], 'getDeployment');
      const revision = await answer(
        s.client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
          params: { path: { deployment_id: UNKNOWN, revision_id: UNKNOWN } },
        }),
      );
      v.equal(
        [revision.status, detailOf(revision.error)],
        [404, `Deployment ID ${UNKNOWN} not found.`],
        'getRevision of an unknown deployment',
      );
      const provider = await answer(
        s.client.GET('/v2/auth/providers/{provider_id}', { params: { path: { provider_id: `no-such-provider-${s.runId.slice(0, 8)}` } } }),
      );
      v.equal(provider.status, 404, 'getOauthProvider status');
      const pool = await answer(
        s.client.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: `no-such-pool-${s.runId.slice(0, 8)}` } } }),
      );
      v.equal([pool.status, detailOf(pool.error)], [404, { error: 'NotFound', message: 'Resource not found.' }], 'getSandboxPool');
    },
  }),
  check({
    id: 'deployments:malformed-id',
    area: 'errors',
    title: 'a malformed deployment id is a 422 HTTPValidationError at path.deployment_id',
    rule: 'getDeployment: path parameter deployment_id format uuid, 422 HTTPValidationError (decision C1)',
    operations: ['getDeployment'],
    async run(s, v) {
      const got = await answer(s.client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: 'not-a-uuid' } } }));
      const locs = ((got.error as { detail?: { loc?: unknown[] }[] } | undefined)?.detail ?? []).map((item) => item.loc?.join('.'));
      v.equal([got.status, locs.includes('path.deployment_id')], [422, true], 'status, and an issue at path.deployment_id');
    },
  }),
  check({
    id: 'deployments:first-revision',
    area: 'deployments',
    title: "a created deployment's first revision is its latest, and reaches a terminal status",
    rule: 'createDeployment: 201 Deployment.latest_revision_id; getRevision: RevisionStatus x-terminal (decisions C3, C6)',
    operations: ['createDeployment', 'getRevision', 'listRevisions'],
    writes: true,
    async run(s, v) {
      const deployment = await createDeployment(s, v);
      const revisions = await answer(
        s.client.GET('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: deployment.id } } }),
      );
      v.equal(
        revisions.data?.resources.map((r) => r.id),
        [deployment.latest_revision_id],
        'revisions of a new deployment',
      );
      await waitTerminal(s, v, deployment.id, deployment.latest_revision_id);
    },
  }),
  check({
    id: 'deployments:update-makes-revision',
    area: 'deployments',
    title: 'a source update makes a new revision, the latest and first listed; changing the source is a 422',
    rule: 'updateDeployment: DeploymentUpdate.source_revision_config.image_uri; source cannot change (decision C5)',
    operations: ['updateDeployment', 'listRevisions', 'createDeployment', 'getRevision'],
    writes: true,
    async run(s, v) {
      const deployment = await createDeployment(s, v);
      const updated = await answer(
        s.client.PATCH('/v2/deployments/{deployment_id}', {
          params: { path: { deployment_id: deployment.id } },
          body: { source_revision_config: { image_uri: `registry.example/agentplane-conformance:${s.runId.slice(0, 8)}-2` } },
        }),
      );
      if (!updated.data) return v.stop(`updateDeployment answered ${updated.status}: ${short(updated.error)}`);
      v.that(updated.data.latest_revision_id !== deployment.latest_revision_id, 'latest_revision_id did not change');
      const revisions = await answer(
        s.client.GET('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: deployment.id } } }),
      );
      v.equal(
        revisions.data?.resources.map((r) => r.id),
        [updated.data.latest_revision_id, deployment.latest_revision_id],
        'revisions, newest first',
      );
      const refused = await answer(
        s.client.PATCH('/v2/deployments/{deployment_id}', {
          params: { path: { deployment_id: deployment.id } },
          body: { source: 'git_host' } as never,
        }),
      );
      v.equal(refused.status, 422, 'status of an update that changes the source');
    },
  }),
];
