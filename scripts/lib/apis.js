// The APIs of the repo and where each one's spec and build outputs live, read from the
// `apis:` entries of redocly.yaml (root, bundle `output`, `x-openapi-ts.output`), so that file
// stays the one place that says where things go. Everything that needs a spec path (build,
// tests, mock, docs, bench) asks here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const REDOCLY_CONFIG = path.join(REPO_ROOT, 'redocly.yaml');

/** @type {Record<string, {root: string, output: string, 'x-openapi-ts': {output: string}}>} */
const APIS = YAML.parse(fs.readFileSync(REDOCLY_CONFIG, 'utf8')).apis;

/** API names, as in the `apis:` entries of redocly.yaml. */
export const API_NAMES = Object.keys(APIS);

/**
 * @param {string} name an API name
 * @returns {{name: string, specRoot: string, bundleYaml: string, bundleJson: string, typesFile: string}}
 */
export function apiPaths(name) {
  const api = APIS[name];
  if (!api) throw new Error(`unknown API "${name}"; redocly.yaml declares: ${API_NAMES.join(', ')}`);
  const bundleYaml = path.resolve(REPO_ROOT, api.output);
  return {
    name,
    specRoot: path.resolve(REPO_ROOT, api.root),
    bundleYaml,
    bundleJson: bundleYaml.replace(/\.ya?ml$/, '.json'),
    typesFile: path.resolve(REPO_ROOT, api['x-openapi-ts'].output),
  };
}
