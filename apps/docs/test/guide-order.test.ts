// The emulator's guide starts where an app team starts, in its own project: the README, the guide
// page built from it and the docs index go install → testing → graphs → recording → store and
// crons → running it, and none of them sends a reader to this repository (`npm start`, anything
// "from the repository root", which in the app's project is `Missing script: "start"`) before the
// README's last part, on working on the emulator itself.
import fs from 'node:fs';
import { REPO_ROOT } from '@agentplane/openapi-toolkit';
import { describe, expect, it } from 'vitest';
import { renderGuide } from '../src/guide.js';
import { headingId, renderTestingPage, TESTING_SECTIONS } from '../src/testing-guide.js';
import { README } from './support/readme-examples.js';

/** The order an app team meets the emulator in, as the README's top-level headings. */
const APP_TEAM_ORDER = [
  'Install it in your project',
  'Test your agent app without an LLM',
  'Scripted graphs',
  'Graphs of any shape',
  'Record your agent once, test against it forever',
  'Store and crons',
  'Running it',
];
const WORKING_ON_IT = 'Working on the emulator itself';

/** What sends a reader to a clone of this repository. */
const REPOSITORY_ONLY = [/\bnpm start\b/, /\b(repository|repo)(['’]s)? root\b/i];

/** The `## ` headings of a markdown text, code blocks left out. */
function topHeadings(markdown: string): string[] {
  let inCode = false;
  const headings: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    else if (!inCode && line.startsWith('## ')) headings.push(line.slice(3));
  }
  return headings;
}

/** The lines of a text that send a reader to the repository, each with its number. */
function repositoryOnly(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) => (REPOSITORY_ONLY.some((pattern) => pattern.test(line)) ? [`${index + 1}: ${line}`] : []));
}

/** What of the README stands before its part on working on the emulator itself; throws when that part is gone. */
function beforeWorkingOnIt(markdown: string): string {
  const at = markdown.indexOf(`\n## ${WORKING_ON_IT}\n`);
  if (at < 0) throw new Error(`no "## ${WORKING_ON_IT}" section`);
  return markdown.slice(0, at);
}

const markdown = fs.readFileSync(README, 'utf8');

describe("the emulator README's order", () => {
  it('goes install → testing → graphs → recording → store and crons → running it, with working on the emulator itself last', () => {
    const headings = topHeadings(markdown);
    expect(headings.slice(0, APP_TEAM_ORDER.length)).toEqual(APP_TEAM_ORDER);
    expect(headings.at(-1)).toBe(WORKING_ON_IT);
  });

  it('sends no reader to the repository before its part on working on the emulator itself', () => {
    expect(repositoryOnly(beforeWorkingOnIt(markdown))).toEqual([]);
    // That part is where the repository's way is said.
    expect(repositoryOnly(markdown.slice(beforeWorkingOnIt(markdown).length)).length).toBeGreaterThan(0);
  });

  it('would notice a README that opens with the repository again, or has no such part', () => {
    const opening = markdown.replace(
      '\n## Install it in your project\n',
      '\n## Install it in your project\n\nRun `npm start` from the repository root.\n',
    );
    expect(repositoryOnly(beforeWorkingOnIt(opening))).toHaveLength(1);
    expect(() => beforeWorkingOnIt(markdown.replace(`## ${WORKING_ON_IT}`, '## Development'))).toThrow(WORKING_ON_IT);
    const reordered = markdown
      .replace('\n## Store and crons\n', '\n## Stored items\n')
      .replace('\n## Install it', '\n## Store and crons\n\n## Install it');
    expect(topHeadings(reordered).slice(0, APP_TEAM_ORDER.length)).not.toEqual(APP_TEAM_ORDER);
  });
});

describe("the guide page's order", () => {
  const html = renderTestingPage(README, { referencePage: 'agent-server.html' });

  it('shows the README sections in the README order, the app team order first', () => {
    const shown = TESTING_SECTIONS.map((section) => section.heading);
    expect(shown.slice(0, APP_TEAM_ORDER.length)).toEqual(APP_TEAM_ORDER);
    const readmeOrder = topHeadings(markdown);
    expect(shown.map((heading) => readmeOrder.indexOf(heading))).toEqual(
      [...shown.map((heading) => readmeOrder.indexOf(heading))].sort((a, b) => a - b),
    );
    expect(shown).not.toContain(WORKING_ON_IT);
    const h2 = [...html.matchAll(/<h2 id="([^"]+)">/g)].map((match) => match[1]);
    expect(h2.slice(0, APP_TEAM_ORDER.length)).toEqual(APP_TEAM_ORDER.map(headingId));
  });

  it('sends no reader to the repository', () => {
    expect(repositoryOnly(html)).toEqual([]);
  });
});

describe("the docs index's guide", () => {
  const { html } = renderGuide(REPO_ROOT);
  const ids = [...html.matchAll(/<section id="([^"]+)">/g)].map((match) => match[1]);

  it('goes install → testing → graphs → recording → store and crons → running it, working on agentplane last', () => {
    expect(ids.slice(0, 6)).toEqual([
      'install-the-emulator',
      'test-without-an-llm',
      'scripted-graphs',
      'record',
      'store-and-crons',
      'running-it',
    ]);
    expect(ids.at(-1)).toBe('run-locally');
    // Running it shows the exit codes of both commands, from the README's table.
    const running = html.slice(html.indexOf('<section id="running-it">'), html.indexOf('<section id="deploy-from-ci">'));
    expect(running).toContain('<table>');
    expect(running).toContain('agentplane-emulator record');
  });

  it('sends no reader to the repository before its last part', () => {
    expect(repositoryOnly(html.slice(0, html.indexOf('<section id="run-locally">')))).toEqual([]);
  });
});
