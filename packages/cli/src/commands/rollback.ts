// `agentplane rollback <deployment> [--to REVISION | --previous]`: redeploy an earlier revision
// (redeployRevision: an image is not built again) and wait for the new revision as `deploy` does.
// The default target is the newest DEPLOYED revision before the one serving now; when there is
// none, there is nothing to roll back to (exit 4) and nothing is changed.
import type { Deployment, Revision } from '@agentplane/control-plane';
import { iterateRevisions, unwrap } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { isId, resolveDeployment, signal } from '../resolve.js';
import { logsFlag, reportSubmitted, waitAndReport, waitSettings } from './wait.js';

export async function rollbackCommand(ctx: Context): Promise<ExitCode> {
  const to = ctx.string('to');
  if (to !== undefined && ctx.flags.previous === true)
    throw new UsageError('--to and --previous both choose the revision to roll back to', 'give one of them (--previous is the default).');
  if (to !== undefined && !isId(to))
    throw new UsageError(
      `--to ${JSON.stringify(to)} is not a revision ID (a UUID)`,
      'copy the ID from `agentplane revisions <deployment> --status DEPLOYED`.',
    );
  const settings = waitSettings(ctx);
  const logs = logsFlag(ctx);
  const deployment = await resolveDeployment(ctx, ctx.args[0]!);
  const target = to === undefined ? await previousRevision(ctx, deployment) : await revisionOf(ctx, deployment, to);
  const serving = deployment.active_revision_id;
  ctx.note(
    `Rolling back ${deployment.name} (${deployment.id}) ${serving ? `from revision ${serving} ` : ''}to revision ${target.id} (${describe(target)})`,
  );
  // Sent whole even if interrupted meanwhile; the interrupt then ends the wait before its first poll.
  const rolled = unwrap(
    await ctx.client().POST('/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', {
      params: { path: { deployment_id: deployment.id, revision_id: target.id } },
    }),
  );
  ctx.note(`Redeployed revision ${target.id} as new revision ${rolled.latest_revision_id}`);
  const waitTarget = {
    deployment: rolled,
    deploymentId: rolled.id,
    revisionId: rolled.latest_revision_id,
    extra: { rolled_back_to: target },
  };
  if (ctx.flags['no-wait'] === true) return reportSubmitted(ctx, waitTarget);
  return waitAndReport(ctx, waitTarget, settings, logs);
}

/** The newest DEPLOYED revision before the one serving now (revisions are listed newest first). */
async function previousRevision(ctx: Context, deployment: Deployment): Promise<Revision> {
  const serving = deployment.active_revision_id;
  if (!serving)
    throw new CliError(
      EXIT.NOT_FOUND,
      `nothing to roll back to: no revision of ${deployment.name} has been DEPLOYED`,
      'a rollback redeploys a revision that was serving before; deploy one first.',
    );
  let pastServing = false;
  for await (const revision of iterateRevisions(ctx.client(), deployment.id, { status: 'DEPLOYED' }, signal(ctx))) {
    if (pastServing) return revision;
    if (revision.id === serving) pastServing = true;
  }
  throw new CliError(
    EXIT.NOT_FOUND,
    `nothing to roll back to: revision ${serving} is serving, and no revision of ${deployment.name} was DEPLOYED before it`,
    `pass --to <revision> to redeploy another revision (see \`agentplane revisions ${deployment.name}\`).`,
  );
}

async function revisionOf(ctx: Context, deployment: Deployment, id: string): Promise<Revision> {
  return unwrap(
    await ctx.client().GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
      params: { path: { deployment_id: deployment.id, revision_id: id } },
      ...signal(ctx),
    }),
  );
}

/** What a revision deploys: its image, or its ref and commit. */
export function describe(revision: Revision): string {
  const config = revision.source_revision_config;
  if (config.image_uri) return `image ${config.image_uri}`;
  return [`ref ${config.repo_ref}`, config.repo_commit_sha && `commit ${config.repo_commit_sha.slice(0, 12)}`].filter(Boolean).join(', ');
}
