// Layer (b) for the control plane. Without --allow-writes a run only reads what cannot exist (IDs
// no deployment has, a name no deployment has), because deployments cost money; with it, each
// write check creates a deployment of the run's own (five in all), follows its revisions, and
// the run deletes them at the end.
import type { ControlPlaneClient, LogLevel, RevisionLogEntry, RevisionLogType } from '@agentplane/control-plane';
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
/** The `loc`s of a 422's issues, dotted (`query.offset`). */
const issueLocs = (error: unknown) =>
  ((error as { detail?: { loc?: unknown[] }[] } | undefined)?.detail ?? []).map((item) => item.loc?.join('.'));
/** Severity rank, as LogLevel lists the levels (least severe first). */
const LEVELS: LogLevel[] = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'];

/** Every line of one log of a revision, read in pages of `limit` by following `next_offset`, in `order`. */
async function readLog(
  s: ControlPlaneSession,
  v: Verify,
  ids: { deployment: string; revision: string },
  query: { type: RevisionLogType; order: 'asc' | 'desc'; limit: number; level?: LogLevel },
): Promise<RevisionLogEntry[]> {
  const entries: RevisionLogEntry[] = [];
  let offset: string | undefined;
  for (let page = 0; page < 500; page++) {
    const got = await answer(
      s.client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
        params: { path: { deployment_id: ids.deployment, revision_id: ids.revision }, query: { ...query, ...(offset ? { offset } : {}) } },
      }),
    );
    if (!got.data) return v.stop(`listRevisionLogs answered ${got.status}: ${short(got.error)}`);
    v.that(got.data.logs.length <= query.limit, `a page of ${got.data.logs.length} lines for limit ${query.limit}`);
    entries.push(...got.data.logs);
    if (got.data.next_offset === null) return entries;
    offset = got.data.next_offset;
  }
  return v.stop(`the ${query.type} log of a terminal revision never ended (next_offset never null after 500 pages)`);
}

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

