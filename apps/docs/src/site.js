// What the docs site is made of: one Redoc page per API, named after the API, plus an index and
// the guide pages. The build, the static server and the browser test all read these names.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_NAMES, apiPaths } from '@agentplane/openapi-toolkit';

export const DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST_DIR = path.join(DOCS_DIR, 'dist');
/** Build intermediates: the code samples as .ts files for the type-check, and the docs' copies of the bundles. */
export const GENERATED_DIR = path.join(DOCS_DIR, 'generated');

export const PAGES = API_NAMES.map((name) => ({
  name,
  page: `${name}.html`,
  changelogPage: `${name}-changelog.html`,
  bundleJson: apiPaths(name).bundleJson,
  bundleYaml: apiPaths(name).bundleYaml,
}));

/** The guide "Test your agent app without an LLM", built from the emulator README (testing-guide.js). */
export const TESTING_PAGE = 'test-without-an-llm.html';
