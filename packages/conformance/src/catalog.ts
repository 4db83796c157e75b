// The checks a run can include, as data: what the docs page and `agentplane conformance --help`
// show, read from the check definitions themselves (and one schema check per operation of the
// bundled spec), so that no list of checks is kept by hand anywhere else.
import { AGENT_SERVER_CHECKS } from './checks/agent-server.js';
import { CONTROL_PLANE_CHECKS } from './checks/control-plane.js';
import type { ApiName, CheckIdentity } from './model.js';
import { operationsOf } from './spec.js';

export interface CheckInfo extends CheckIdentity {
  /** The id of the spec's "Differs from the LangGraph JS server" paragraph on its rule, if any. */
  langGraphDifference?: string;
  /** Runs only with --allow-writes (it creates a deployment). */
  writes: boolean;
}

/** Every check, in the order a run reports them: behaviour checks, then one schema check per operation. */
export function checkCatalog(): CheckInfo[] {
  const apis: ApiName[] = ['agent-server', 'control-plane'];
  return apis.flatMap((api) => {
    const behaviour = (api === 'agent-server' ? AGENT_SERVER_CHECKS : CONTROL_PLANE_CHECKS).map(
      (check): CheckInfo => ({
        id: check.id,
        api,
        area: check.area,
        title: check.title,
        rule: check.rule,
        operations: check.operations,
        ...(check.difference ? { langGraphDifference: check.difference } : {}),
        writes: 'writes' in check && check.writes === true,
      }),
    );
    const schema = [...operationsOf(api).values()].map(
      (operation): CheckInfo => ({
        id: `schema:${operation.operationId}`,
        api,
        area: 'schema',
        title: schemaCheckTitle(operation.method, operation.path),
        rule: schemaCheckRule(operation.operationId),
        operations: [operation.operationId],
        writes: false,
      }),
    );
    return [...behaviour, ...schema];
  });
}

export const schemaCheckTitle = (method: string, path: string) => `${method} ${path} answers as documented`;
export const schemaCheckRule = (operationId: string) =>
  `${operationId}: documented status, required headers, body valid against its schema`;
