// Turning a command's <deployment> argument (an ID or an exact name) into the deployment.
import { type Deployment, findDeploymentByName, unwrap } from '@agentplane/control-plane';
import type { Context } from './context.js';
import { CliError, EXIT, UsageError } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** Checks a deployment name as the control plane would (1–63 characters), before any request. */
export function checkName(name: string): void {
  if (name.length < 1 || name.length > 63)
    throw new UsageError(`a deployment name has 1 to 63 characters; ${JSON.stringify(name)} has ${name.length}`);
}

/** A UUID is looked up as an ID, anything else as an exact (case-sensitive) name. */
export async function resolveDeployment(ctx: Context, ref: string): Promise<Deployment> {
  const client = ctx.client('api-key');
  if (isUuid(ref)) {
    return unwrap(await client.GET('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: ref } }, ...signal(ctx) }));
  }
  checkName(ref);
  const found = await findDeploymentByName(client, ref, signal(ctx));
  if (!found) {
    throw new CliError(
      EXIT.NOT_FOUND,
      `no deployment named ${JSON.stringify(ref)}`,
      'check the name (names are case-sensitive) and the tenant your API key belongs to, or pass the deployment ID.',
    );
  }
  return found;
}

export function signal(ctx: Context): { signal?: AbortSignal } {
  return ctx.signal ? { signal: ctx.signal } : {};
}
