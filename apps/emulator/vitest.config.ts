// The package's unit and contract tests; its slow end-to-end suites (*.e2e.test.ts) are the
// @agentplane/emulator:e2e project (vitest.e2e.config.ts).
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/emulator',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
    // A test's work is fixed: the limit only catches a hang, with room for CI's two cores running
    // every suite at once (a 1.6 s property test took 33 s there).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // The files of a worker share one module graph (no test changes a module's state): importing
    // the sources again for each file was up to half of the suite's time.
    isolate: false,
  },
});
