// The docs index shows the READMEs' own code blocks; a README edit that drops one is a build error
// naming the section, not a silently emptier page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@agentplane/openapi-toolkit';
import { describe, expect, it } from 'vitest';
import { escapeHtml, renderGuide, sectionCodeBlocks } from '../src/guide.js';
import { TESTING_PAGE } from '../src/site.js';

const markdown = [
  '# Title',
  '',
  '```sh',
  'npm install x',
  '```',
  '',
  '## Quick start',
  '',
  '```sh',
  'npm ci',
  '```',
  '',
  '```ts',
  'const a = 1;',
  '```',
  '',
  '## Other',
  '',
  '```sh',
  'echo other',
  '```',
  '',
].join('\n');

describe('sectionCodeBlocks', () => {
  it('takes the blocks of one `## ` section, in order, filtered by language', () => {
    expect(sectionCodeBlocks(markdown, { heading: 'Quick start' })).toEqual(['npm ci', 'const a = 1;']);
    expect(sectionCodeBlocks(markdown, { heading: 'Quick start', lang: 'ts' })).toEqual(['const a = 1;']);
    expect(sectionCodeBlocks(markdown, { heading: 'Other' })).toEqual(['echo other']);
  });

  it('takes the introduction for an empty heading, and refuses an unknown section', () => {
    expect(sectionCodeBlocks(markdown, { heading: '' })).toEqual(['npm install x']);
    expect(() => sectionCodeBlocks(markdown, { heading: 'Missing' })).toThrow('no "## Missing" section');
  });
});

describe('renderGuide', () => {
  it('renders the repository READMEs, escaped', () => {
    const { toc, html } = renderGuide(REPO_ROOT);
    expect(toc).toContain('href="#run-locally"');
    // The emulator's scripted graphs, linking the guide page built from the same README.
    expect(toc).toContain('href="#scripted-graphs"');
    expect(html).toContain(`href="./${TESTING_PAGE}"`);
    expect(html).toContain(escapeHtml('npm ci'));
    expect(html).not.toMatch(/<pre><code><\/code><\/pre>/);
  });

  it('names the README and section when a block it shows is gone', () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-guide-'));
    for (const file of [
      'README.md',
      'apps/emulator/README.md',
      'packages/cli/README.md',
      'packages/control-plane/README.md',
      'packages/agent-server/README.md',
    ]) {
      fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      fs.copyFileSync(path.join(REPO_ROOT, file), path.join(copy, file));
    }
    const readme = path.join(copy, 'README.md');
    fs.writeFileSync(readme, fs.readFileSync(readme, 'utf8').replace(/```yaml[\s\S]*?```/g, ''));
    expect(() => renderGuide(copy)).toThrow(/README\.md: section "Deploying from CI\/CD" has no yaml block #1/);
    fs.rmSync(copy, { recursive: true, force: true });
  });
});
