// `agentplane logs <deployment> [--revision ID] [--type build|deploy] [--follow]`: a revision's
// build and deploy logs on stdout. Without --follow it prints what has been written so far and
// exits 0 whatever the revision's status; with --follow it keeps printing new lines until the
// revision is terminal and exits as `wait` does.
import type { Revision, RevisionLogEntry, RevisionLogType } from '@agentplane/control-plane';
import { isTerminalRevisionStatus, readRevisionLog, unwrap } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { EXIT, UsageError } from '../errors.js';
import { formatLogLine, LOG_TYPES } from '../logs.js';
import { emitJson } from '../output.js';
import { isId, resolveDeployment, signal } from '../resolve.js';
import { waitAndReport, waitSettings } from './wait.js';

export async function logsCommand(ctx: Context): Promise<ExitCode> {
  const types = typeFlag(ctx);
  const revisionId = ctx.string('revision');
  if (revisionId !== undefined && !isId(revisionId)) {
    throw new UsageError(
      `--revision ${JSON.stringify(revisionId)} is not a revision ID (a UUID)`,
      'omit it for the latest revision, or copy the ID from `agentplane revisions <deployment>`.',
    );
  }
  const settings = ctx.flags.follow === true ? waitSettings(ctx) : undefined;
  const deployment = await resolveDeployment(ctx, ctx.args[0]!);
  const target = { deployment, deploymentId: deployment.id, revisionId: revisionId ?? deployment.latest_revision_id };
  if (settings) return waitAndReport(ctx, target, settings, { types, to: 'result' });

  const revision: Revision = unwrap(
    await ctx.client().GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
      params: { path: { deployment_id: deployment.id, revision_id: target.revisionId } },
      ...signal(ctx),
    }),
  );
  const logs: Partial<Record<RevisionLogType, RevisionLogEntry[]>> = {};
  for (const type of types) {
    logs[type] = (await readRevisionLog(ctx.client(), deployment.id, revision.id, { type }, signal(ctx))).entries;
  }
  if (ctx.json) {
    emitJson(ctx, { deployment, revision, logs });
    return EXIT.OK;
  }
  const lines = types.flatMap((type) => logs[type]!.map((entry) => formatLogLine(ctx, entry, types.length > 1 ? type : undefined)));
  if (lines.length > 0) ctx.stdout.write(`${lines.join('\n')}\n`);
  ctx.note(
    `${lines.length === 0 ? 'No log lines yet. ' : ''}Revision ${revision.id} of ${deployment.name} is ${revision.status}${
      isTerminalRevisionStatus(revision.status) ? '' : '; follow it with --follow'
    }.`,
  );
  return EXIT.OK;
}

/** --type build|deploy, or both (build first). */
function typeFlag(ctx: Context): readonly RevisionLogType[] {
  const text = ctx.string('type');
  if (text === undefined) return LOG_TYPES;
  const type = LOG_TYPES.find((t) => t === text.toLowerCase());
  if (!type)
    throw new UsageError(`--type ${JSON.stringify(text)} is not a log`, `use ${LOG_TYPES.join(' or ')}, or leave it out for both.`);
  return [type];
}
