// Where the CLI scenarios run. A Target is a control plane plus the few things a scenario needs
// to know about it: its URL and credentials, how to make a revision end a given way, and a revision
// clock fast enough to test with. The unit suite uses the in-memory fake (injected fetch, and
// over HTTP with the global fetch); the end-to-end suite adds the emulator, whose
// `revision_outcomes` globs on the image URI / ref and `step_ms` clock map onto image(), ref()
// and the duration flags.
import { type ControlPlaneClient, createControlPlaneClient, iterateDeployments } from '@agentplane/control-plane';
import { FakeControlPlane, type FakeOutcome } from './fake-control-plane.js';

/**
 * How a revision made from an image or ref ends: a terminal status, or SLOW (still in progress
 * well after `shortTimeoutFlag`, for timeouts, --no-wait and SIGINT). SKIPPED is not an outcome
 * of the image: the scenarios make it the way it happens, by deploying again before the first
 * revision finished.
 */
export type Outcome = 'DEPLOYED' | 'CREATE_FAILED' | 'BUILD_FAILED' | 'DEPLOY_FAILED' | 'INTERRUPTED' | 'SLOW';

export interface Target {
  label: string;
  baseUrl: string;
  apiKey: string;
  /** A well-formed API key this server refuses (401). */
  invalidApiKey: string;
  /** fetch to give run(); undefined means the global fetch against baseUrl. */
  fetch?: (request: Request) => Promise<Response>;
  /** A container image whose revision ends as `outcome` on this server. */
  image(outcome: Outcome): string;
  /** A git ref whose revision ends as `outcome` on this server. */
  ref(outcome: Outcome): string;
  /** --interval (and a --timeout for waits that should finish) suited to the server's revision clock. */
  intervalFlag: string;
  timeoutFlag: string;
  /** A --timeout that a SLOW revision outlasts. */
  shortTimeoutFlag: string;
  close?(): Promise<void>;
}

/** Environment for run(): base URL and API key. */
export function targetEnv(target: Target, extra: Record<string, string> = {}): Record<string, string> {
  return { AGENTPLANE_BASE_URL: target.baseUrl, AGENTPLANE_API_KEY: target.apiKey, ...extra };
}

export function targetClient(target: Target): ControlPlaneClient {
  return createControlPlaneClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, ...(target.fetch ? { fetch: target.fetch } : {}) });
}

/** How many deployments have exactly this name, as the server lists them. */
export async function countByName(target: Target, name: string): Promise<number> {
  let count = 0;
  for await (const deployment of iterateDeployments(targetClient(target), { name_contains: name })) if (deployment.name === name) count++;
  return count;
}

let names = 0;
/** A deployment name no other scenario uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid}-${++names}`;
}

const FAKE_SUFFIX: Record<Outcome, FakeOutcome> = {
  DEPLOYED: 'deployed',
  CREATE_FAILED: 'create-failed',
  BUILD_FAILED: 'build-failed',
  DEPLOY_FAILED: 'deploy-failed',
  INTERRUPTED: 'interrupted',
  SLOW: 'never',
};

function fakeTarget(fake: FakeControlPlane, label: string, baseUrl: string, fetch: Target['fetch'], close?: () => Promise<void>): Target {
  let images = 0;
  return {
    label,
    baseUrl,
    apiKey: fake.apiKey,
    invalidApiKey: 'not-the-key',
    ...(fetch ? { fetch } : {}),
    image: (outcome) => `registry.test/agents/app:1.0.${++images}${outcome === 'DEPLOYED' ? '' : `--${FAKE_SUFFIX[outcome]}`}`,
    ref: (outcome) => (outcome === 'DEPLOYED' ? 'main' : `release--${FAKE_SUFFIX[outcome]}`),
    intervalFlag: '5ms',
    timeoutFlag: '10s',
    shortTimeoutFlag: '200ms',
    ...(close ? { close } : {}),
  };
}

/** The in-memory fake, reached through an injected fetch (no network at all). */
export function fakeFetchTarget(fake = new FakeControlPlane()): Target & { fake: FakeControlPlane } {
  return { ...fakeTarget(fake, 'fake control plane (injected fetch)', 'http://control-plane.test', fake.fetch), fake };
}

/** The same fake served over HTTP on localhost, reached with the global fetch as a real server would be. */
export async function fakeHttpTarget(fake = new FakeControlPlane()): Promise<Target & { fake: FakeControlPlane }> {
  const server = await fake.serve();
  return { ...fakeTarget(fake, 'fake control plane over HTTP (global fetch)', server.url, undefined, server.close), fake };
}
