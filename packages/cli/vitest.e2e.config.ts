// The package's slow end-to-end suites: processes, browsers, installs, load. `npm test` runs
// them (uncached, as CI does); `npm run test:quick` leaves them out.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/cli:e2e',
    include: ['test/**/*.e2e.test.ts'],
    // A test's work is fixed: the limit only catches a hang, with room for CI's two cores running
    // every suite at once.
    testTimeout: 120_000,
  },
});
