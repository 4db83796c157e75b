// `agentplane deploy <name>`: find the deployment by exact name or create it; for an existing
// one, PATCH the new image_uri or repo_ref (which makes a new revision); then wait for the
// revision it made. Running it twice never creates two deployments: the lookup reads every page
// of listDeployments (name_contains, then an exact comparison).
import type { Deployment, DeploymentCreate, DeploymentUpdate, Secret } from '@agentplane/control-plane';
import { findDeploymentByName, unwrap } from '@agentplane/control-plane';
import type { Context } from '../context.js';
import type { ExitCode } from '../errors.js';
import { UsageError } from '../errors.js';
import { emitJson } from '../output.js';
import { checkName, signal } from '../resolve.js';
import { readRevision, waitAndReport, waitSettings } from './wait.js';

const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

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
  const secrets = secretFlags(ctx);
  const settings = waitSettings(ctx);
  const client = ctx.client('api-key');

  const existing = await findDeploymentByName(client, name, signal(ctx));
  if (ctx.signal?.aborted) throw ctx.signal.reason; // interrupted before anything changed
  // From here on nothing is aborted half-way: a create or update is sent whole (no signal), and
  // an interrupt that came meanwhile ends the wait before its first poll.
  const update = async (current: Deployment) => {
    const body = updateBody(current, source, secrets);
    ctx.note(`Updating deployment ${name} (${current.id}): ${describeChange(source)}`);
    return unwrap(await client.PATCH('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: current.id } }, body }));
  };
  let deployment: Deployment;
  let created = false;
  if (existing) {
    deployment = await update(existing);
  } else {
    const body = createBody(name, source, secrets);
    ctx.note(`Creating deployment ${name} (${body.source}): ${describeChange(source)}`);
    const result = await client.POST('/v2/deployments', { body });
    // A create refused because of its name, while another deploy created that name meanwhile:
    // update the deployment that now exists instead of failing (and never create a second).
    const raced = result.response.status === 422 ? await findDeploymentByName(client, name) : undefined;
    if (raced) {
      ctx.note(`A deployment named ${name} was created meanwhile (${raced.id}); updating it instead.`);
      deployment = await update(raced);
    } else {
      deployment = unwrap(result);
      created = true;
    }
  }
  ctx.note(`${created ? 'Created' : 'Updated'} ${name} (${deployment.id}); new revision ${deployment.latest_revision_id}`);

  const target = { deployment, deploymentId: deployment.id, revisionId: deployment.latest_revision_id, extra: { created } };
  if (ctx.flags['no-wait'] === true) {
    const revision = await readRevision(ctx, deployment.id, deployment.latest_revision_id);
    if (ctx.json) emitJson(ctx, { deployment, revision, created });
    else
      ctx.stdout.write(
        `${name}: revision ${deployment.latest_revision_id} is ${revision?.status ?? 'submitted'}; not waiting. Follow it with: agentplane wait ${name} ${deployment.latest_revision_id}\n`,
      );
    return 0;
  }
  return waitAndReport(ctx, target, settings);
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

/** --secret NAME=VALUE, or NAME to read the value from the environment. */
function secretFlags(ctx: Context): Secret[] | undefined {
  const given = ctx.list('secret');
  if (given.length === 0) return undefined;
  const secrets = new Map<string, string>();
  for (const item of given) {
    const eq = item.indexOf('=');
    const name = eq >= 0 ? item.slice(0, eq) : item;
    if (!SECRET_NAME.test(name)) {
      throw new UsageError(
        `--secret ${JSON.stringify(eq >= 0 ? `${name}=...` : name)}: ${JSON.stringify(name)} is not an environment variable name`,
        'a secret name has letters, digits and _, and does not start with a digit: --secret OPENAI_API_KEY=... or --secret OPENAI_API_KEY.',
      );
    }
    let value: string | undefined;
    if (eq >= 0) value = item.slice(eq + 1);
    else {
      value = ctx.env[name];
      if (value === undefined)
        throw new UsageError(
          `--secret ${name}: the environment variable ${name} is not set`,
          `set ${name} in the environment (in GitHub Actions: env: ${name}: \${{ secrets.${name} }}), or pass --secret ${name}=<value>.`,
        );
    }
    if (secrets.has(name)) throw new UsageError(`--secret ${name} is given twice`, 'give each secret once.');
    secrets.set(name, value);
  }
  return [...secrets].map(([name, value]) => ({ name, value }));
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
