// The package's unit and contract tests; its slow end-to-end suites (*.e2e.test.ts) are the
// @agentplane/docs:e2e project (vitest.e2e.config.ts).
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/docs',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
