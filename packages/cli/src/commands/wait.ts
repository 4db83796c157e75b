// Waiting for a revision and reporting how it ended: the heart of `deploy` and `wait`.
import type { Deployment, Revision, RevisionFailureStatus } from '@agentplane/control-plane';
import { RevisionFailedError, RevisionTimeoutError, unwrap, waitForRevision } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { CliError, EXIT, InterruptedError, UsageError } from '../errors.js';
import { durationFlag, formatDuration, parseDuration } from '../format.js';
import { emitJson, errorJson, printError } from '../output.js';
import type { Snapshot } from '../progress.js';
import { isId, resolveDeployment, signal } from '../resolve.js';

export interface WaitSettings {
  timeoutMs: number;
  intervalMs: number;
}

/** --timeout and --interval, checked before any request. */
export function waitSettings(ctx: Context): WaitSettings {
  const read = (flag: 'timeout' | 'interval', min: number) => {
    const text = ctx.string(flag)!;
    const ms = parseDuration(text);
    if (ms === undefined || ms < min) {
      throw new UsageError(
        `--${flag} ${JSON.stringify(text)} is not a ${min > 0 ? 'positive ' : ''}duration`,
        'write it as 90s, 20m, 1h30m or 500ms, or as a number of seconds.',
      );
    }
    return ms;
  };
  return { timeoutMs: read('timeout', 1), intervalMs: read('interval', 0) };
}

const FAILURE_HINTS: Record<RevisionFailureStatus, string> = {
  CREATE_FAILED:
    'the control plane could not create the revision. Check the source (the image URI and that its registry is reachable, or the repository URL, ref and config path) and the secrets, then deploy again.',
  BUILD_FAILED:
    "the image build failed. Read the revision's build logs in the control plane, fix the cause (the graph configuration file, a dependency) and deploy again.",
  DEPLOY_FAILED:
    "the rollout failed: the new revision never started serving. Read the deployment's server logs (a crash at start, a missing secret, a bad image), fix and deploy again.",
  INTERRUPTED: 'the build or rollout was stopped before it finished (cancelled, or the platform restarted). Deploy again.',
  SKIPPED: 'a newer revision superseded this one before it was deployed: another deploy ran meanwhile.',
};

export interface WaitTarget {
  /** The deployment as last read; null when the credentials cannot read it (tenant ID or bearer token). */
  deployment: Deployment | null;
  deploymentId: string;
  revisionId: string;
  /** Extra members of the JSON document (such as `created` for deploy). */
  extra?: Record<string, unknown>;
}

/** Waits for the revision, reports the outcome on stdout/stderr, and returns the exit code. */
export async function waitAndReport(ctx: Context, target: WaitTarget, settings: WaitSettings): Promise<ExitCode> {
  const client = ctx.client('any');
  const label = target.deployment?.name ?? target.deploymentId;
  const progress = ctx.progress();
  progress.note(
    `Waiting for revision ${target.revisionId} of ${label} (polling every ${durationFlag(settings.intervalMs)}, timeout ${durationFlag(settings.timeoutMs)})`,
  );
  progress.begin();

  let revision: Revision | undefined;
  let failure: unknown;
  try {
    revision = await waitForRevision(client, {
      deploymentId: target.deploymentId,
      revisionId: target.revisionId,
      intervalMs: settings.intervalMs,
      timeoutMs: settings.timeoutMs,
      ...signal(ctx),
      onStatus: (r) => progress.status(r),
    });
  } catch (error) {
    failure = error;
  } finally {
    progress.end();
  }
  const where = progress.snapshot();

  if (ctx.signal?.aborted) return interrupted(ctx, target, label, where);
  if (failure !== undefined && !(failure instanceof RevisionFailedError) && !(failure instanceof RevisionTimeoutError)) throw failure;

  // The deployment as it is now (active_revision_id moves on DEPLOYED); best effort.
  const deployment = (await refresh(ctx, target)) ?? target.deployment;
  const document = (rev: Revision | null | undefined, error?: CliError) => ({
    deployment,
    revision: rev ?? null,
    ...target.extra,
    ...(error ? { error: errorJson(error) } : {}),
  });

  if (revision) {
    if (ctx.json) emitJson(ctx, document(revision));
    else ctx.stdout.write(`${label}: revision ${revision.id} is DEPLOYED and serving (${formatDuration(where.totalMs)}).\n`);
    return EXIT.OK;
  }

  let error: CliError;
  let final: Revision | undefined;
  if (failure instanceof RevisionFailedError) {
    final = failure.revision;
    error = new CliError(
      EXIT.FAILED,
      `revision ${final.id} of ${label} ended as ${final.status} after ${formatDuration(where.totalMs)}`,
      failureHint(failure.status, label, final.id, deployment),
    );
  } else {
    const timeout = failure as RevisionTimeoutError;
    final = timeout.revision;
    const stood = timeout.lastStatus ? `is still ${timeout.lastStatus} (for ${formatDuration(where.inStatusMs)})` : 'never answered a poll';
    error = new CliError(
      EXIT.TIMEOUT,
      `timed out after ${durationFlag(settings.timeoutMs)}: revision ${target.revisionId} of ${label} ${stood}`,
      `the revision goes on on the server. Wait longer with: agentplane wait ${label} ${target.revisionId} --timeout ${durationFlag(settings.timeoutMs * 2)}`,
    );
  }
  printError(ctx, error);
  if (ctx.json) emitJson(ctx, document(final, error));
  return error.exitCode;
}

