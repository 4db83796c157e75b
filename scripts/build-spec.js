#!/usr/bin/env node
// Builds one API's artifacts from its split spec, in one process:
//   packages/<api>/openapi/openapi.{yaml,json}  self-contained bundles
//   packages/<api>/src/generated/openapi.ts     openapi-typescript types
// Where they go is the API's entry in redocly.yaml (see scripts/lib/apis.js).
//
// Why not the openapi-typescript CLI: with several APIs in redocly.yaml it generates them
// concurrently, and the example validation of its Redocly core then fails to resolve relative
// $refs across the two runs. One API per process, as turbo schedules it, avoids that.
//
// Usage: node scripts/build-spec.js <api-name>
import fs from 'node:fs';
import path from 'node:path';
import { bundle, loadConfig } from '@redocly/openapi-core';
import YAML from 'yaml';
import { REDOCLY_CONFIG, REPO_ROOT, apiPaths } from './lib/apis.js';
import { generateTypes } from './lib/typegen.js';

const name = process.argv[2];
if (!name) {
  console.error('usage: node scripts/build-spec.js <api-name>');
  process.exit(2);
}
const paths = apiPaths(name);
const config = await loadConfig({ configPath: REDOCLY_CONFIG });
const started = performance.now();
const { bundle: document, problems } = await bundle({ ref: paths.specRoot, config });
const errors = problems.filter((p) => p.severity === 'error');
if (errors.length > 0) {
  for (const p of errors) console.error(`${p.ruleId}: ${p.message}`);
  throw new Error(`bundling ${name} failed with ${errors.length} error(s)`);
}
const parsed = document.parsed;
fs.mkdirSync(path.dirname(paths.bundleYaml), { recursive: true });
fs.writeFileSync(paths.bundleYaml, YAML.stringify(parsed, { lineWidth: 0, aliasDuplicateObjects: false }));
fs.writeFileSync(paths.bundleJson, `${JSON.stringify(parsed, null, 2)}\n`);

// openapi-typescript lints with the same config and refuses (throws) on any error-level problem.
const types = await generateTypes(paths.specRoot, config);
fs.mkdirSync(path.dirname(paths.typesFile), { recursive: true });
fs.writeFileSync(paths.typesFile, types);

const ms = Math.round(performance.now() - started);
const rel = (p) => path.relative(REPO_ROOT, p);
console.log(`${name}: ${rel(paths.bundleYaml)}, ${rel(paths.bundleJson)}, ${rel(paths.typesFile)} (${ms} ms)`);
