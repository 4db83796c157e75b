// One vitest config for the whole repo: each workspace is a project (named after its package),
// configured by its own vitest.config.ts. Turbo runs each workspace's `test` script, which
// selects its project with --project.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
  },
});
