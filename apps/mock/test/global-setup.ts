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
  // One after the other: a port is only sure to stay free until the server that asked for it
  // listens, and two mocks starting at once could be handed the same private Prism port, the
  // second then answering with the first one's spec.
  const servers: { api: string; server: Awaited<ReturnType<typeof startMock>> }[] = [];
  for (const mock of MOCKS) servers.push({ api: mock.api, server: await startMock({ api: mock.api, port: await freePort() }) });
  project.provide('mockUrls', Object.fromEntries(servers.map(({ api, server }) => [api, server.url])));
  return async () => {
    await Promise.all(servers.map(({ server }) => server.stop()));
  };
}
