// Unit tests of the control plane client with an injected fetch: no network.

import { json } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../src/index.js';
import { ApiError, createControlPlaneClient, unwrap } from '../src/index.js';

const DEPLOYMENT_ID = '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50';

function recordingFetch(answer: (request: Request, n: number) => Response | Promise<Response> = () => json(200, {})) {
  const requests: Request[] = [];
  const fetch = async (request: Request) => {
    requests.push(request.clone());
    return answer(request, requests.length);
  };
  return { fetch, requests };
}

describe('createControlPlaneClient', () => {
  it.each([
    [{ apiKey: 'key-1' }, 'x-api-key', 'key-1'],
    [{ tenantId: 'tenant-a' }, 'x-tenant-id', 'tenant-a'],
    [{ bearerToken: 'tok' }, 'authorization', 'Bearer tok'],
  ] as const)('sends the credential %j on every request', async (credentials, header, value) => {
    const { fetch, requests } = recordingFetch();
    const client = createControlPlaneClient({ baseUrl: 'http://cp.test/', ...credentials, fetch, headers: { 'x-trace': 't1' } });
    await client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: DEPLOYMENT_ID } } });
    await client.GET('/v2/sandboxes/pools/{name}', { params: { path: { name: 'python-pool' } } });
    expect(requests.map((r) => r.headers.get(header))).toEqual([value, value]);
    expect(requests[0]!.headers.get('x-trace')).toBe('t1');
    expect(requests[0]!.url).toBe(`http://cp.test/v2/deployments/${DEPLOYMENT_ID}`);
  });

  it('refuses no credential, or more than one', () => {
    expect(() => createControlPlaneClient({ baseUrl: 'http://cp.test' } as never)).toThrow(
      /exactly one of apiKey, tenantId or bearerToken \(got none\)/,
    );
    expect(() => createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'a', tenantId: 't' } as never)).toThrow(
      /got apiKey, tenantId/,
    );
  });

  it('retries GETs on 503 but never a create or an update', async () => {
    const { fetch, requests } = recordingFetch((_, n) => (n % 2 === 1 ? json(503, {}) : json(200, {})));
    const client = createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch, retry: { baseDelayMs: 1, random: () => 0 } });
    const got = await client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: DEPLOYMENT_ID } } });
    expect(got.response.status).toBe(200);
    expect(requests).toHaveLength(2);

    const { fetch: fetch2, requests: requests2 } = recordingFetch(() => json(503, {}));
    const client2 = createControlPlaneClient({
      baseUrl: 'http://cp.test',
      apiKey: 'k',
      fetch: fetch2,
      retry: { baseDelayMs: 1, random: () => 0 },
    });
    await client2.POST('/v2/deployments', {
      body: { name: 'x', source: 'external_container', source_revision_config: { image_uri: 'r/x:1' } },
    });
    await client2.PATCH('/v2/deployments/{deployment_id}', {
      params: { path: { deployment_id: DEPLOYMENT_ID } },
      body: { source_revision_config: { image_uri: 'r/x:2' } },
    });
    expect(requests2.map((r) => r.method)).toEqual(['POST', 'PATCH']);
  });

  it('returns typed errors in the result, and unwrap throws an ApiError with the 422 fields', async () => {
    const body = { detail: [{ loc: ['body', 'source_revision_config', 'image_uri'], msg: 'Field required', type: 'missing' }] };
    const { fetch } = recordingFetch(() => json(422, body));
    const client = createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch });
    const result = await client.POST('/v2/deployments', { body: { name: 'x', source: 'external_container' } });
    expect(result.error).toEqual(body);
    expect(() => unwrap(result)).toThrow(ApiError);
    expect(() => unwrap(result)).toThrow('body.source_revision_config.image_uri: Field required (missing)');
  });

  it('types the success body', async () => {
    const deployment = { id: DEPLOYMENT_ID, name: 'support-agent' } as Deployment;
    const { fetch } = recordingFetch(() => json(200, deployment));
    const client = createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch });
    const got: Deployment = unwrap(
      await client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: DEPLOYMENT_ID } } }),
    );
    expect(got.name).toBe('support-agent');
  });
});
