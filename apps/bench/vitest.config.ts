// The benchmarks' own tests: the parts whose mistakes would skew every figure silently.
import { defineProject } from 'vitest/config';
import { unitTestDefaults } from '../../vitest.shared.js';

export default defineProject({
  test: {
    ...unitTestDefaults,
    name: '@agentplane/bench',
    include: ['test/**/*.test.js'],
  },
});
