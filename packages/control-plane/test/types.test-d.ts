// Type tests, checked by `npm run typecheck` (tsc): each `@ts-expect-error` line must fail to
// compile, and tsc fails if one of them ever compiles. Never executed.
import { expectTypeOf } from 'vitest';
import type { Deployment, DeploymentList, Revision, RevisionList, RevisionStatus } from '../src/index.js';
import { createControlPlaneClient } from '../src/index.js';

export async function typeTests() {
  const client = createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k' });

  // A wrong path parameter name.
  // @ts-expect-error `deploymentId` is not a path parameter; it is `deployment_id`
  await client.GET('/v2/deployments/{deployment_id}', { params: { path: { deploymentId: 'x' } } });

  // A misspelt body field.
  // @ts-expect-error `nmae` is not a field of DeploymentCreate
  await client.POST('/v2/deployments', { body: { nmae: 'x', source: 'external_container' } });

  // A wrong enum value.
  // @ts-expect-error `docker` is not a DeploymentSource
  await client.POST('/v2/deployments', { body: { name: 'x', source: 'docker' } });

  // repo_commit_sha is read-only: not part of the request schema.
  await client.PATCH('/v2/deployments/{deployment_id}', {
    params: { path: { deployment_id: 'x' } },
    // @ts-expect-error repo_commit_sha cannot be sent
    body: { source_revision_config: { repo_commit_sha: 'abc' } },
  });

  // An unknown path.
  // @ts-expect-error there is no such path
  await client.GET('/v2/deployment/{deployment_id}', { params: { path: { deployment_id: 'x' } } });

  // Two credentials at once.
  // @ts-expect-error exactly one credential
  createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', bearerToken: 't' });

  // Listing: a misspelt query parameter, and a status that is not a RevisionStatus.
  // @ts-expect-error `nameContains` is not a query parameter; it is `name_contains`
  await client.GET('/v2/deployments', { params: { query: { nameContains: 'billing' } } });
  await client.GET('/v2/deployments/{deployment_id}/revisions', {
    // @ts-expect-error `deployed` is not a RevisionStatus (they are upper case)
    params: { path: { deployment_id: 'd' }, query: { status: 'deployed' } },
  });
  const page = await client.GET('/v2/deployments', { params: { query: { name_contains: 'billing', limit: 100, offset: 0 } } });
  if (page.data) expectTypeOf(page.data).toEqualTypeOf<DeploymentList>();
  if (page.data) expectTypeOf(page.data.resources).toEqualTypeOf<Deployment[]>();
  const history = await client.GET('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: 'd' } } });
  if (history.data) expectTypeOf(history.data).toEqualTypeOf<RevisionList>();
  // A DELETE answers 204 without a body.
  const removed = await client.DELETE('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: 'd' } } });
  expectTypeOf(removed.data).toEqualTypeOf<undefined>();

  const revision = await client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
    params: { path: { deployment_id: 'd', revision_id: 'r' } },
  });
  if (revision.data) expectTypeOf(revision.data).toEqualTypeOf<Revision>();
  if (revision.data) expectTypeOf(revision.data.status).toEqualTypeOf<RevisionStatus>();
  const deployment = await client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: 'd' } } });
  if (deployment.data) expectTypeOf(deployment.data).toEqualTypeOf<Deployment>();
  // The sandbox pool's 404 detail is an object, the other errors' a string or a list.
  const pool = await client.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'p' } } });
  if (pool.response.status === 404 && pool.error && typeof pool.error.detail === 'object' && !Array.isArray(pool.error.detail)) {
    expectTypeOf(pool.error.detail.error).toEqualTypeOf<'NotFound'>();
  }
}
