// Where the CLI scenarios run. A Target is a control plane plus the few things a scenario needs
// to know about it: its URL and credentials, how to make a revision end a given way, and a revision
// clock fast enough to test with. The scenarios run against the emulator in process (injected
// fetch) and over HTTP (the global fetch, as a pipeline reaches a real control plane); any other
// control plane can be a Target too.
import type { ControlPlaneClient } from '@agentplane/control-plane';
import { createControlPlaneClient, iterateDeployments } from '@agentplane/control-plane';

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
