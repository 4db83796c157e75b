// One vitest config for the whole repo: each workspace is a project (named after its package),
// configured by its own vitest.config.ts; the workspaces with slow end-to-end suites add a
// second project, `<package>:e2e`, from vitest.e2e.config.ts. Turbo runs each workspace's
// `test` and `test:e2e` scripts, which select their project with --project.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts', 'packages/*/vitest.e2e.config.ts', 'apps/*/vitest.e2e.config.ts'],
  },
});
