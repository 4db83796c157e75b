// The package's slow end-to-end suites: processes, browsers, installs, load. `npm test` runs
// them (uncached, as CI does); `npm run test:quick` leaves them out.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/emulator:e2e',
    include: ['test/**/*.e2e.test.ts'],
    // A fixed amount of work each (the fuzz phases send thousands of requests): the timeout only
    // catches a hang, so it leaves room for a shared 2-core machine running other suites at once.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Two files at a time, whatever vitest would choose on a 2-core machine (one): the fuzz alone
    // is most of this suite's time, and the other files fit beside it instead of after it.
    maxWorkers: 2,
  },
});
