import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/control-plane',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
