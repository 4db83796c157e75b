import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/openapi-toolkit',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
