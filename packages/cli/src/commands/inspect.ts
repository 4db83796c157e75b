// The read-only commands and delete: status, revisions, delete, pool get, provider get.
import type { Revision, RevisionStatus } from '@agentplane/control-plane';
import { iterateRevisions, unwrap } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { EXIT, UsageError } from '../errors.js';
import { keyValues, table } from '../format.js';
import { RevisionStatusSchema } from '../generated/contract.js';
import { emitJson } from '../output.js';
import { resolveDeployment, signal } from '../resolve.js';

/** Every revision status, as the spec's RevisionStatus enum lists them. */
const STATUSES: readonly RevisionStatus[] = RevisionStatusSchema.enum;

/** `agentplane status <deployment>`: the deployment and its latest revision. */
export async function statusCommand(ctx: Context): Promise<ExitCode> {
  const deployment = await resolveDeployment(ctx, ctx.args[0]!);
  const revision = unwrap(
    await ctx.client().GET('/v2/deployments/{deployment_id}/revisions/{revision_id}', {
      params: { path: { deployment_id: deployment.id, revision_id: deployment.latest_revision_id } },
      ...signal(ctx),
    }),
  );
  if (ctx.json) {
    emitJson(ctx, { deployment, revision });
    return EXIT.OK;
  }
  const config = deployment.source_revision_config;
  ctx.stdout.write(
    `${deployment.name}  ${deployment.id}\n${keyValues([
      ['source', deployment.source],
      ['image', config.image_uri ?? undefined],
      ['repository', deployment.source_config.repo_url ?? undefined],
      ['ref', config.repo_ref ?? undefined],
      ['config path', config.graph_config_path ?? undefined],
      ['commit', config.repo_commit_sha ?? undefined],
      ['latest revision', `${revision.id}  ${revision.status} (since ${revision.updated_at})`],
      ['active revision', deployment.active_revision_id ?? 'none (nothing serving yet)'],
      ['secrets', deployment.secrets.map((s) => s.name).join(', ') || 'none'],
      ['created', deployment.created_at],
      ['updated', deployment.updated_at],
    ])}\n`,
  );
  return EXIT.OK;
}

/** `agentplane revisions <deployment> [--status S] [--limit n]`: newest first. */
export async function revisionsCommand(ctx: Context): Promise<ExitCode> {
  const limitText = ctx.string('limit')!;
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1) throw new UsageError(`--limit ${JSON.stringify(limitText)} is not a positive whole number`);
  const statusText = ctx.string('status');
  const status = statusText?.toUpperCase() as RevisionStatus | undefined;
  if (status !== undefined && !STATUSES.includes(status)) {
    throw new UsageError(`--status ${JSON.stringify(statusText)} is not a revision status`, `use one of ${STATUSES.join(', ')}.`);
  }
  const deployment = await resolveDeployment(ctx, ctx.args[0]!);
  const revisions: Revision[] = [];
  for await (const revision of iterateRevisions(ctx.client(), deployment.id, status ? { status } : {}, {
    pageSize: Math.min(limit, 100),
    ...signal(ctx),
  })) {
    revisions.push(revision);
    if (revisions.length >= limit) break;
  }
  if (ctx.json) {
    emitJson(ctx, { deployment, revisions });
    return EXIT.OK;
  }
  if (revisions.length === 0) {
    ctx.stdout.write(`${deployment.name} has no revision${status ? ` with status ${status}` : ''}.\n`);
    return EXIT.OK;
  }
  const rows = revisions.map((r) => {
    const marks = [r.id === deployment.active_revision_id && 'active', r.id === deployment.latest_revision_id && 'latest']
      .filter(Boolean)
      .join(', ');
    const what =
      r.source_revision_config.image_uri ??
      [r.source_revision_config.repo_ref, r.source_revision_config.repo_commit_sha?.slice(0, 12)].filter(Boolean).join(' @ ');
    return [r.id, r.status, r.created_at, what, marks ? `(${marks})` : ''];
  });
  ctx.stdout.write(`${table([['REVISION', 'STATUS', 'CREATED', 'SOURCE', ''], ...rows])}\n`);
  return EXIT.OK;
}

/** `agentplane delete <deployment>`: the deployment and all its revisions, for good. */
export async function deleteCommand(ctx: Context): Promise<ExitCode> {
  const deployment = await resolveDeployment(ctx, ctx.args[0]!);
  // Sent whole even if interrupted meanwhile: a half-known delete helps nobody.
  unwrap(await ctx.client().DELETE('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: deployment.id } } }));
  if (ctx.json) emitJson(ctx, { deleted: deployment });
  else ctx.stdout.write(`Deleted deployment ${deployment.name} (${deployment.id}) and its revisions.\n`);
  return EXIT.OK;
}

/** `agentplane pool get <name>` */
export async function poolGetCommand(ctx: Context): Promise<ExitCode> {
  const pool = unwrap(await ctx.client().GET('/v2/sandboxes/pools/{name}', { params: { path: { name: ctx.args[0]! } }, ...signal(ctx) }));
  if (ctx.json) emitJson(ctx, { pool });
  else {
    ctx.stdout.write(
      `${pool.name}  ${pool.id}\n${keyValues([
        ['template', pool.template_name],
        ['replicas', String(pool.replicas)],
        ['created', pool.created_at],
        ['updated', pool.updated_at],
      ])}\n`,
    );
  }
  return EXIT.OK;
}

/** `agentplane provider get <id>` */
export async function providerGetCommand(ctx: Context): Promise<ExitCode> {
  const provider = unwrap(
    await ctx.client().GET('/v2/auth/providers/{provider_id}', { params: { path: { provider_id: ctx.args[0]! } }, ...signal(ctx) }),
  );
  if (ctx.json) emitJson(ctx, { provider });
  else {
    ctx.stdout.write(
      `${provider.provider_id}  ${provider.name}\n${keyValues([
        ['id', provider.id],
        ['type', provider.provider_type ?? undefined],
        ['client id', provider.client_id],
        ['auth url', provider.auth_url],
        ['token url', provider.token_url],
        ['token auth', provider.token_endpoint_auth_method],
        ['pkce', provider.uses_pkce ? `yes (${provider.code_challenge_method ?? 'method not set'})` : 'no'],
        ['mcp server', provider.mcp_server_url ?? undefined],
        ['dynamic client', provider.is_dynamic_client ? 'yes' : 'no'],
        ['created', provider.created_at],
        ['updated', provider.updated_at],
      ])}\n`,
    );
  }
  return EXIT.OK;
}
