// Builds one API's artifacts from its split spec, in one process:
//   packages/<api>/openapi/openapi.{yaml,json}  self-contained bundles
//   packages/<api>/src/generated/openapi.ts     openapi-typescript types
//   packages/<api>/src/generated/contract.ts    the facts the client acts on (contract-module.ts)
// Where they go is the API's entry in redocly.yaml (see apis.ts).
//
// Why not the openapi-typescript CLI: with several APIs in redocly.yaml it generates them
// concurrently, and the example validation of its Redocly core then fails to resolve relative
// $refs across the two runs. One API per process, as turbo schedules it, avoids that.
import fs from 'node:fs';
import path from 'node:path';
import { bundle, loadConfig } from '@redocly/openapi-core';
import YAML from 'yaml';
import { apiPaths, REDOCLY_CONFIG, REPO_ROOT } from './apis.js';
import { renderContractModule } from './contract-module.js';
import type { OpenApiDocument } from './document.js';
import { generateTypes } from './typegen.js';

export async function buildApi(name: string): Promise<void> {
  const paths = apiPaths(name);
  const config = await loadConfig({ configPath: REDOCLY_CONFIG });
  const started = performance.now();
  const parsed = await writeBundles(name, config);
  // openapi-typescript lints with the same config and refuses (throws) on any error-level problem.
  writeFile(paths.typesFile, await generateTypes(paths.specRoot, config));
  const contractFile = path.join(path.dirname(paths.typesFile), 'contract.ts');
  writeFile(contractFile, renderContractModule(parsed as OpenApiDocument));

  const ms = Math.round(performance.now() - started);
  const rel = (p: string) => path.relative(REPO_ROOT, p);
  console.log(`${name}: ${rel(paths.bundleYaml)}, ${rel(paths.bundleJson)}, ${rel(paths.typesFile)}, ${rel(contractFile)} (${ms} ms)`);
}

/**
 * Only the API's self-contained bundles, which the breaking-change gate judges: what the release's
 * preflight needs, in seconds, where a build of every package took minutes before a refusal.
 */
export async function bundleApi(name: string): Promise<void> {
  await writeBundles(name, await loadConfig({ configPath: REDOCLY_CONFIG }));
}

async function writeBundles(name: string, config: Awaited<ReturnType<typeof loadConfig>>): Promise<unknown> {
  const paths = apiPaths(name);
  const { bundle: document, problems } = await bundle({ ref: paths.specRoot, config });
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    for (const p of errors) console.error(`${p.ruleId}: ${p.message}`);
    throw new Error(`bundling ${name} failed with ${errors.length} error(s)`);
  }
  const parsed = document.parsed;
  writeFile(paths.bundleYaml, YAML.stringify(parsed, { lineWidth: 0, aliasDuplicateObjects: false }));
  writeFile(paths.bundleJson, `${JSON.stringify(parsed, null, 2)}\n`);
  return parsed;
}

export function writeFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}
