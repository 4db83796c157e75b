// The control plane the CLI's unit tests run against: the real emulator, in process (no port),
// with every request the CLI sent recorded, and a revision clock that moves one status per poll,
// so a deploy walks QUEUED → ... → DEPLOYED in as many polls, deterministically and at once.
import type { Deployment, DeploymentCreate } from '@agentplane/control-plane';
import { createControlPlaneClient, findDeploymentByName, unwrap } from '@agentplane/control-plane';
import type { EmulatorConfig } from '@agentplane/emulator';
import { createEmulator } from '@agentplane/emulator';
import { afterEach, expect } from 'vitest';

/** How long each revision status lasts on the emulator's clock; a poll moves the clock by one step. */
const STEP_MS = 1_000;

export const CONTROL_PLANE_CREDENTIALS = { apiKey: 'cli-test-key', tenantId: 'tenant-ci', bearerToken: 'eyJ.cli-test.token' } as const;

/** The emulator config the CLI's tests rely on: one tenant with a pool and a provider, and outcomes (some with log lines) by image or ref suffix. */
export const TEST_EMULATOR_CONFIG: EmulatorConfig = {
  revision_outcomes: [
    // A failure that says why, with a line that echoes a secret value (the CLI must mask it).
    {
      match: '*--bad-deps',
      status: 'BUILD_FAILED',
      log: [
        'ERROR: Could not find a version that satisfies the requirement langchain-openai==9.9.9',
        { level: 'CRITICAL', message: 'Installing dependencies failed (exit code 1)' },
      ],
    },
    { match: '*--leaky-crash', status: 'DEPLOY_FAILED', log: ['Start-up failed: OPENAI_API_KEY=sk-test-4242-leak was refused'] },
    { match: '*--create-failed', status: 'CREATE_FAILED' },
    { match: '*--build-failed', status: 'BUILD_FAILED' },
    { match: '*--deploy-failed', status: 'DEPLOY_FAILED' },
    { match: '*--interrupted', status: 'INTERRUPTED' },
  ],
  tenants: [
    {
      id: CONTROL_PLANE_CREDENTIALS.tenantId,
      api_keys: [CONTROL_PLANE_CREDENTIALS.apiKey],
      bearer_tokens: [CONTROL_PLANE_CREDENTIALS.bearerToken],
      sandbox_pools: [{ name: 'python-pool', template_name: 'python-3-12', replicas: 2 }],
      oauth_providers: [
        {
          provider_id: 'github',
          name: 'GitHub',
          client_id: 'Iv1.8a61f9b3a7aba766',
          auth_url: 'https://github.com/login/oauth/authorize',
          token_url: 'https://github.com/login/oauth/access_token',
        },
      ],
    },
  ],
};

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

export interface TestControlPlane {
  baseUrl: string;
  apiKey: string;
  /** The fetch to give the CLI: it records the request, then the emulator answers it. */
  fetch: (request: Request) => Promise<Response>;
  requests: RecordedRequest[];
  /** The requests that changed something, as `METHOD /path`. */
  writes(): string[];
  /** Creates a deployment through the API, as if created earlier (not recorded). */
  seed(body: DeploymentCreate): Promise<Deployment>;
  /** The deployment of that exact name, read through the API (not recorded). */
  byName(name: string): Promise<Deployment | undefined>;
  /** Runs `hook` before the emulator answers each request the CLI sends. */
  beforeEach(hook: (request: Request) => void | Promise<void>): void;
  /** Contract violations and internal errors the emulator reported (checked empty after each test). */
  errors: string[];
}

const open: TestControlPlane[] = [];
const closers = new WeakMap<TestControlPlane, () => void>();
afterEach(() => {
  for (const controlPlane of open.splice(0)) {
    closers.get(controlPlane)?.();
    expect(controlPlane.errors, 'the emulator reported contract violations or internal errors').toEqual([]);
  }
});

/** A fresh control plane for one test; it is closed (and its error log checked) after the test. */
export function testControlPlane(): TestControlPlane {
  let clock = Date.parse('2026-11-20T08:00:00.000Z');
  const errors: string[] = [];
  const emulator = createEmulator({
    config: TEST_EMULATOR_CONFIG,
    revisionStepMs: STEP_MS,
    now: () => clock,
    validateResponses: true,
    onError: (m) => errors.push(m),
  });
  const api = createControlPlaneClient({
    baseUrl: emulator.controlPlane.url,
    apiKey: CONTROL_PLANE_CREDENTIALS.apiKey,
    fetch: emulator.controlPlane.fetch,
    retry: false,
  });
  const requests: RecordedRequest[] = [];
  const hooks: ((request: Request) => void | Promise<void>)[] = [];
  const controlPlane: TestControlPlane = {
    baseUrl: emulator.controlPlane.url,
    errors,
    apiKey: CONTROL_PLANE_CREDENTIALS.apiKey,
    requests,
    async fetch(request) {
      // Like the real fetch: an aborted request is never sent.
      request.signal.throwIfAborted();
      for (const hook of hooks) await hook(request);
      const url = new URL(request.url);
      const text = await request.clone().text();
      requests.push({
        method: request.method,
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      });
      const response = await emulator.controlPlane.fetch(request);
      // A poll of a revision: the next poll finds it one status further.
      if (request.method === 'GET' && /\/revisions\/[^/]+$/.test(url.pathname)) clock += STEP_MS;
      return response;
    },
    writes: () => requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
    seed: async (body) => unwrap(await api.POST('/v2/deployments', { body })),
    byName: (name) => findDeploymentByName(api, name),
    beforeEach: (hook) => void hooks.push(hook),
  };
  open.push(controlPlane);
  closers.set(controlPlane, () => emulator.close());
  return controlPlane;
}
