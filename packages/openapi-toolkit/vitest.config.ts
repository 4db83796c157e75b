import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/openapi-toolkit',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
    testTimeout: 30_000,
  },
});
