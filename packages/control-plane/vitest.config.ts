import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/control-plane',
    include: ['test/**/*.test.ts'],
    // A test's work is fixed: the limit only catches a hang, with room for CI's two cores running
    // every suite at once.
    testTimeout: 120_000,
    // The files of a worker share one module graph (no test changes a module's state): importing
    // the sources again for each file was up to half of the suite's time.
    isolate: false,
  },
});
