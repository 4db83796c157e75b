// The toolkit's slow end-to-end suite: the whole release command on a copy of the repository.
// `npm test` runs it (uncached, as CI does); `npm run test:quick` leaves it out.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/openapi-toolkit:e2e',
    include: ['test/**/*.e2e.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
