// The changelog pages: generated from the gate's findings and the release notes, never written
// by hand, and linked from the index with each API's version.
import fs from 'node:fs';
import path from 'node:path';
import type { CompatibilityReport } from '@agentplane/openapi-toolkit';
import { describe, expect, it } from 'vitest';
import { readChangelogSources, renderChangelogPage } from '../src/changelog.js';
import { DIST_DIR, PAGES } from '../src/site.js';

const about = { title: 'agentplane agent server thread API', version: '0.2.0', referencePage: 'agent-server.html' };

function report(overrides: Partial<CompatibilityReport>): CompatibilityReport {
  return {
    api: 'agent-server',
    packageName: '@agentplane/agent-server',
    packageVersion: '0.2.0',
    baselineVersion: '0.2.0',
    changes: [],
    impact: 'none',
    required: 'none',
    declared: 'none',
    notes: [],
    problems: [],
    ...overrides,
  };
}

const CHANGELOG = `# @agentplane/agent-server

## 0.2.0

### Minor Changes

- 1a2b3c4: Thread search takes \`graph_id\`.

### API changes

Compared with 0.1.0: 1 operation(s) changed, 0 breaking change(s).

- \`POST /threads/search\` (searchThreads)
  - added the new optional request property \`graph_id\` (new-optional-request-property)
`;

describe('changelog page', () => {
  it('lists the unreleased changes by operation, breaking ones marked, then every release', () => {
    const html = renderChangelogPage(about, {
      report: report({
        impact: 'major',
        changes: [
          {
            id: 'request-property-max-decreased',
            text: "the `limit` request property's max was decreased to `100.00`",
            level: 3,
            operation: 'POST /threads/search',
            operationId: 'searchThreads',
            comment: undefined,
            impact: 'major',
          },
        ],
      }),
      changelog: CHANGELOG,
    });
    const unreleased = html.slice(html.indexOf('id="unreleased"'), html.indexOf('id="releases"'));
    expect(unreleased).toContain('<code>POST /threads/search</code> (searchThreads)');
    expect(unreleased).toContain('<strong>Breaking:</strong> the <code>limit</code> request property&#39;s max was decreased');
    const releases = html.slice(html.indexOf('id="releases"'));
    expect(releases).toContain('<h3>0.2.0</h3>');
    expect(releases).toContain('<h4>API changes</h4>');
    expect(releases).toContain('added the new optional request property <code>graph_id</code>');
    expect(releases).not.toContain('<h1>@agentplane/agent-server</h1>');
    expect(html).toContain('Version 0.2.0 (@agentplane/agent-server)');
  });

  it('says so when nothing changed and nothing was released with notes yet', () => {
    const html = renderChangelogPage(about, { report: report({}), changelog: undefined });
    expect(html).toContain('No change to the API since 0.2.0.');
    expect(html).toContain('No release has been made with release notes yet');
  });

  it('reads the repository: the gate against the baseline, and the package changelog if there is one', async () => {
    const { report: current, changelog } = await readChangelogSources('agent-server');
    expect(current.baselineVersion).toBe(current.packageVersion);
    expect(changelog === undefined || changelog.startsWith('# @agentplane/agent-server')).toBe(true);
  });

  for (const { name, page, changelogPage } of PAGES) {
    it(`${name}: the build wrote its changelog page and the index links it next to the reference`, () => {
      const index = fs.readFileSync(path.join(DIST_DIR, 'index.html'), 'utf8');
      expect(index).toContain(`<a href="./${changelogPage}">changelog</a>`);
      const html = fs.readFileSync(path.join(DIST_DIR, changelogPage), 'utf8');
      expect(html).toContain(`<a href="./${page}">`);
      expect(html).toContain('<h2 id="unreleased">Not yet released</h2>');
    });
  }
});
