import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/client-core',
    include: ['test/**/*.test.ts'],
  },
});
