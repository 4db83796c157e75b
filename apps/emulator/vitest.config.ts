// The package's unit and contract tests; its slow end-to-end suites (*.e2e.test.ts) are the
// @agentplane/emulator:e2e project (vitest.e2e.config.ts).
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/emulator',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The files of a worker share one module graph (no test changes a module's state): importing
    // the sources again for each file was up to half of the suite's time.
    isolate: false,
  },
});
