// iterateDeployments, iterateRevisions and findDeploymentByName against a scripted listing.

import { json } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';
import type { Deployment, Revision } from '../src/index.js';
import { ApiError, createControlPlaneClient, findDeploymentByName, iterateDeployments, iterateRevisions } from '../src/index.js';

const DEPLOYMENT_ID = '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50';

/** A listing endpoint over `items`, honouring limit/offset/name_contains/status, recording each query. */
function listing<T>(items: T[], filter: (item: T, query: URLSearchParams) => boolean = () => true) {
  const queries: URLSearchParams[] = [];
  const fetch = async (request: Request) => {
    const url = new URL(request.url);
    queries.push(url.searchParams);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const matches = items.filter((item) => filter(item, url.searchParams));
    return json(200, { resources: matches.slice(offset, offset + limit), offset });
  };
  return { client: createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch }), queries };
}

const deployments = Array.from(
  { length: 23 },
  (_, i) => ({ id: `d${i}`, name: i === 17 ? 'billing-agent' : `billing-agent-${i}` }) as Deployment,
);
const byName = (d: Deployment, q: URLSearchParams) => d.name.toLowerCase().includes((q.get('name_contains') ?? '').toLowerCase());

describe('iterateDeployments', () => {
  it('pages with limit/offset until a short page, passing the filter on', async () => {
    const { client, queries } = listing(deployments, byName);
    const seen: string[] = [];
    for await (const deployment of iterateDeployments(client, { name_contains: 'BILLING' }, { pageSize: 10 })) seen.push(deployment.id);
    expect(seen).toEqual(deployments.map((d) => d.id));
    expect(queries.map((q) => [q.get('offset'), q.get('limit'), q.get('name_contains')])).toEqual([
      ['0', '10', 'BILLING'],
      ['10', '10', 'BILLING'],
      ['20', '10', 'BILLING'],
    ]);
  });

  it('asks once more after an exactly full last page, and stops at the empty one', async () => {
    const { client, queries } = listing(deployments.slice(0, 20));
    const all = [];
    for await (const deployment of iterateDeployments(client, {}, { pageSize: 10 })) all.push(deployment);
    expect(all).toHaveLength(20);
    expect(queries.map((q) => q.get('offset'))).toEqual(['0', '10', '20']);
  });

  it('does not repeat an entry that a create during paging pushed onto the next page', async () => {
    const items = deployments.slice(0, 4);
    let calls = 0;
    const fetch = async (request: Request) => {
      const offset = Number(new URL(request.url).searchParams.get('offset'));
      // After the first page a new deployment appears at the top: everything shifts by one.
      const current = calls++ === 0 ? items : [{ id: 'new', name: 'new' } as Deployment, ...items];
      return json(200, { resources: current.slice(offset, offset + 2), offset });
    };
    const ids = [];
    for await (const deployment of iterateDeployments(
      createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch }),
      {},
      { pageSize: 2 },
    ))
      ids.push(deployment.id);
    expect(ids).toEqual(['d0', 'd1', 'd2', 'd3']);
  });

  it('refuses a page size outside 1–100 and throws ApiError on an error answer', async () => {
    const client = createControlPlaneClient({
      baseUrl: 'http://cp.test',
      apiKey: 'k',
      fetch: async () => json(401, { detail: 'Invalid API key.' }),
    });
    await expect(iterateDeployments(client, {}, { pageSize: 101 }).next()).rejects.toThrow(RangeError);
    await expect(iterateDeployments(client).next()).rejects.toThrow(ApiError);
    await expect(iterateDeployments(client).next()).rejects.toThrow('Invalid API key.');
  });
});

describe('iterateRevisions', () => {
  const revisions = Array.from({ length: 7 }, (_, i) => ({ id: `r${i}`, status: i % 2 ? 'BUILD_FAILED' : 'DEPLOYED' }) as Revision);

  it("lists one deployment's revisions, filtered by status", async () => {
    const { client, queries } = listing(revisions, (r, q) => !q.get('status') || r.status === q.get('status'));
    const ids = [];
    for await (const revision of iterateRevisions(client, DEPLOYMENT_ID, { status: 'BUILD_FAILED' }, { pageSize: 2 }))
      ids.push(revision.id);
    expect(ids).toEqual(['r1', 'r3', 'r5']);
    expect(queries.map((q) => [q.get('status'), q.get('offset')])).toEqual([
      ['BUILD_FAILED', '0'],
      ['BUILD_FAILED', '2'],
    ]);
  });

  it('throws the 404 of a missing deployment', async () => {
    const client = createControlPlaneClient({
      baseUrl: 'http://cp.test',
      apiKey: 'k',
      fetch: async () => json(404, { detail: `Deployment ID ${DEPLOYMENT_ID} not found.` }),
    });
    await expect(iterateRevisions(client, DEPLOYMENT_ID).next()).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('not found'),
    });
  });
});

describe('findDeploymentByName', () => {
  it('finds the exact name among the substring matches, on any page', async () => {
    const { client, queries } = listing(deployments, byName);
    const found = await findDeploymentByName(client, 'billing-agent');
    expect(found?.id).toBe('d17');
    expect(queries[0]!.get('name_contains')).toBe('billing-agent');
  });

  it('compares case-sensitively and answers undefined when nothing matches exactly', async () => {
    const { client } = listing(deployments, byName);
    expect(await findDeploymentByName(client, 'Billing-Agent')).toBeUndefined();
    expect(await findDeploymentByName(client, 'billing')).toBeUndefined();
    await expect(findDeploymentByName(client, '')).rejects.toThrow(TypeError);
  });
});
