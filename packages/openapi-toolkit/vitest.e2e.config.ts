// The toolkit's slow end-to-end suite: the whole release command on a copy of the repository.
// `npm test` runs it (uncached, as CI does); `npm run test:quick` leaves it out.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/openapi-toolkit:e2e',
    include: ['test/**/*.e2e.test.ts'],
    // The release builds every package on a copy of the repository: 735 s in the clean-clone CI run
    // beside every other suite (this stop's suites made the machine busier), where 600 s was the limit.
    testTimeout: 1_200_000,
    hookTimeout: 120_000,
  },
});
