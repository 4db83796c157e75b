// The APIs of the repository and where each one's spec and build outputs live, read from the
// `apis:` entries of redocly.yaml (root, bundle `output`, `x-openapi-ts.output`), so that file
// stays the one place that says where things go. Everything that needs a spec path (build, lint,
// tests, mock, docs, bench) asks here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export interface ApiPaths {
  name: string;
  /** The split spec's root `openapi.yaml`. */
  specRoot: string;
  bundleYaml: string;
  bundleJson: string;
  /** openapi-typescript's output, the client package's generated types. */
  typesFile: string;
  /** The client package the API's artifacts belong to. */
  packageDir: string;
  /**
   * The bundle as last released: the baseline of the breaking-change gate, written by the
   * release step only (see compatibility/baseline.ts).
   */
  baselineFile: string;
}

interface RedoclyApi {
  root: string;
  output: string;
  'x-openapi-ts': { output: string };
}

/** The repository root: the nearest folder above this module holding redocly.yaml. */
export const REPO_ROOT = findUp(path.dirname(fileURLToPath(import.meta.url)), 'redocly.yaml');
export const REDOCLY_CONFIG = path.join(REPO_ROOT, 'redocly.yaml');

const APIS = (YAML.parse(fs.readFileSync(REDOCLY_CONFIG, 'utf8')) as { apis: Record<string, RedoclyApi> }).apis;

/** API names, as in the `apis:` entries of redocly.yaml. */
export const API_NAMES = Object.keys(APIS);

export function apiPaths(name: string): ApiPaths {
  const api = APIS[name];
  if (!api) throw new Error(`unknown API "${name}"; redocly.yaml declares: ${API_NAMES.join(', ')}`);
  const bundleYaml = path.resolve(REPO_ROOT, api.output);
  return {
    name,
    specRoot: path.resolve(REPO_ROOT, api.root),
    bundleYaml,
    bundleJson: bundleYaml.replace(/\.ya?ml$/, '.json'),
    typesFile: path.resolve(REPO_ROOT, api['x-openapi-ts'].output),
    packageDir: path.dirname(path.dirname(bundleYaml)),
    baselineFile: path.join(REPO_ROOT, 'spec', 'released', `${name}.yaml`),
  };
}

/** The name and version of the client package an API belongs to. */
export function apiPackage(name: string): { name: string; version: string } {
  const manifest = JSON.parse(fs.readFileSync(path.join(apiPaths(name).packageDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return { name: manifest.name, version: manifest.version };
}

function findUp(from: string, file: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, file))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no ${file} above ${from}`);
  }
}
