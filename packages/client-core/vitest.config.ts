import { defineProject } from 'vitest/config';
import { unitTestDefaults } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...unitTestDefaults,
    name: '@agentplane/client-core',
    include: ['test/**/*.test.ts'],
    // These tests stub globals (fetch, timers): each file gets its own module graph.
    isolate: true,
  },
});
