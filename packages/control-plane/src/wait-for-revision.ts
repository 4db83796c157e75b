// Waiting for a revision to finish, the way a CI/CD pipeline needs it: poll until a terminal
// status, resolve on DEPLOYED, reject with the final revision on a failure, reject on timeout
// naming the last status seen. Transient trouble while polling (network errors, 429, 5xx that
// outlast the client's own retries) never ends the wait; a 4xx (bad credentials, unknown IDs)
// does, at once, because polling again cannot fix it. The timeout bounds the whole wait, a poll
// the server never answers included.
import { ApiError, unwrap } from '@agentplane/client-core';
import { sleep } from '@agentplane/client-core/internal';
import type { ControlPlaneClient } from './client.js';
import { RevisionStatusSchema } from './generated/contract.js';
import type { Deployment, DeploymentCreate, DeploymentUpdate, Revision, RevisionStatus } from './generated/openapi.js';

/** The spec's terminal statuses (`x-terminal` of RevisionStatus): the status, and how it ends. */
const TERMINAL = RevisionStatusSchema['x-terminal'];
type Terminal = typeof TERMINAL;
type StatusesEnding<Outcome> = { [Status in keyof Terminal]: Terminal[Status] extends Outcome ? Status : never }[keyof Terminal];

export type RevisionFailureStatus = StatusesEnding<'failure'>;
/** The status a revision ends in when it was deployed. */
export const REVISION_SUCCESS_STATUS = statusesEnding('success')[0]!;
/** The statuses a revision ends in when it was not deployed. */
export const REVISION_FAILURE_STATUSES: readonly RevisionFailureStatus[] = statusesEnding('failure');

/** Whether a revision in this status never changes again. */
export function isTerminalRevisionStatus(status: RevisionStatus): boolean {
  return Object.hasOwn(TERMINAL, status);
}

function statusesEnding<Outcome extends Terminal[keyof Terminal]>(outcome: Outcome): StatusesEnding<Outcome>[] {
  return (Object.keys(TERMINAL) as (keyof Terminal)[]).filter((status): status is StatusesEnding<Outcome> => TERMINAL[status] === outcome);
}

/** The revision ended without being deployed. */
export class RevisionFailedError extends Error {
  override readonly name = 'RevisionFailedError';
  readonly revision: Revision;
  readonly status: RevisionFailureStatus;
  constructor(revision: Revision) {
    const hint = revision.status === 'SKIPPED' ? " (a newer revision superseded it; wait for the deployment's latest_revision_id)" : '';
    super(`revision ${revision.id} ended as ${revision.status}${hint}`);
    this.revision = revision;
    this.status = revision.status as RevisionFailureStatus;
  }
}

/** The revision did not reach a terminal status in time. */
export class RevisionTimeoutError extends Error {
  override readonly name = 'RevisionTimeoutError';
  /** The last status seen, or undefined if no poll succeeded. */
  readonly lastStatus: RevisionStatus | undefined;
  readonly revision: Revision | undefined;
  constructor(revisionId: string, timeoutMs: number, revision: Revision | undefined) {
    super(`revision ${revisionId} was still ${revision?.status ?? 'unreachable (no successful poll)'} after ${timeoutMs} ms`);
    this.lastStatus = revision?.status;
    this.revision = revision;
  }
}

export interface WaitForRevisionOptions {
  deploymentId: string;
  revisionId: string;
  /** Pause between polls, in ms (default 5000). */
  intervalMs?: number;
  /** Give up after this many ms (default 30 minutes). */
  timeoutMs?: number;
  /** Aborting rejects with the signal's reason and stops polling. */
  signal?: AbortSignal;
  /** Called once per status change, the first status included. */
  onStatus?: (revision: Revision) => void;
  /**
   * Called after every successful poll, terminal or not, and awaited before the wait goes on (to
   * read the revision's new log lines, say). What it throws ends the wait with that error.
   */
  onPoll?: (revision: Revision) => void | Promise<void>;
}

export type WaitOptions = Omit<WaitForRevisionOptions, 'deploymentId' | 'revisionId'>;

/** Polls the revision until it is terminal. Resolves with the DEPLOYED revision. */
export async function waitForRevision(client: ControlPlaneClient, options: WaitForRevisionOptions): Promise<Revision> {
  const { deploymentId, revisionId, intervalMs = 5_000, timeoutMs = 30 * 60_000, signal, onStatus, onPoll } = options;
  const deadline = Date.now() + timeoutMs;
  let last: Revision | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const revision = await pollOnce(client, deploymentId, revisionId, signal, deadline);
    if (revision) {
      if (revision.status !== last?.status) onStatus?.(revision);
      last = revision;
      await onPoll?.(revision);
      if (revision.status === REVISION_SUCCESS_STATUS) return revision;
      if (isTerminalRevisionStatus(revision.status)) throw new RevisionFailedError(revision);
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new RevisionTimeoutError(revisionId, timeoutMs, last);
    await sleep(Math.min(intervalMs, remaining), signal);
  }
}

/**
 * One poll: the revision, or undefined for a transient failure worth polling again. A poll still
 * unanswered at the deadline is aborted and counts as transient; the caller then times out.
 */
async function pollOnce(
  client: ControlPlaneClient,
  deploymentId: string,
  revisionId: string,
  signal: AbortSignal | undefined,
  deadline: number,
): Promise<Revision | undefined> {
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(new Error('the wait timed out during a poll')), Math.max(0, deadline - Date.now()));
  const request = client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
    params: { path: { deployment_id: deploymentId, revision_id: revisionId } },
    signal: signal ? AbortSignal.any([signal, budget.signal]) : budget.signal,
  });
  // A network error, or the deadline passed during the poll: undefined, poll again.
  const result = await request.catch(() => undefined).finally(() => clearTimeout(timer));
  if (signal?.aborted) throw signal.reason;
  if (!result) return undefined;
  const status = result.response.status;
  if (result.data) return result.data;
  if (status === 429 || status >= 500) return undefined;
  throw new ApiError(status, result.error, result.response.url);
}

/** Creates a deployment and waits for its first revision. */
export async function createDeploymentAndWait(
  client: ControlPlaneClient,
  body: DeploymentCreate,
  options: WaitOptions = {},
): Promise<{ deployment: Deployment; revision: Revision }> {
  const deployment = unwrap(await client.POST('/v2/deployments', { body, ...(options.signal ? { signal: options.signal } : {}) }));
  const revision = await waitForRevision(client, { ...options, deploymentId: deployment.id, revisionId: deployment.latest_revision_id });
  return { deployment, revision };
}

/**
 * Updates a deployment's source and waits for the revision that update created. The body must
 * set a non-null `repo_ref`, `graph_config_path` or `image_uri`, else no revision is created.
 */
export async function updateDeploymentAndWait(
  client: ControlPlaneClient,
  deploymentId: string,
  body: DeploymentUpdate,
  options: WaitOptions = {},
): Promise<{ deployment: Deployment; revision: Revision }> {
  const source = body.source_revision_config;
  if (!source || (source.repo_ref == null && source.graph_config_path == null && source.image_uri == null)) {
    throw new TypeError(
      'updateDeploymentAndWait needs a non-null repo_ref, graph_config_path or image_uri: without one the update creates no revision to wait for',
    );
  }
  const deployment = unwrap(
    await client.PATCH('/v2/deployments/{deployment_id}', {
      params: { path: { deployment_id: deploymentId } },
      body,
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  );
  const revision = await waitForRevision(client, { ...options, deploymentId: deployment.id, revisionId: deployment.latest_revision_id });
  return { deployment, revision };
}
