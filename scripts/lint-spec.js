#!/usr/bin/env node
// Lints one API's split spec with the rules of redocly.yaml (the `lint` task of each client
// package). The bar is zero problems: any error or warning fails.
//
// Why not `redocly lint`: the same engine (@redocly/openapi-core, the version the bundler and
// openapi-typescript use) without the CLI's start-up banners, which on Node 20 print an
// end-of-life box on every run. The spec tests still run the Redocly CLI itself, in JSON mode.
//
// Usage: node scripts/lint-spec.js <api-name>
import { formatProblems, lint, loadConfig } from '@redocly/openapi-core';
import { REDOCLY_CONFIG, apiPaths } from './lib/apis.js';

const name = process.argv[2];
if (!name) {
  console.error('usage: node scripts/lint-spec.js <api-name>');
  process.exit(2);
}
const { specRoot } = apiPaths(name);
const config = await loadConfig({ configPath: REDOCLY_CONFIG });
const problems = await lint({ ref: specRoot, config });
if (problems.length > 0) {
  formatProblems(problems, { format: 'stylish', maxProblems: 100, totals: { errors: problems.length, warnings: 0, ignored: 0 }, version: '' });
  console.error(`${name}: ${problems.length} problem(s); the bar is zero errors and zero warnings`);
  process.exit(1);
}
console.log(`${name}: no problems (redocly.yaml rules)`);
