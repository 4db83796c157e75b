// The benchmarks' own tests: the parts whose mistakes would skew every figure silently.
import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@agentplane/bench',
    include: ['test/**/*.test.js'],
    testTimeout: 30_000,
  },
});
