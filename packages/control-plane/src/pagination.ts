// Async iterators over the control plane's paged listings, and finding a deployment by name.
//   iterateDeployments: every deployment (optionally filtered by name_contains), newest first.
//   iterateRevisions: every revision of a deployment (optionally filtered by status), newest first.
// Both page with limit/offset (the answer is {resources, offset}) and stop at a short page.
// An entry seen on an earlier page is not yielded again: an item created while paging shifts
// the later pages by one, which would otherwise repeat an entry.
import { unwrap } from '@agentplane/client-core';
import { checkPageSize, paginate } from '@agentplane/client-core/internal';
import type { ControlPlaneClient } from './client.js';
import { pageLimits } from './generated/contract.js';
import type { Deployment, operations, Revision } from './generated/openapi.js';

export interface PageOptions {
  /** Items per request (the bounds of the listings' `limit`: 1–100; default 100). */
  pageSize?: number;
  signal?: AbortSignal;
}

/** The filters of listDeployments (everything but the paging). */
export type ListDeploymentsFilter = Omit<NonNullable<operations['listDeployments']['parameters']['query']>, 'limit' | 'offset'>;
/** The filters of listRevisions (everything but the paging). */
export type ListRevisionsFilter = Omit<NonNullable<operations['listRevisions']['parameters']['query']>, 'limit' | 'offset'>;

export function iterateDeployments(
  client: ControlPlaneClient,
  filter: ListDeploymentsFilter = {},
  options: PageOptions = {},
): AsyncGenerator<Deployment, void, undefined> {
  return offsetPages(
    pageLimits.listDeployments,
    options,
    async (page, init) => unwrap(await client.GET('/v2/deployments', { params: { query: { ...filter, ...page } }, ...init })).resources,
  );
}

export function iterateRevisions(
  client: ControlPlaneClient,
  deploymentId: string,
  filter: ListRevisionsFilter = {},
  options: PageOptions = {},
): AsyncGenerator<Revision, void, undefined> {
  const path = { deployment_id: deploymentId };
  return offsetPages(
    pageLimits.listRevisions,
    options,
    async (page, init) =>
      unwrap(await client.GET('/v2/deployments/{deployment_id}/revisions', { params: { path, query: { ...filter, ...page } }, ...init }))
        .resources,
  );
}

/**
 * The deployment whose name is exactly `name` (case-sensitive), or undefined. Lists with
 * `name_contains` (a case-insensitive substring filter) and reads every page, so a deploy tool
 * can find-or-create without ever creating a second deployment of the same name.
 */
export async function findDeploymentByName(
  client: ControlPlaneClient,
  name: string,
  options: Omit<PageOptions, 'pageSize'> = {},
): Promise<Deployment | undefined> {
  if (name === '') throw new TypeError('findDeploymentByName needs a non-empty name');
  for await (const deployment of iterateDeployments(client, { name_contains: name }, options)) {
    if (deployment.name === name) return deployment;
  }
  return undefined;
}

/**
 * limit/offset pages of a listing, checked against the spec's bounds of `limit` when first read
 * (not when called); a short page is the last.
 */
async function* offsetPages<Item extends { id: string }>(
  limits: { readonly minimum: number; readonly maximum: number },
  { pageSize = limits.maximum, signal }: PageOptions,
  fetchPage: (page: { limit: number; offset: number }, init: { signal?: AbortSignal }) => Promise<Item[]>,
): AsyncGenerator<Item, void, undefined> {
  checkPageSize(pageSize, limits);
  yield* paginate({
    start: 0,
    key: (item) => item.id,
    fetchPage: async (offset) => {
      const items = await fetchPage({ limit: pageSize, offset }, signal ? { signal } : {});
      return { items, next: items.length < pageSize ? undefined : offset + items.length };
    },
  });
}
