// Which APIs get a mock, on which default ports, from which bundle.
import fs from 'node:fs';
import { apiPaths } from '@agentplane/openapi-toolkit';

export const MOCKS = [
  {
    api: 'control-plane',
    title: 'Control plane',
    defaultPort: 4010,
    portFlag: 'control-plane-port',
    portEnv: 'AGENTPLANE_CONTROL_PLANE_MOCK_PORT',
  },
  {
    api: 'agent-server',
    title: 'Agent server',
    defaultPort: 4011,
    portFlag: 'agent-server-port',
    portEnv: 'AGENTPLANE_AGENT_SERVER_MOCK_PORT',
  },
];

/**
 * The bundled JSON spec Prism serves; fails with a hint when it has not been built.
 * @param {string} api
 */
export function mockSpecPath(api) {
  const { bundleJson } = apiPaths(api);
  if (!fs.existsSync(bundleJson)) {
    throw new Error(`${bundleJson} is missing: run \`npm run build\` first`);
  }
  return bundleJson;
}
