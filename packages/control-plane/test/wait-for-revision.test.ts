// waitForRevision against scripted status sequences, with an injected fetch and fake timers.

import { json } from '@agentplane/openapi-toolkit/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Revision, RevisionStatus } from '../src/index.js';
import {
  ApiError,
  createControlPlaneClient,
  createDeploymentAndWait,
  REVISION_FAILURE_STATUSES,
  RevisionFailedError,
  RevisionTimeoutError,
  updateDeploymentAndWait,
  waitForRevision,
} from '../src/index.js';

const DEPLOYMENT_ID = '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50';
const REVISION_ID = '5e8f2c1a-9b7d-4e6f-a3c2-7d1e0f9b8a64';

function revision(status: RevisionStatus): Revision {
  return {
    id: REVISION_ID,
    created_at: '2026-11-18T09:14:03.512Z',
    updated_at: '2026-11-18T09:14:03.512Z',
    status,
    source: 'external_container',
    source_revision_config: { repo_ref: null, graph_config_path: null, image_uri: 'r/x:1', repo_commit_sha: null },
  };
}

/** Answers each revision poll with the next scripted step (a status, an HTTP status, or a thrown error). */
function scriptedControlPlane(steps: (RevisionStatus | number | Error)[]) {
  let polls = 0;
  const fetch = async (request: Request) => {
    if (!request.url.includes('/revisions/')) throw new Error(`unexpected request ${request.method} ${request.url}`);
    const step = steps[Math.min(polls++, steps.length - 1)]!;
    if (step instanceof Error) throw step;
    if (typeof step === 'number') return json(step, { detail: `status ${step}` });
    return json(200, revision(step));
  };
  const client = createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch, retry: false });
  return { client, polls: () => polls };
}

async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  return outcome;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('waitForRevision', () => {
  it('resolves with the revision once it is DEPLOYED, reporting each status change once', async () => {
    const { client, polls } = scriptedControlPlane(['QUEUED', 'QUEUED', 'BUILDING', 'BUILDING', 'DEPLOYING', 'DEPLOYED']);
    const seen: string[] = [];
    const { value } = await settle(
      waitForRevision(client, {
        deploymentId: DEPLOYMENT_ID,
        revisionId: REVISION_ID,
        intervalMs: 1000,
        onStatus: (r) => seen.push(r.status),
      }),
    );
    expect(value?.status).toBe('DEPLOYED');
    expect(seen).toEqual(['QUEUED', 'BUILDING', 'DEPLOYING', 'DEPLOYED']);
    expect(polls()).toBe(6);
  });

  it('awaits onPoll after every successful poll, the terminal one included, before polling again; what it throws ends the wait', async () => {
    const { client, polls } = scriptedControlPlane(['QUEUED', new TypeError('fetch failed'), 'QUEUED', 'DEPLOYING', 'DEPLOYED']);
    const calls: [string, number][] = [];
    const { value } = await settle(
      waitForRevision(client, {
        deploymentId: DEPLOYMENT_ID,
        revisionId: REVISION_ID,
        intervalMs: 10,
        onPoll: async (r) => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          calls.push([r.status, polls()]);
        },
      }),
    );
    expect(value?.status).toBe('DEPLOYED');
    // Each call saw its own poll's answer, and no poll was sent while it ran.
    expect(calls).toEqual([
      ['QUEUED', 1],
      ['QUEUED', 3],
      ['DEPLOYING', 4],
      ['DEPLOYED', 5],
    ]);

    const failing = scriptedControlPlane(['QUEUED', 'DEPLOYED']);
    const { error } = await settle(
      waitForRevision(failing.client, {
        deploymentId: DEPLOYMENT_ID,
        revisionId: REVISION_ID,
        intervalMs: 10,
        onPoll: () => {
          throw new Error('log reader broke');
        },
      }),
    );
    expect((error as Error).message).toBe('log reader broke');
    expect(failing.polls()).toBe(1);
  });

  it.each(REVISION_FAILURE_STATUSES)('rejects with RevisionFailedError carrying the revision on %s', async (status) => {
    const { client } = scriptedControlPlane(['QUEUED', 'BUILDING', status]);
    const { error } = await settle(waitForRevision(client, { deploymentId: DEPLOYMENT_ID, revisionId: REVISION_ID, intervalMs: 10 }));
    expect(error).toBeInstanceOf(RevisionFailedError);
    expect((error as RevisionFailedError).revision.status).toBe(status);
    expect((error as RevisionFailedError).status).toBe(status);
  });

  it('keeps polling through UNKNOWN and every non-terminal status', async () => {
    const { client } = scriptedControlPlane([
      'CREATING',
      'UNKNOWN',
      'QUEUED',
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'UNKNOWN',
      'DEPLOYED',
    ]);
    const { value } = await settle(waitForRevision(client, { deploymentId: DEPLOYMENT_ID, revisionId: REVISION_ID, intervalMs: 10 }));
    expect(value?.status).toBe('DEPLOYED');
  });

  it('rides out network errors, 429 and 5xx', async () => {
    const { client, polls } = scriptedControlPlane(['QUEUED', new TypeError('fetch failed'), 429, 502, 503, 500, 'DEPLOYED']);
    const { value } = await settle(waitForRevision(client, { deploymentId: DEPLOYMENT_ID, revisionId: REVISION_ID, intervalMs: 10 }));
    expect(value?.status).toBe('DEPLOYED');
    expect(polls()).toBe(7);
  });

  it('stops at once on a 4xx it cannot outwait', async () => {
    for (const status of [401, 404, 422]) {
      const { client, polls } = scriptedControlPlane(['QUEUED', status, 'DEPLOYED']);
      const { error } = await settle(waitForRevision(client, { deploymentId: DEPLOYMENT_ID, revisionId: REVISION_ID, intervalMs: 10 }));
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(status);
      expect(polls()).toBe(2);
    }
  });

  it('times out naming the last status seen', async () => {
    const { client } = scriptedControlPlane(['QUEUED', 'BUILDING']);
    const { error } = await settle(
      waitForRevision(client, { deploymentId: DEPLOYMENT_ID, revisionId: REVISION_ID, intervalMs: 1000, timeoutMs: 5000 }),
    );
    expect(error).toBeInstanceOf(RevisionTimeoutError);
    expect((error as RevisionTimeoutError).lastStatus).toBe('BUILDING');
    expect((error as Error).message).toMatch(/still BUILDING after 5000 ms/);
  });

  it('times out with no status when no poll ever succeeded', async () => {
    const { client } = scriptedControlPlane([503]);
    const { error } = await settle(
      waitForRevision(client, { deploymentId: DEPLOYMENT_ID, revisionId: REVISION_ID, intervalMs: 1000, timeoutMs: 3000 }),
    );
    expect(error).toBeInstanceOf(RevisionTimeoutError);
    expect((error as RevisionTimeoutError).lastStatus).toBeUndefined();
  });

  it('times out even when a poll is never answered', async () => {
    let polls = 0;
    const fetch = (request: Request) => {
      polls++;
      if (polls === 1) return Promise.resolve(json(200, revision('BUILDING')));
      // The server hangs: this answer only ends when the request is aborted.
      return new Promise<Response>((_, reject) =>
        request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }),
      );
    };
    const client = createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch, retry: false });
    const { error } = await settle(
      waitForRevision(client, { deploymentId: DEPLOYMENT_ID, revisionId: REVISION_ID, intervalMs: 1000, timeoutMs: 5000 }),
    );
    expect(error).toBeInstanceOf(RevisionTimeoutError);
    expect((error as RevisionTimeoutError).lastStatus).toBe('BUILDING');
    expect(polls).toBe(2);
  });

  it('aborts a poll in flight when the signal aborts', async () => {
    const fetch = (request: Request) =>
      new Promise<Response>((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }));
    const client = createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch, retry: false });
    const controller = new AbortController();
    const outcome = waitForRevision(client, { deploymentId: DEPLOYMENT_ID, revisionId: REVISION_ID, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new Error('SIGINT'));
    expect(await outcome).toEqual(new Error('SIGINT'));
  });

  it('stops polling when the signal aborts', async () => {
    const { client, polls } = scriptedControlPlane(['BUILDING']);
    const controller = new AbortController();
    const outcome = waitForRevision(client, {
      deploymentId: DEPLOYMENT_ID,
      revisionId: REVISION_ID,
      intervalMs: 60_000,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    controller.abort(new Error('cancelled by CI'));
    expect(await outcome).toEqual(new Error('cancelled by CI'));
    const before = polls();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(polls()).toBe(before);
  });
});

