#!/usr/bin/env node
// Builds the static docs site into apps/docs/dist:
//   index.html            a guide built from the READMEs' code blocks (guide.js), and links to each
//                         API's page and its bundled spec, built from the bundles
//   <api>.html            Redoc page with the Redoc bundle inlined (--inlineBundle), so the site
//                         renders with no network at all
//   specs/<api>.{json,yaml} the bundles, for download
//   <api>-changelog.html  the API's changes: not yet released, then each release (changelog.js)
//   conformance.html      every check of `agentplane conformance` and a sample report of a real
//                         run against the emulator (conformance.js)
//   test-without-an-llm.html  the guide "Test your agent app without an LLM": the emulator README's
//                         sections on scripted graphs, testing with them (also from an app's own
//                         project) and runs (testing-guide.js)
//
// Each operation of a Redoc page carries code samples (curl, TypeScript, the CLI) generated from
// the spec's examples (code-samples.js) and checked before any page is built (sample-checks.js):
// a sample that does not type-check or parse fails the build. They go into the docs' copy of each
// bundle (generated/openapi/), which is what Redoc renders; the bundles offered for download
// are the published ones, untouched.
//
// One thing --inlineBundle leaves remote: Redoc's "API docs by" attribution loads its logo from
// the Redocly CDN at run time. The build points it at a local copy of the mark (as a data URI),
// keeping the attribution and the no-network guarantee; the browser test fails on any other
// remote request.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { checkCatalog } from '@agentplane/conformance';
import { listOperations, REPO_ROOT } from '@agentplane/openapi-toolkit';
import { readChangelogSources, renderChangelogPage } from './changelog.js';
import { generateCodeSamples, SAMPLE_KINDS, withCodeSamples } from './code-samples.js';
import { CONFORMANCE_PAGE, renderConformancePage, sampleConformanceReport } from './conformance.js';
import { escapeHtml, renderGuide } from './guide.js';
import { checkCodeSamples } from './sample-checks.js';
import { DIST_DIR, DOCS_DIR, GENERATED_DIR, PAGES, TESTING_PAGE } from './site.js';
import { renderTestingPage, testingReadme } from './testing-guide.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const redoclyBin = path.join(path.dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

// Redoc shows the samples' languages as tabs in this order, then the request example ("Payload").
const REDOC_OPTIONS = {
  codeSamples: { languages: [...Object.values(SAMPLE_KINDS).map(({ lang, label }) => ({ lang, label })), { lang: 'Payload' }] },
};

fs.rmSync(DIST_DIR, { recursive: true, force: true });
fs.mkdirSync(path.join(DIST_DIR, 'specs'), { recursive: true });
fs.rmSync(path.join(GENERATED_DIR, 'openapi'), { recursive: true, force: true });
fs.mkdirSync(path.join(GENERATED_DIR, 'openapi'), { recursive: true });

const sampled = PAGES.map((page) => {
  const spec = JSON.parse(fs.readFileSync(page.bundleJson, 'utf8'));
  return { ...page, api: page.name, spec, operations: generateCodeSamples(page.name, spec) };
});
await checkCodeSamples(sampled, path.join(GENERATED_DIR, 'code-samples'));

const apis = await Promise.all(
  sampled.map(async ({ name, page, changelogPage, bundleJson, bundleYaml, spec, operations }) => {
    const docsSpec = path.join(GENERATED_DIR, 'openapi', `${name}.json`);
    fs.writeFileSync(docsSpec, JSON.stringify(withCodeSamples(spec, operations), null, 2));
    await run(
      process.execPath,
      [
        redoclyBin,
        'build-docs',
        docsSpec,
        '--output',
        path.join(DIST_DIR, page),
        '--title',
        spec.info.title,
        '--inlineBundle',
        '--lint-config',
        'off',
        '--openapi',
        JSON.stringify(REDOC_OPTIONS),
      ],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    localizeRemoteAssets(path.join(DIST_DIR, page));
    fs.copyFileSync(bundleJson, path.join(DIST_DIR, 'specs', `${name}.json`));
    fs.copyFileSync(bundleYaml, path.join(DIST_DIR, 'specs', `${name}.yaml`));
    return { name, page, changelogPage, spec, operationCount: listOperations(spec).length };
  }),
);

const template = fs.readFileSync(path.join(DOCS_DIR, 'src', 'index.html'), 'utf8');
for (const { name, page, changelogPage, spec } of apis) {
  const html = renderChangelogPage(
    { title: spec.info.title, version: spec.info.version, referencePage: page },
    await readChangelogSources(name),
  );
  fs.writeFileSync(path.join(DIST_DIR, changelogPage), html);
}

fs.writeFileSync(
  path.join(DIST_DIR, CONFORMANCE_PAGE),
  renderConformancePage({
    checks: checkCatalog(),
    sample: await sampleConformanceReport(),
    references: Object.fromEntries(apis.map(({ name, page }) => [name, page])),
  }),
);

fs.writeFileSync(
  path.join(DIST_DIR, TESTING_PAGE),
  renderTestingPage(testingReadme(REPO_ROOT), { referencePage: apis.find(({ name }) => name === 'agent-server')?.page ?? 'index.html' }),
);

const cards = apis
  .map(
    ({ name, page, changelogPage, spec, operationCount }) => `      <li>
        <h3><a href="./${page}">${escapeHtml(spec.info.title)}</a></h3>
        <p>${escapeHtml(spec.info.summary ?? '')}</p>
        <p class="meta">Version ${escapeHtml(spec.info.version)} · ${operationCount} operations ·
          <a href="./${changelogPage}">changelog</a> ·
          <a href="./specs/${name}.yaml">openapi.yaml</a> · <a href="./specs/${name}.json">openapi.json</a></p>
      </li>`,
  )
  .join('\n');
const guide = renderGuide(REPO_ROOT);
const index = template.replace('<!-- GUIDE_TOC -->', guide.toc).replace('<!-- GUIDE -->', guide.html).replace('<!-- API_CARDS -->', cards);
fs.writeFileSync(path.join(DIST_DIR, 'index.html'), index);
console.log(
  `docs: ${path.relative(process.cwd(), DIST_DIR)}/index.html, ${[...apis.flatMap((a) => [a.page, a.changelogPage]), CONFORMANCE_PAGE, TESTING_PAGE].join(', ')}`,
);

/**
 * Replaces the CDN logo URLs of the Redoc bundle with a data URI of the local mark.
 * @param {string} file
 */
function localizeRemoteAssets(file) {
  const logo = `data:image/svg+xml;base64,${fs.readFileSync(path.join(DOCS_DIR, 'src', 'redocly-logo.svg')).toString('base64')}`;
  const html = fs.readFileSync(file, 'utf8');
  const localized = html.replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, logo);
  if (localized === html) throw new Error(`${file}: the Redoc logo URL was not found; check what the Redoc bundle loads remotely`);
  fs.writeFileSync(file, localized);
}
