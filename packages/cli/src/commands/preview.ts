// Preview deployments per pull request, named `<name>-pr-<n>`:
//   `agentplane preview <name> --pr N [--image … | --ref …]` creates it from the configuration of
//     `<name>` (its source and source config, the names of its secrets) or updates it (a new
//     revision), waits, and prints its id and URL for the job summary;
//   `agentplane preview delete <name> --pr N` removes it, and succeeds when it is already gone;
//   `agentplane preview list <name>` shows the open ones.
// Secret values never come from the control plane (it only answers names): the pipeline passes
// them as for `deploy`, each from the environment variable of the same name or a --secret flag.
import type { Deployment, DeploymentCreate, DeploymentUpdate, Revision } from '@agentplane/control-plane';
import { findDeploymentByName, iterateDeployments, unwrap } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { EXIT, UsageError } from '../errors.js';
import { table } from '../format.js';
import { emitJson } from '../output.js';
import { checkName, resolveDeployment, signal } from '../resolve.js';
import { asSecrets, fromEnvironment, secretFlags } from '../secrets.js';
import { upsertDeployment } from '../upsert.js';
import { logsFlag, readRevision, reportSubmitted, waitAndReport, waitSettings } from './wait.js';

/** `<name>-pr-<n>`, checked against the spec's bounds of a deployment name before any request. */
function previewName(ctx: Context): { base: string; pr: number; name: string } {
  const base = ctx.args[0]!;
  const text = ctx.string('pr');
  if (text === undefined)
    throw new UsageError(`\`agentplane ${ctx.command}\` needs --pr <n>`, 'pass the pull request number, such as --pr 42.');
  if (!/^[1-9]\d{0,9}$/.test(text)) throw new UsageError(`--pr ${JSON.stringify(text)} is not a pull request number`, 'such as --pr 42.');
  const name = `${base}-pr-${text}`;
  checkName(name);
  return { base, pr: Number(text), name };
}

/** A preview's URL: its `custom_url`, the only URL a deployment carries. */
const urlOf = (deployment: Deployment | null) => deployment?.source_config.custom_url ?? null;

/** `agentplane preview <name> --pr N`: create or update the preview, then wait. */
export async function previewCommand(ctx: Context): Promise<ExitCode> {
  const { base, pr, name } = previewName(ctx);
  const image = ctx.string('image');
  const ref = ctx.string('ref');
  const configPath = ctx.string('config-path');
  const customUrl = ctx.string('custom-url');
  if (image && (ref || configPath))
    throw new UsageError(
      '--image cannot be combined with --ref or --config-path',
      'a preview has the source of the deployment it previews.',
    );
  const given = secretFlags(ctx) ?? new Map<string, string>();
  const settings = waitSettings(ctx);
  const logs = logsFlag(ctx);

  const origin = await resolveDeployment(ctx, base);
  if (origin.source === 'external_container' ? ref || configPath : image) {
    throw new UsageError(
      `${origin.name} ${origin.source === 'external_container' ? 'runs a container image: --ref and --config-path do not apply' : 'builds from git: --image does not apply'}`,
      origin.source === 'external_container' ? 'pass --image <uri>.' : 'pass --ref <ref> (and --config-path to change it).',
    );
  }
  // The origin's secrets, each with its value from --secret or the environment, and any other --secret.
  const secrets = new Map(given);
  for (const { name: secret } of origin.secrets) {
    if (!secrets.has(secret)) secrets.set(secret, fromEnvironment(ctx, secret, `the secret ${secret} of ${origin.name}`));
  }
  const config = origin.source_revision_config;
  const revisionConfig =
    origin.source === 'external_container'
      ? { image_uri: image ?? config.image_uri! }
      : { repo_ref: ref ?? config.repo_ref!, graph_config_path: configPath ?? config.graph_config_path! };
  const withSecrets = secrets.size > 0 ? { secrets: asSecrets(secrets) } : {};

  const { deployment, created } = await upsertDeployment(ctx, name, {
    create: (): DeploymentCreate => {
      const { integration_id, repo_url, deployment_type, resource_spec } = origin.source_config;
      return {
        name,
        source: origin.source,
        // The origin's configuration, but the pipeline drives the preview (no build on push) and
        // the origin's URL is the origin's.
        source_config: {
          integration_id,
          repo_url,
          deployment_type,
          resource_spec,
          build_on_push: false,
          custom_url: customUrl ?? null,
        },
        source_revision_config: revisionConfig,
        ...withSecrets,
      };
    },
    update: (): DeploymentUpdate => ({
      ...(customUrl ? { source_config: { custom_url: customUrl } } : {}),
      source_revision_config: revisionConfig,
      ...withSecrets,
    }),
    describe: `preview of ${origin.name} for pull request ${pr}: ${
      'image_uri' in revisionConfig
        ? `image ${revisionConfig.image_uri}`
        : `ref ${revisionConfig.repo_ref}, config ${revisionConfig.graph_config_path}`
    }`,
  });
  ctx.note(`${created ? 'Created' : 'Updated'} ${name} (${deployment.id}); new revision ${deployment.latest_revision_id}`);

  const summary = { name, pr, of: origin.name, id: deployment.id, url: urlOf(deployment) };
  const target = {
    deployment,
    deploymentId: deployment.id,
    revisionId: deployment.latest_revision_id,
    extra: { created, preview: summary },
    successNote: (now: Deployment | null) =>
      `preview  ${name}\nid       ${deployment.id}\nurl      ${urlOf(now ?? deployment) ?? 'none (give the preview one with --custom-url)'}\n`,
  };
  if (ctx.flags['no-wait'] === true) return reportSubmitted(ctx, target);
  return waitAndReport(ctx, target, settings, logs);
}

