// The two APIs of the repo and where each one's build outputs live. Everything that needs a
// spec path (build, tests, mock, docs, bench) asks here instead of spelling paths itself.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const REDOCLY_CONFIG = path.join(REPO_ROOT, 'redocly.yaml');

/** API names, as in the `apis:` entries of redocly.yaml. */
export const API_NAMES = /** @type {const} */ (['control-plane', 'agent-server']);

/**
 * @param {string} name an API name
 * @returns {{name: string, specRoot: string, packageDir: string, bundleYaml: string, bundleJson: string, typesFile: string}}
 */
export function apiPaths(name) {
  if (!API_NAMES.includes(/** @type {any} */ (name))) {
    throw new Error(`unknown API "${name}"; expected one of: ${API_NAMES.join(', ')}`);
  }
  const packageDir = path.join(REPO_ROOT, 'packages', name);
  return {
    name,
    specRoot: path.join(REPO_ROOT, 'spec', name, 'openapi.yaml'),
    packageDir,
    bundleYaml: path.join(packageDir, 'openapi', 'openapi.yaml'),
    bundleJson: path.join(packageDir, 'openapi', 'openapi.json'),
    typesFile: path.join(packageDir, 'src', 'generated', 'openapi.ts'),
  };
}
