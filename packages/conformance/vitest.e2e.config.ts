// The package's slow end-to-end suites: conformance runs against real servers started by the
// test. `npm test` runs them (uncached, as CI does); `npm run test:quick` leaves them out.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/conformance:e2e',
    include: ['test/**/*.e2e.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
