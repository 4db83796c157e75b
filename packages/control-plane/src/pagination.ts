// Async iterators over the control plane's paged listings, and finding a deployment by name.
//   iterateDeployments: every deployment (optionally filtered by name_contains), newest first.
//   iterateRevisions: every revision of a deployment (optionally filtered by status), newest first.
// Both page with limit/offset (the answer is {resources, offset}) and stop at a short page.
// An entry seen on an earlier page is not yielded again: an item created while paging shifts
// the later pages by one, which would otherwise repeat an entry.
import { unwrap } from '@agentplane/client-core';
import type { ControlPlaneClient } from './client.js';
import type { Deployment, operations, Revision } from './generated/openapi.js';

export interface PageOptions {
  /** Items per request (1–100, default 100). */
  pageSize?: number;
  signal?: AbortSignal;
}

/** The filters of listDeployments (everything but the paging). */
export type ListDeploymentsFilter = Omit<NonNullable<operations['listDeployments']['parameters']['query']>, 'limit' | 'offset'>;
/** The filters of listRevisions (everything but the paging). */
export type ListRevisionsFilter = Omit<NonNullable<operations['listRevisions']['parameters']['query']>, 'limit' | 'offset'>;

export async function* iterateDeployments(
  client: ControlPlaneClient,
  filter: ListDeploymentsFilter = {},
  { pageSize = 100, signal }: PageOptions = {},
): AsyncGenerator<Deployment, void, undefined> {
  checkPageSize(pageSize);
  yield* pages(
    pageSize,
    async (offset) =>
      unwrap(
        await client.GET('/v2/deployments', { params: { query: { ...filter, limit: pageSize, offset } }, ...(signal ? { signal } : {}) }),
      ).resources,
  );
}

export async function* iterateRevisions(
  client: ControlPlaneClient,
  deploymentId: string,
  filter: ListRevisionsFilter = {},
  { pageSize = 100, signal }: PageOptions = {},
): AsyncGenerator<Revision, void, undefined> {
  checkPageSize(pageSize);
  yield* pages(
    pageSize,
    async (offset) =>
      unwrap(
        await client.GET('/v2/deployments/{deployment_id}/revisions', {
          params: { path: { deployment_id: deploymentId }, query: { ...filter, limit: pageSize, offset } },
          ...(signal ? { signal } : {}),
        }),
      ).resources,
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

async function* pages<T extends { id: string }>(
  pageSize: number,
  fetchPage: (offset: number) => Promise<T[]>,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  let offset = 0;
  for (;;) {
    const page = await fetchPage(offset);
    for (const item of page) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      yield item;
    }
    if (page.length < pageSize) return;
    offset += page.length;
  }
}

function checkPageSize(pageSize: number): void {
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
    throw new RangeError(`pageSize must be an integer from 1 to 100, got ${pageSize}`);
}
