// The package's slow end-to-end suites: processes, browsers, installs, load. `npm test` runs
// them (uncached, as CI does); `npm run test:quick` leaves them out.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/mock:e2e',
    include: ['test/**/*.e2e.test.ts'],
    // Starts one mock per API for the contract tests and shares their URLs through `inject`.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