/** `agentplane preview delete <name> --pr N`: done when the preview is gone, whoever removed it. */
export async function previewDeleteCommand(ctx: Context): Promise<ExitCode> {
  const { name } = previewName(ctx);
  const client = ctx.client('api-key');
  const found = await findDeploymentByName(client, name, signal(ctx));
  if (ctx.signal?.aborted) throw ctx.signal.reason;
  let deleted: Deployment | null = null;
  if (found) {
    // Sent whole even if interrupted meanwhile. A 404: another run deleted it first, which is what was asked.
    const result = await client.DELETE('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: found.id } } });
    if (result.response.status !== 404) {
      unwrap(result);
      deleted = found;
    }
  }
  if (ctx.json) emitJson(ctx, { deleted });
  else if (deleted) ctx.stdout.write(`Deleted preview ${name} (${deleted.id}) and its revisions.\n`);
  else ctx.stdout.write(`No preview ${name}: nothing to delete.\n`);
  return EXIT.OK;
}

/** `agentplane preview list <name>`: the open previews of `<name>`, by pull request. */
export async function previewListCommand(ctx: Context): Promise<ExitCode> {
  const base = ctx.args[0]!;
  checkName(base);
  const pattern = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-pr-([1-9]\\d*)$`);
  const previews: { pr: number; deployment: Deployment; revision: Revision | null }[] = [];
  for await (const deployment of iterateDeployments(ctx.client(), { name_contains: `${base}-pr-` }, signal(ctx))) {
    const match = pattern.exec(deployment.name);
    if (!match) continue;
    previews.push({ pr: Number(match[1]), deployment, revision: await readRevision(ctx, deployment.id, deployment.latest_revision_id) });
  }
  previews.sort((a, b) => a.pr - b.pr);
  if (ctx.json) {
    emitJson(ctx, { previews });
    return EXIT.OK;
  }
  if (previews.length === 0) {
    ctx.stdout.write(`${base} has no open preview.\n`);
    return EXIT.OK;
  }
  const rows = previews.map(({ pr, deployment, revision }) => [
    String(pr),
    deployment.name,
    deployment.id,
    revision?.status ?? 'unknown',
    urlOf(deployment) ?? '',
  ]);
  ctx.stdout.write(`${table([['PR', 'PREVIEW', 'ID', 'STATUS', 'URL'], ...rows])}\n`);
  return EXIT.OK;
}
