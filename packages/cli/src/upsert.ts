// Find-or-create by exact name, as `deploy` and `preview` do it: list with name_contains (every
// page), compare names exactly, create only when none matches, otherwise update. Running it twice
// never makes two deployments: a create refused because another run just took the name updates
// the deployment that run created instead (decision L2).
import type { Deployment, DeploymentCreate, DeploymentUpdate } from '@agentplane/control-plane';
import { findDeploymentByName, unwrap } from '@agentplane/control-plane';
import type { Context } from './context.js';
import { signal } from './resolve.js';

export interface Upsert {
  /** The create request, built only when no deployment has the name. */
  create(): DeploymentCreate;
  /** The update request for the deployment that has the name. */
  update(existing: Deployment): DeploymentUpdate;
  /** What the request changes, for the narration line (`image registry/app:2`). */
  describe: string;
}

export async function upsertDeployment(ctx: Context, name: string, upsert: Upsert): Promise<{ deployment: Deployment; created: boolean }> {
  const client = ctx.client('api-key');
  const existing = await findDeploymentByName(client, name, signal(ctx));
  if (ctx.signal?.aborted) throw ctx.signal.reason; // interrupted before anything changed
  // From here on nothing is aborted half-way: a create or update is sent whole (no signal), and
  // an interrupt that came meanwhile ends the wait before its first poll.
  const update = async (current: Deployment) => {
    const body = upsert.update(current);
    ctx.note(`Updating deployment ${name} (${current.id}): ${upsert.describe}`);
    return unwrap(await client.PATCH('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: current.id } }, body }));
  };
  if (existing) return { deployment: await update(existing), created: false };
  const body = upsert.create();
  ctx.note(`Creating deployment ${name} (${body.source}): ${upsert.describe}`);
  const result = await client.POST('/v2/deployments', { body });
  // A create refused because of its name, while another run created that name meanwhile:
  // update the deployment that now exists instead of failing (and never create a second).
  const raced = result.response.status === 422 ? await findDeploymentByName(client, name) : undefined;
  if (raced) {
    ctx.note(`A deployment named ${name} was created meanwhile (${raced.id}); updating it instead.`);
    return { deployment: await update(raced), created: false };
  }
  return { deployment: unwrap(result), created: true };
}
