// The package's unit and contract tests; its slow end-to-end suites (*.e2e.test.ts) are the
// @agentplane/cli:e2e project (vitest.e2e.config.ts).
import { defineProject } from 'vitest/config';
import { unitTestDefaults } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...unitTestDefaults,
    name: '@agentplane/cli',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
  },
});