function failureHint(status: RevisionFailureStatus, label: string, revisionId: string, deployment: Deployment | null): string {
  let hint = FAILURE_HINTS[status];
  if (status === 'SKIPPED') {
    const latest = deployment?.latest_revision_id;
    if (latest && latest !== revisionId) hint += ` Follow the newer one: agentplane wait ${label} ${latest}`;
    else hint += ` Follow the latest one: agentplane wait ${label}`;
  } else if (deployment) {
    const active = deployment.active_revision_id;
    hint += active && active !== revisionId ? ` Revision ${active} keeps serving.` : ' Nothing of this deployment is serving.';
  }
  return hint;
}

async function refresh(ctx: Context, target: WaitTarget): Promise<Deployment | null> {
  if (!ctx.hasApiKey() || ctx.signal?.aborted) return null;
  try {
    const result = await ctx
      .client('api-key')
      .GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: target.deploymentId } }, ...signal(ctx) });
    return result.data ?? null;
  } catch {
    return null;
  }
}

function interrupted(ctx: Context, target: WaitTarget, label: string, where: Snapshot): ExitCode {
  const reason = ctx.signal?.reason;
  const exitCode = reason instanceof InterruptedError ? reason.exitCode : EXIT.INTERRUPTED;
  const stood = where.status
    ? `was ${where.status} (for ${formatDuration(where.inStatusMs)}; ${formatDuration(where.totalMs)} since the wait began)`
    : 'had not answered a poll yet';
  const error = new CliError(
    exitCode,
    `interrupted: stopped waiting. Revision ${target.revisionId} of ${label} ${stood}. Nothing was cancelled or rolled back: the revision goes on on the server.`,
    `resume with: agentplane wait ${label} ${target.revisionId}`,
  );
  printError(ctx, error);
  if (ctx.json)
    emitJson(ctx, { deployment: target.deployment, revision: where.revision ?? null, ...target.extra, error: errorJson(error) });
  return exitCode;
}

/** `agentplane wait <deployment> [revision]` */
export async function waitCommand(ctx: Context): Promise<ExitCode> {
  const [deploymentRef, revisionId] = ctx.args as [string, string | undefined];
  const settings = waitSettings(ctx);
  if (revisionId !== undefined && !isId(revisionId)) {
    throw new UsageError(
      `revision ${JSON.stringify(revisionId)} is not a revision ID (a UUID)`,
      'omit it to wait for the latest revision, or copy the ID from `agentplane revisions <deployment>`.',
    );
  }
  // Without an API key, only getRevision is allowed: both IDs must be given as IDs.
  if (!ctx.hasApiKey()) {
    if (!isId(deploymentRef) || revisionId === undefined) {
      throw new UsageError(
        'without an API key, `agentplane wait` needs a deployment ID and a revision ID',
        'pass --api-key (or AGENTPLANE_API_KEY) to wait by name or for the latest revision; a tenant ID or bearer token only reads one revision by its IDs.',
      );
    }
    return waitAndReport(ctx, { deployment: null, deploymentId: deploymentRef, revisionId }, settings);
  }
  const deployment = await resolveDeployment(ctx, deploymentRef);
  return waitAndReport(ctx, { deployment, deploymentId: deployment.id, revisionId: revisionId ?? deployment.latest_revision_id }, settings);
}

/** For `deploy --no-wait`: the revision as it stands now (best effort). */
export async function readRevision(ctx: Context, deploymentId: string, revisionId: string): Promise<Revision | null> {
  try {
    return unwrap(
      await ctx.client('any').GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
        params: { path: { deployment_id: deploymentId, revision_id: revisionId } },
        ...signal(ctx),
      }),
    );
  } catch {
    return null;
  }
}
