// The package's unit tests and its run against the emulator, in process; its runs against real
// servers (the LangGraph JS server) are the @agentplane/conformance:e2e project (vitest.e2e.config.ts).
import { defineProject } from 'vitest/config';
import { unitTestDefaults } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...unitTestDefaults,
    name: '@agentplane/conformance',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
    // A test's work is fixed: the limit only catches a hang, with room for CI's two cores running
    // every suite at once (whole conformance runs take 13 s alone, 30 s there).
    testTimeout: 180_000,
  },
});
