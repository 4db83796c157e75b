// Turning a command's <deployment> argument (an ID or an exact name) into the deployment.
import type { Deployment } from '@agentplane/control-plane';
import { findDeploymentByName, unwrap } from '@agentplane/control-plane';
import type { Context } from './context.js';
import { CliError, EXIT, UsageError } from './errors.js';
import { DeploymentCreateSchema, DeploymentIdParameter, RevisionIdParameter } from './generated/contract.js';

/** The text JSON Schema's `uuid` format accepts (RFC 4122, as the spec's validators check it). */
const UUID_FORMAT = /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;

/** Whether the text is a deployment or revision ID: of the format the spec gives both (`uuid`). */
export function isId(text: string): boolean {
  const formats = [DeploymentIdParameter.schema.format, RevisionIdParameter.schema.format] as const;
  return formats.every((format) => format === 'uuid') && UUID_FORMAT.test(text);
}

const NAME = DeploymentCreateSchema.properties.name;

/** Checks a deployment name against the spec's bounds of DeploymentCreate's `name`, before any request. */
export function checkName(name: string): void {
  if (name.length < NAME.minLength || name.length > NAME.maxLength) {
    throw new UsageError(
      `a deployment name has ${NAME.minLength} to ${NAME.maxLength} characters; ${JSON.stringify(name)} has ${name.length}`,
    );
  }
}

/** An ID (the spec's `uuid` format) is looked up as an ID, anything else as an exact (case-sensitive) name. */
export async function resolveDeployment(ctx: Context, ref: string): Promise<Deployment> {
  const client = ctx.client('api-key');
  if (isId(ref)) {
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
