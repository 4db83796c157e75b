// The package's unit tests and its run against the emulator, in process; its runs against real
// servers (the LangGraph JS server) are the @agentplane/conformance:e2e project (vitest.e2e.config.ts).
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/conformance',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.e2e.test.ts'],
    testTimeout: 60_000,
  },
});
