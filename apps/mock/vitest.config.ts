import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/mock',
    include: ['test/**/*.test.ts'],
    // Starts one Prism per API for the contract tests and shares their URLs through `inject`.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