describe('create/update and wait', () => {
  function controlPlane(statuses: RevisionStatus[]) {
    const calls: string[] = [];
    let polls = 0;
    const fetch = async (request: Request) => {
      calls.push(`${request.method} ${new URL(request.url).pathname}`);
      if (request.method === 'POST') return json(201, { id: DEPLOYMENT_ID, latest_revision_id: REVISION_ID });
      if (request.method === 'PATCH') return json(200, { id: DEPLOYMENT_ID, latest_revision_id: 'f00dfeed-0000-4000-8000-000000000001' });
      return json(200, {
        ...revision(statuses[Math.min(polls++, statuses.length - 1)]!),
        id: new URL(request.url).pathname.split('/').at(-1),
      });
    };
    return { client: createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch }), calls };
  }

  it('createDeploymentAndWait waits for the first revision', async () => {
    const { client, calls } = controlPlane(['QUEUED', 'DEPLOYED']);
    const { value } = await settle(
      createDeploymentAndWait(
        client,
        { name: 'x', source: 'external_container', source_revision_config: { image_uri: 'r/x:1' } },
        { intervalMs: 10 },
      ),
    );
    expect(value?.revision.status).toBe('DEPLOYED');
    expect(calls[0]).toBe('POST /v2/deployments');
    expect(calls.at(-1)).toBe(`GET /v2/deployments/${DEPLOYMENT_ID}/revisions/${REVISION_ID}`);
  });

  it('updateDeploymentAndWait waits for the revision the PATCH created', async () => {
    const { client, calls } = controlPlane(['DEPLOYING', 'DEPLOYED']);
    const { value } = await settle(
      updateDeploymentAndWait(client, DEPLOYMENT_ID, { source_revision_config: { image_uri: 'r/x:2' } }, { intervalMs: 10 }),
    );
    expect(value?.revision.id).toBe('f00dfeed-0000-4000-8000-000000000001');
    expect(calls.at(-1)).toContain('/revisions/f00dfeed-0000-4000-8000-000000000001');
  });

  it('updateDeploymentAndWait refuses an update that creates no revision', async () => {
    const { client, calls } = controlPlane(['DEPLOYED']);
    await expect(updateDeploymentAndWait(client, DEPLOYMENT_ID, { secrets: [] })).rejects.toThrow(/creates no revision/);
    expect(calls).toEqual([]);
  });
});
