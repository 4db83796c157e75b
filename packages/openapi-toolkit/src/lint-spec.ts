// Lints one API's split spec with the rules of redocly.yaml (the `lint` task of each client
// package). The bar is zero problems: any error or warning fails.
//
// Why not `redocly lint`: the same engine (@redocly/openapi-core, the version the bundler and
// openapi-typescript use) without the CLI's start-up banners, which on Node 20 print an
// end-of-life box on every run. The spec tests still run the Redocly CLI itself, in JSON mode.
import { formatProblems, lint, loadConfig } from '@redocly/openapi-core';
import { apiPaths, REDOCLY_CONFIG } from './apis.js';

/** Lints the API; prints its problems and returns how many there were. */
export async function lintApi(name: string): Promise<number> {
  const config = await loadConfig({ configPath: REDOCLY_CONFIG });
  const problems = await lint({ ref: apiPaths(name).specRoot, config });
  if (problems.length === 0) {
    console.log(`${name}: no problems (redocly.yaml rules)`);
    return 0;
  }
  formatProblems(problems, {
    format: 'stylish',
    maxProblems: 100,
    totals: { errors: problems.length, warnings: 0, ignored: 0 },
    version: '',
  });
  console.error(`${name}: ${problems.length} problem(s); the bar is zero errors and zero warnings`);
  return problems.length;
}
