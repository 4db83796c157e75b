// Waiting for a revision and reporting how it ended: the heart of `deploy`, `wait`, `rollback`,
// `redeploy`, `preview` and `logs --follow`. A failed revision is reported with the tail of the
// log that says why; with a log follower, its lines are printed as they are written.
import type { Deployment, Revision, RevisionFailureStatus, RevisionLogEntry, RevisionLogType } from '@agentplane/control-plane';
import { RevisionFailedError, RevisionTimeoutError, unwrap, waitForRevision } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { CliError, EXIT, InterruptedError, UsageError } from '../errors.js';
import { durationFlag, formatDuration, parseDuration } from '../format.js';
import { failureLog, formatLogLine, LOG_TYPES, LogFollower, logTail } from '../logs.js';
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
    'the image build failed: its build log says why. Fix the cause (the graph configuration file, a dependency) and deploy again.',
  DEPLOY_FAILED:
    'the rollout failed: the new revision never started serving. Its deploy log says why (a crash at start, a missing secret, a bad image); fix and deploy again.',
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
  /** A line printed on stdout after the success line (such as a preview's URL). */
  successNote?: (deployment: Deployment | null) => string;
}

export interface LogFollowing {
  /** The logs to follow, in the order printed. */
  types: readonly RevisionLogType[];
  /**
   * Where the lines go: `progress` (stderr, between the status lines: `--logs`) or `result`
   * (stdout, and the JSON document's `logs` with --json: `logs --follow`).
   */
  to: 'progress' | 'result';
}

/** --logs on a waiting command: follow both logs as progress. Needs an API key (logs are read with one). */
export function logsFlag(ctx: Context): LogFollowing | undefined {
  if (ctx.flags.logs !== true) return undefined;
  if (!ctx.hasApiKey())
    throw new UsageError('--logs needs an API key', "pass --api-key or set AGENTPLANE_API_KEY: a revision's logs are read with one.");
  return { types: LOG_TYPES, to: 'progress' };
}

/** Waits for the revision, reports the outcome on stdout/stderr, and returns the exit code. */
export async function waitAndReport(ctx: Context, target: WaitTarget, settings: WaitSettings, logs?: LogFollowing): Promise<ExitCode> {
  const client = ctx.client('any');
  const label = target.deployment?.name ?? target.deploymentId;
  const progress = ctx.progress();
  progress.note(
    `Waiting for revision ${target.revisionId} of ${label} (polling every ${durationFlag(settings.intervalMs)}, timeout ${durationFlag(settings.timeoutMs)})`,
  );
  progress.begin();

  const collected: Partial<Record<RevisionLogType, RevisionLogEntry[]>> = Object.fromEntries((logs?.types ?? []).map((type) => [type, []]));
  const several = (logs?.types.length ?? 0) > 1;
  const follower =
    logs &&
    new LogFollower(
      ctx,
      target.deploymentId,
      target.revisionId,
      logs.types,
      (entry, type) => {
        if (logs.to === 'progress') progress.note(`  ${formatLogLine(ctx, entry, type)}`);
        else if (ctx.json) collected[type]!.push(entry);
        else ctx.stdout.write(`${formatLogLine(ctx, entry, several ? type : undefined)}\n`);
      },
      (text) => progress.note(text),
    );

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
      ...(follower ? { onPoll: () => follower.poll() } : {}),
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
  let tail: { type: RevisionLogType; entries: RevisionLogEntry[] } | undefined;
  const document = (rev: Revision | null | undefined, error?: CliError) => ({
    deployment,
    revision: rev ?? null,
    ...target.extra,
    ...(logs?.to === 'result' ? { logs: collected } : {}),
    ...(tail ? { log_tail: tail } : {}),
    ...(error ? { error: errorJson(error) } : {}),
  });

  if (revision) {
    if (ctx.json) emitJson(ctx, document(revision));
    else {
      // When stdout carries the log itself (`logs --follow`), the outcome is narration.
      const out = logs?.to === 'result' ? ctx.stderr : ctx.stdout;
      out.write(`${label}: revision ${revision.id} is DEPLOYED and serving (${formatDuration(where.totalMs)}).\n`);
      if (target.successNote) out.write(target.successNote(deployment));
    }
    return EXIT.OK;
  }

  let error: CliError;
  let final: Revision | undefined;
  if (failure instanceof RevisionFailedError) {
    final = failure.revision;
    // The end of the log that says why, unless its lines were just printed as they came.
    const type = failureLog(final.status);
    if (type && !logs?.types.includes(type) && ctx.hasApiKey()) tail = await readTail(ctx, target, type, progress);
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

/** The tail of the failed revision's log, printed as progress; undefined when it cannot be read (reported, never fatal). */
async function readTail(
  ctx: Context,
  target: WaitTarget,
  type: RevisionLogType,
  progress: { note(text: string): void },
): Promise<{ type: RevisionLogType; entries: RevisionLogEntry[] } | undefined> {
  try {
    const entries = await logTail(ctx, target.deploymentId, target.revisionId, type);
    if (entries.length === 0) return { type, entries };
    progress.note(`The ${type} log of revision ${target.revisionId} ends with:`);
    for (const entry of entries) progress.note(`  ${formatLogLine(ctx, entry)}`);
    return { type, entries };
  } catch (error) {
    if (ctx.signal?.aborted) return undefined;
    progress.note(`(could not read the ${type} log: ${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

function failureHint(status: RevisionFailureStatus, label: string, revisionId: string, deployment: Deployment | null): string {
  let hint = FAILURE_HINTS[status];
  const type = failureLog(status);
  if (type) hint += ` Its whole ${type} log: agentplane logs ${label} --revision ${revisionId} --type ${type}.`;
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
    return waitAndReport(ctx, { deployment: null, deploymentId: deploymentRef, revisionId }, settings, logsFlag(ctx));
  }
  const logs = logsFlag(ctx);
  const deployment = await resolveDeployment(ctx, deploymentRef);
  return waitAndReport(
    ctx,
    { deployment, deploymentId: deployment.id, revisionId: revisionId ?? deployment.latest_revision_id },
    settings,
    logs,
  );
}

/** `--no-wait`: the revision just made, as it stands now, and how to follow it; exit 0. */
export async function reportSubmitted(ctx: Context, target: WaitTarget): Promise<ExitCode> {
  const revision = await readRevision(ctx, target.deploymentId, target.revisionId);
  const label = target.deployment?.name ?? target.deploymentId;
  if (ctx.json) emitJson(ctx, { deployment: target.deployment, revision, ...target.extra });
  else
    ctx.stdout.write(
      `${label}: revision ${target.revisionId} is ${revision?.status ?? 'submitted'}; not waiting. Follow it with: agentplane wait ${label} ${target.revisionId}\n`,
    );
  return EXIT.OK;
}

/** For `--no-wait`: the revision as it stands now (best effort). */
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
