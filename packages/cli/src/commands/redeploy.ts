// `agentplane redeploy <deployment>`: a new revision of the deployment's current configuration
// (createRevision), which builds a branch's head again or pulls a moving image tag again, then a
// wait as `deploy` does. Nothing of the configuration changes.
import { unwrap } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { resolveDeployment } from '../resolve.js';
import { describe } from './rollback.js';
import { logsFlag, reportSubmitted, waitAndReport, waitSettings } from './wait.js';

export async function redeployCommand(ctx: Context): Promise<ExitCode> {
  const settings = waitSettings(ctx);
  const logs = logsFlag(ctx);
  const deployment = await resolveDeployment(ctx, ctx.args[0]!);
  // Sent whole even if interrupted meanwhile; the interrupt then ends the wait before its first poll.
  const revision = unwrap(
    await ctx.client().POST('/v2/deployments/{deployment_id}/revisions', { params: { path: { deployment_id: deployment.id } } }),
  );
  ctx.note(`Created revision ${revision.id} of ${deployment.name} (${deployment.id}): ${describe(revision)}, as configured`);
  const target = { deployment: { ...deployment, latest_revision_id: revision.id }, deploymentId: deployment.id, revisionId: revision.id };
  if (ctx.flags['no-wait'] === true) return reportSubmitted(ctx, target);
  return waitAndReport(ctx, target, settings, logs);
}
