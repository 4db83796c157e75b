// Starts one Prism per API on free ports for the whole mock test project, and stops them after.
import net from 'node:net';
import type { TestProject } from 'vitest/node';
import { MOCKS, mockSpecPath } from '../src/mocks.js';
import { startPrism } from '../src/prism.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mockUrls: Record<string, string>;
  }
}

export default async function setup(project: TestProject) {
  const servers = await Promise.all(
    MOCKS.map(async (mock) => ({ api: mock.api, server: await startPrism({ specPath: mockSpecPath(mock.api), port: await freePort() }) })),
  );
  project.provide('mockUrls', Object.fromEntries(servers.map(({ api, server }) => [api, server.url])));
  return async () => {
    await Promise.all(servers.map(({ server }) => server.stop()));
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
