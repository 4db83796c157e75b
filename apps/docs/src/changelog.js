// One changelog page per API, generated at build time and never written by hand (decision R5):
// - "Not yet released": what the breaking-change gate finds between the current spec and the
//   last released one (spec/released/<api>.yaml), by operation, breaking changes marked;
// - the releases: the API package's CHANGELOG.md, which the release's version step writes from
//   the release notes and the same findings.
import fs from 'node:fs';
import path from 'node:path';
import { apiPaths, checkCompatibility, renderApiChanges } from '@agentplane/openapi-toolkit';
import { marked } from 'marked';
import { escapeHtml } from './guide.js';

/**
 * What a changelog page shows, read from the repository: the gate's report against the baseline
 * and the package's CHANGELOG.md (undefined before the first release with notes).
 * @param {string} api
 */
export async function readChangelogSources(api) {
  const changelogFile = path.join(apiPaths(api).packageDir, 'CHANGELOG.md');
  return {
    report: await checkCompatibility(api, 'change'),
    changelog: fs.existsSync(changelogFile) ? fs.readFileSync(changelogFile, 'utf8') : undefined,
  };
}

/**
 * The page's HTML for one API.
 * @param {{title: string, version: string, referencePage: string}} about
 * @param {{report: import('@agentplane/openapi-toolkit').CompatibilityReport, changelog: string | undefined}} sources
 */
export function renderChangelogPage({ title, version, referencePage }, { report, changelog }) {
  const unreleased =
    report.baselineVersion === undefined
      ? `${report.packageName} has not been released yet.`
      : renderApiChanges({ since: report.baselineVersion, impact: report.impact, changes: report.changes });
  const released = changelog
    ? // The file's own title repeats the package name; the page has its own.
      changelog
        .replace(/^# .*\n/, '')
        .replace(/^## /gm, '### ')
        .replace(/^### (?!\d)/gm, '#### ')
    : `No release has been made with release notes yet: ${report.packageName} ${report.baselineVersion ?? version} is the first, and the baseline later changes are compared with.`;
  const body = `<h2 id="unreleased">Not yet released</h2>
${marked.parse(unreleased, { async: false })}
<h2 id="releases">Releases</h2>
${marked.parse(released, { async: false })}`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(`${title}: changelog`)}</title>
    <style>
      body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1f2430; background: #f7f8fa; line-height: 1.5; }
      main { max-width: 52rem; margin: 3rem auto; padding: 0 1.5rem; }
      h1 { font-size: 1.8rem; margin-bottom: .25rem; } h2 { font-size: 1.3rem; margin: 2rem 0 .5rem; }
      a { color: #2456c9; } .meta { color: #6a7182; }
      code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #eceef3; padding: 0 .25rem; border-radius: 3px; }
    </style>
  </head>
  <body>
    <main>
      <p class="meta"><a href="./index.html">agentplane</a> · <a href="./${escapeHtml(referencePage)}">${escapeHtml(title)} reference</a></p>
      <h1>${escapeHtml(title)}: changelog</h1>
      <p class="meta">Version ${escapeHtml(version)} (${escapeHtml(report.packageName)}). A breaking change is marked; what counts as one is
        decision R1 of the project's decision record.</p>
${body}
    </main>
  </body>
</html>
`;
}
