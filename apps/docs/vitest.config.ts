// The package's unit and contract tests; its slow end-to-end suites (*.e2e.test.ts) are the
// @agentplane/docs:e2e project (vitest.e2e.config.ts).
import { defineProject } from 'vitest/config';
import { unitTestDefaults } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...unitTestDefaults,
    name: '@agentplane/docs',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
    // A test's work is fixed: the limit only catches a hang, with room for CI's two cores running
    // every suite at once (a test of 25 s alone took over 60 s there).
    testTimeout: 180_000,
  },
});
