import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/docs',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
