// The package's slow end-to-end suites: processes, browsers, installs, load. `npm test` runs
// them (uncached, as CI does); `npm run test:quick` leaves them out.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/docs:e2e',
    include: ['test/**/*.e2e.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
