import { defineProject } from 'vitest/config';
import { unitTestDefaults } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...unitTestDefaults,
    name: '@agentplane/openapi-toolkit',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
  },
});