/** PATCHes the run's deployment to another image of the run's (a new revision); the answer as it came. */
function updateImage(s: ControlPlaneSession, deploymentId: string, tag: string) {
  return answer(
    s.client.PATCH('/v2/deployments/{deployment_id}', {
      params: { path: { deployment_id: deploymentId } },
      body: { source_revision_config: { image_uri: `registry.example/agentplane-conformance:${s.runId.slice(0, 8)}-${tag}` } },
    }),
  );
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
      const updated = await updateImage(s, deployment.id, '2');
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
  check({
    id: 'logs:unknown',
    area: 'errors',
    title: "an unknown deployment's revision logs are a 404; a log read without its type is a 422 at query.type",
    rule: 'listRevisionLogs: 404 {detail} (decision C7); query parameter type required, 422 HTTPValidationError',
    operations: ['listRevisionLogs'],
    async run(s, v) {
      const path = { deployment_id: UNKNOWN, revision_id: UNKNOWN };
      const missing = await answer(
        s.client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', { params: { path, query: { type: 'build' } } }),
      );
      v.equal(
        [missing.status, detailOf(missing.error)],
        [404, `Deployment ID ${UNKNOWN} not found.`],
        'listRevisionLogs of an unknown deployment',
      );
      const untyped = await answer(
        s.client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', { params: { path, query: {} as never } }),
      );
      v.equal([untyped.status, issueLocs(untyped.error).includes('query.type')], [422, true], 'status, and an issue at query.type');
    },
  }),
  check({
    id: 'deployments:filters',
    area: 'deployments',
    title: 'listing deployments by IDs and by the status of their latest revision; malformed IDs are a 422',
    rule: 'listDeployments: query deployment_ids (comma-separated UUIDs) and status (decision C13)',
    operations: ['listDeployments'],
    async run(s, v) {
      const byIds = await answer(
        s.client.GET('/v2/deployments', { params: { query: { deployment_ids: `${UNKNOWN},${UNKNOWN.toUpperCase()}` } } }),
      );
      v.equal([byIds.status, byIds.data?.resources], [200, []], 'deployments with IDs no deployment has');
      const byStatus = await answer(
        s.client.GET('/v2/deployments', {
          params: { query: { status: 'DEPLOYED', name_contains: `no-such-deployment-${s.runId.slice(0, 8)}` } },
        }),
      );
      v.equal([byStatus.status, byStatus.data?.resources], [200, []], 'DEPLOYED deployments with a name no deployment has');
      const malformed = await answer(s.client.GET('/v2/deployments', { params: { query: { deployment_ids: `${UNKNOWN}, ${UNKNOWN}` } } }));
      v.equal(
        [malformed.status, issueLocs(malformed.error).includes('query.deployment_ids')],
        [422, true],
        'status, and an issue at query.deployment_ids',
      );
    },
  }),
  check({
    id: 'revisions:create',
    area: 'revisions',
    title: 'creating a revision makes a new latest revision of the current configuration (201), listed first',
    rule: 'createRevision: 201 Revision, the source configuration of the latest revision (decision C12)',
    operations: ['createRevision', 'createDeployment', 'getDeployment', 'listRevisions', 'getRevision'],
    writes: true,
    async run(s, v) {
      const deployment = await createDeployment(s, v);
      const created = await answer(
        s.client.POST('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: deployment.id } } }),
      );
      if (created.status !== 201 || !created.data) return v.stop(`createRevision answered ${created.status}: ${short(created.error)}`);
      v.that(created.data.id !== deployment.latest_revision_id, 'the new revision has the ID of the one before');
      v.equal(created.data.source_revision_config.image_uri, deployment.source_revision_config.image_uri, 'image_uri of the new revision');
      const now = await answer(s.client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } }));
      v.equal(now.data?.latest_revision_id, created.data.id, "the deployment's latest_revision_id");
      const revisions = await answer(
        s.client.GET('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: deployment.id } } }),
      );
      v.equal(revisions.data?.resources[0]?.id, created.data.id, 'the first revision listed');
      await waitTerminal(s, v, deployment.id, created.data.id);
    },
  }),
  check({
    id: 'revisions:redeploy',
    area: 'revisions',
    title: "redeploying an earlier revision makes a new latest revision of that revision's configuration",
    rule: 'redeployRevision: 200 Deployment, latest_revision_id new, source_revision_config of the revision redeployed (decision C12)',
    operations: ['redeployRevision', 'createDeployment', 'updateDeployment', 'getRevision'],
    writes: true,
    async run(s, v) {
      const deployment = await createDeployment(s, v);
      await waitTerminal(s, v, deployment.id, deployment.latest_revision_id);
      const updated = await updateImage(s, deployment.id, 'next');
      if (!updated.data) return v.stop(`updateDeployment answered ${updated.status}: ${short(updated.error)}`);
      await waitTerminal(s, v, deployment.id, updated.data.latest_revision_id);
      const redeployed = await answer(
        s.client.POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
          params: { path: { deployment_id: deployment.id, revision_id: deployment.latest_revision_id } },
        }),
      );
      if (!redeployed.data) return v.stop(`redeployRevision answered ${redeployed.status}: ${short(redeployed.error)}`);
      const latest = redeployed.data.latest_revision_id;
      v.that(
        latest !== deployment.latest_revision_id && latest !== updated.data.latest_revision_id,
        'latest_revision_id is not a new revision',
      );
      v.equal(redeployed.data.source_revision_config.image_uri, deployment.source_revision_config.image_uri, "the deployment's image_uri");
      const revision = await waitTerminal(s, v, deployment.id, latest);
      v.equal(revision.source_revision_config.image_uri, deployment.source_revision_config.image_uri, "the new revision's image_uri");
      if (revision.status === 'DEPLOYED') {
        const now = await answer(s.client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } }));
        v.equal(now.data?.active_revision_id, latest, 'active_revision_id once the redeployed revision is DEPLOYED');
      }
    },
  }),
  check({
    id: 'logs:paging',
    area: 'revisions',
    title: "a terminal revision's logs read the same in one page, in pages by cursor and newest first; filters and timestamps hold",
    rule: 'listRevisionLogs: order, limit, offset (next_offset), level, RevisionLogEntry.timestamp (decision C11)',
    operations: ['listRevisionLogs', 'createDeployment', 'getRevision'],
    writes: true,
    async run(s, v) {
      const deployment = await createDeployment(s, v);
      const revision = await waitTerminal(s, v, deployment.id, deployment.latest_revision_id);
      const ids = { deployment: deployment.id, revision: revision.id };
      for (const type of ['build', 'deploy'] as const) {
        const whole = await readLog(s, v, ids, { type, order: 'asc', limit: 1000 });
        v.equal(await readLog(s, v, ids, { type, order: 'asc', limit: 2 }), whole, `the ${type} log in pages of 2`);
        v.equal((await readLog(s, v, ids, { type, order: 'desc', limit: 3 })).reverse(), whole, `the ${type} log newest first, reversed`);
        const warnings = await readLog(s, v, ids, { type, order: 'asc', limit: 1000, level: 'WARNING' });
        v.equal(
          warnings,
          whole.filter((entry) => LEVELS.indexOf(entry.level) >= LEVELS.indexOf('WARNING')),
          `the ${type} log at WARNING and above`,
        );
        const times = whole.map((entry) => Date.parse(entry.timestamp));
        v.that(
          times.every((time, i) => i === 0 || time >= times[i - 1]!),
          `the ${type} log's lines are not in time order`,
        );
        v.that(
          times.every((time) => time >= Date.parse(revision.created_at) && time <= Date.parse(revision.updated_at)),
          `a ${type} log line is timed outside the revision's life (${revision.created_at} to ${revision.updated_at})`,
        );
      }
      const refused = await answer(
        s.client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
          params: { path: { deployment_id: ids.deployment, revision_id: ids.revision }, query: { type: 'deploy', offset: 'not-a-cursor' } },
        }),
      );
      v.equal(
        [refused.status, issueLocs(refused.error).includes('query.offset')],
        [422, true],
        'an offset that is no cursor: status, and an issue at query.offset',
      );
    },
  }),
];
