// `agentplane deploy <name>`: find the deployment by exact name or create it; for an existing
// one, PATCH the new image_uri or repo_ref (which makes a new revision); then wait for the
// revision it made. Running it twice never creates two deployments (upsert.ts).
import type { Deployment, DeploymentCreate, DeploymentUpdate, Secret } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { UsageError } from '../errors.js';
import { checkName } from '../resolve.js';
import { asSecrets, secretFlags } from '../secrets.js';
import { upsertDeployment } from '../upsert.js';
import { logsFlag, reportSubmitted, waitAndReport, waitSettings } from './wait.js';

interface SourceFlags {
  image?: string;
  repoUrl?: string;
  ref?: string;
  configPath?: string;
}

export async function deployCommand(ctx: Context): Promise<ExitCode> {
  const [name] = ctx.args as [string];
  checkName(name);
  const source = sourceFlags(ctx);
  const given = secretFlags(ctx);
  const secrets = given && asSecrets(given);
  const settings = waitSettings(ctx);
  const logs = logsFlag(ctx);

  const { deployment, created } = await upsertDeployment(ctx, name, {
    create: () => createBody(name, source, secrets),
    update: (current) => updateBody(current, source, secrets),
    describe: describeChange(source),
  });
  ctx.note(`${created ? 'Created' : 'Updated'} ${name} (${deployment.id}); new revision ${deployment.latest_revision_id}`);

  const target = { deployment, deploymentId: deployment.id, revisionId: deployment.latest_revision_id, extra: { created } };
  if (ctx.flags['no-wait'] === true) return reportSubmitted(ctx, target);
  return waitAndReport(ctx, target, settings, logs);
}

function sourceFlags(ctx: Context): SourceFlags {
  const flags: SourceFlags = {};
  const image = ctx.string('image');
  const repoUrl = ctx.string('repo-url');
  const ref = ctx.string('ref');
  const configPath = ctx.string('config-path');
  if (image) flags.image = image;
  if (repoUrl) flags.repoUrl = repoUrl;
  if (ref) flags.ref = ref;
  if (configPath) flags.configPath = configPath;
  const git = repoUrl || ref || configPath;
  if (image && git) {
    throw new UsageError(
      '--image (a container image) cannot be combined with --repo-url, --ref or --config-path (a git repository)',
      'a deployment has one source: pass either --image, or the git flags.',
    );
  }
  if (!image && !git) {
    throw new UsageError(
      'nothing to deploy',
      'pass --image <uri> to deploy a container image, or --ref <ref> to build from git (to create a git deployment, also --repo-url and --config-path).',
    );
  }
  return flags;
}

const isTag = (ref: string | undefined) => ref?.startsWith('refs/tags/') === true;

function createBody(name: string, source: SourceFlags, secrets: Secret[] | undefined): DeploymentCreate {
  const withSecrets = secrets ? { secrets } : {};
  if (source.image) {
    return { name, source: 'external_container', source_revision_config: { image_uri: source.image }, ...withSecrets };
  }
  const missing = [!source.repoUrl && '--repo-url', !source.ref && '--ref', !source.configPath && '--config-path'].filter(Boolean);
  if (missing.length > 0) {
    throw new UsageError(
      `there is no deployment named ${JSON.stringify(name)} yet, and creating one from git needs --repo-url, --ref and --config-path (missing: ${missing.join(', ')})`,
      'add the missing flags; or check the name (names are case-sensitive) if the deployment should exist.',
    );
  }
  return {
    name,
    source: 'git_host',
    // A tag is immutable: the control plane requires build_on_push false for it.
    source_config: { repo_url: source.repoUrl!, ...(isTag(source.ref) ? { build_on_push: false } : {}) },
    source_revision_config: { repo_ref: source.ref!, graph_config_path: source.configPath! },
    ...withSecrets,
  };
}

function updateBody(existing: Deployment, source: SourceFlags, secrets: Secret[] | undefined): DeploymentUpdate {
  const withSecrets = secrets ? { secrets } : {};
  if (existing.source === 'external_container') {
    if (!source.image) {
      throw new UsageError(
        `deployment ${existing.name} runs a container image (source external_container); --repo-url, --ref and --config-path do not apply`,
        "pass --image <uri>: a deployment's source cannot change (delete it and deploy again to switch).",
      );
    }
    return { source_revision_config: { image_uri: source.image }, ...withSecrets };
  }
  if (source.image) {
    throw new UsageError(
      `deployment ${existing.name} builds from git (source git_host); --image does not apply`,
      "pass --ref <ref> (and --config-path to change it): a deployment's source cannot change (delete it and deploy again to switch).",
    );
  }
  if (!source.ref && !source.configPath) {
    throw new UsageError(
      `updating ${existing.name} needs --ref or --config-path: only those make a new revision`,
      `pass --ref ${existing.source_revision_config.repo_ref ?? '<ref>'} to rebuild the same ref.`,
    );
  }
  const sourceConfig = {
    ...(source.repoUrl ? { repo_url: source.repoUrl } : {}),
    ...(isTag(source.ref) ? { build_on_push: false } : {}),
  };
  return {
    ...(Object.keys(sourceConfig).length > 0 ? { source_config: sourceConfig } : {}),
    source_revision_config: {
      ...(source.ref ? { repo_ref: source.ref } : {}),
      ...(source.configPath ? { graph_config_path: source.configPath } : {}),
    },
    ...withSecrets,
  };
}

function describeChange(source: SourceFlags): string {
  if (source.image) return `image ${source.image}`;
  return [
    source.repoUrl && `repository ${source.repoUrl}`,
    source.ref && `ref ${source.ref}`,
    source.configPath && `config ${source.configPath}`,
  ]
    .filter(Boolean)
    .join(', ');
}
