// Starts one mock per API on free ports for the whole mock test project, as `npm run mock` starts
// them (Prism behind the validation translator), and stops them after.

import { freePort } from '@agentplane/openapi-toolkit';
import type { TestProject } from 'vitest/node';
import { startMock } from '../src/mock-server.js';
import { MOCKS } from '../src/mocks.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mockUrls: Record<string, string>;
  }
}

export default async function setup(project: TestProject) {
  const servers = await Promise.all(
    MOCKS.map(async (mock) => ({ api: mock.api, server: await startMock({ api: mock.api, port: await freePort() }) })),
  );
  project.provide('mockUrls', Object.fromEntries(servers.map(({ api, server }) => [api, server.url])));
  return async () => {
    await Promise.all(servers.map(({ server }) => server.stop()));
  };
}
