// The package's unit and contract tests; its slow end-to-end suites (*.e2e.test.ts) are the
// @agentplane/mock:e2e project (vitest.e2e.config.ts).
import { defineProject } from 'vitest/config';
import { unitTestDefaults } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...unitTestDefaults,
    name: '@agentplane/mock',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
    // Starts one mock per API for the contract tests and shares their URLs through `inject`.
    globalSetup: ['test/global-setup.ts'],
  },
});
