// The "getting started" half of the docs index, built from the READMEs' own code blocks (and one
// table): what a newcomer needs next to the references, in the order an app team needs it (install
// the emulator in their project, test an app without an LLM, its graphs, recording, the store and
// crons, running it), then deploying from CI and the client packages, and last working on
// agentplane itself from a clone. Never written twice, so the site cannot drift from the READMEs
// that the tests run.
import fs from 'node:fs';
import path from 'node:path';
import { Marked } from 'marked';
import { TESTING_PAGE } from './site.js';

/**
 * A markdown document's `## <heading>` section: its heading line (the first `## ` line starting
 * with `heading`) and its text up to the next `## `. An empty heading means the introduction,
 * after the title and before the first `## `; its heading line is the title's.
 * @param {string} markdown
 * @param {string} heading
 * @returns {{headingLine: string, body: string}}
 */
export function markdownSection(markdown, heading) {
  const all = markdown.split('\n');
  const start = heading === '' ? 0 : all.findIndex((line) => line.startsWith('## ') && line.slice(3).startsWith(heading));
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const lines = all.slice(start + 1);
  const end = lines.findIndex((line) => line.startsWith('## '));
  return { headingLine: all[start] ?? '', body: (end < 0 ? lines : lines.slice(0, end)).join('\n') };
}

/**
 * The fenced code blocks of a markdown document's `## <heading>` section (markdownSection), in
 * order. `lang` keeps only blocks of that info string.
 * @param {string} markdown
 * @param {{heading: string, lang?: string}} where
 * @returns {string[]}
 */
export function sectionCodeBlocks(markdown, { heading, lang }) {
  return fencedBlocks(markdownSection(markdown, heading).body)
    .filter((block) => !lang || block.lang === lang)
    .map((block) => block.code.trimEnd());
}

/**
 * The fenced code blocks of a markdown text, in order, with their info string.
 * @param {string} markdown
 * @returns {{lang: string, code: string}[]}
 */
export function fencedBlocks(markdown) {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? '', code: m[2] ?? '' }));
}

/**
 * The first code block of a section, or a build error naming what is missing.
 * @param {string} file @param {string} heading @param {string} lang @param {number} [index]
 */
function block(file, heading, lang, index = 0) {
  const found = sectionCodeBlocks(fs.readFileSync(file, 'utf8'), { heading, lang })[index];
  if (found === undefined) throw new Error(`${file}: section "${heading}" has no ${lang} block #${index + 1}, which the docs index shows`);
  return found;
}

/**
 * The first code block of a section that contains `contains`, or a build error naming what is missing.
 * @param {string} file @param {string} heading @param {string} lang @param {string} contains
 */
function blockWith(file, heading, lang, contains) {
  const found = sectionCodeBlocks(fs.readFileSync(file, 'utf8'), { heading, lang }).find((code) => code.includes(contains));
  if (found === undefined)
    throw new Error(`${file}: section "${heading}" has no ${lang} block with "${contains}", which the docs index shows`);
  return found;
}

/**
 * A `### <subheading>` part of a section (up to the next `### ` or the section's end), rendered as
 * HTML; its in-page links lead to the guide page, which shows the whole README section.
 * @param {string} file @param {string} heading @param {string} subheading
 */
function subsectionHtml(file, heading, subheading) {
  const lines = markdownSection(fs.readFileSync(file, 'utf8'), heading).body.split('\n');
  const start = lines.indexOf(`### ${subheading}`);
  if (start < 0) throw new Error(`${file}: section "${heading}" has no "### ${subheading}", which the docs index shows`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => line.startsWith('### '));
  const markdown = (end < 0 ? rest : rest.slice(0, end)).join('\n');
  const html = /** @type {string} */ (new Marked().parse(markdown, { async: false }));
  return html.replace(/href="#/g, `href="./${TESTING_PAGE}#`);
}

/** @param {string} text */
export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const code = (/** @type {string} */ text) => `<pre><code>${escapeHtml(text)}</code></pre>`;

/**
 * The guide sections of the index, and their table of contents.
 * @param {string} repoRoot
 * @returns {{toc: string, html: string}} HTML
 */
export function renderGuide(repoRoot) {
  const readme = path.join(repoRoot, 'README.md');
  const pkg = (/** @type {string} */ name) => path.join(repoRoot, 'packages', name, 'README.md');
  const emulator = path.join(repoRoot, 'apps', 'emulator', 'README.md');
  const guide = `<a href="./${TESTING_PAGE}">Test your agent app without an LLM</a>`;
  const sections = [
    {
      id: 'install-the-emulator',
      title: 'Install the emulator in your project',
      body: `<p>The stateful emulator of both APIs is a development dependency of your app, run from your own project,
        locally and in CI; its runs execute scripted graphs, so your app's conversations work with no graph code and
        no LLM.</p>
        ${code(block(emulator, 'Install it in your project', 'sh'))}
        <p>Once it listens it prints its URLs (and, with no config, the API key of its one tenant); Ctrl-C stops it:</p>
        ${code(block(emulator, 'Install it in your project', 'text'))}
        <p>The guide ${guide} goes on from there, in this order: testing your app, its graphs, recording them from your
        real graph, the store and crons, and running the emulator (flags, environment, exit codes).</p>`,
    },
    {
      id: 'test-without-an-llm',
      title: 'Test your app without an LLM',
      body: `<p>An emulator per test, in the test's own process, with no port and no files (about 2 ms each):</p>
        ${code(blockWith(emulator, 'Test your agent app without an LLM', 'ts', '// tests/agent.test.ts'))}
        <p>The guide also holds a conversation through the LangGraph SDK, runs the emulator as a server in a CI job, and
        tests UIs on <code>useStream</code>, with Playwright, CopilotKit and pytest.</p>`,
    },
    {
      id: 'scripted-graphs',
      title: 'Scripted graphs',
      body: `<p>The emulator's runs execute scripted graphs: the replies, tool calls, interrupts, failures and timing
        written in its config, the same every time, with no graph code and no LLM. A graph:</p>
        ${code(block(emulator, 'Scripted graphs', 'yaml'))}
        <p>Graphs of any shape (your own nodes, subgraphs, parallel branches) are written the same way: see the
        guide.</p>`,
    },
    {
      id: 'record',
      title: 'Record your agent once, test against it forever',
      body: `<p>Or let your real graph write them: <code>agentplane-emulator record</code> is a proxy in front of your
        agent server that writes what it saw as a config the emulator replays.</p>
        ${code(block(emulator, 'Record your agent once, test against it forever', 'sh'))}`,
    },
    {
      id: 'store-and-crons',
      title: 'Store and crons',
      body: `<p>The LangGraph SDK's store (long-term memory) and crons (scheduled runs) work too; a cron's runs come on
        a clock the test moves:</p>
        ${code(block(emulator, 'Store and crons', 'ts'))}`,
    },
    {
      id: 'running-it',
      title: 'Running it: flags, environment, exit codes',
      body: `<p>Every flag has an <code>AGENTPLANE_EMULATOR_*</code> variable (<code>npx agentplane-emulator --help</code>
        lists them; the guide's <a href="./${TESTING_PAGE}#running-it">Running it</a> says what each does, and how it
        stops). Its exit codes:</p>
        ${subsectionHtml(emulator, 'Running it', 'Exit codes')}`,
    },
    {
      id: 'deploy-from-ci',
      title: 'Deploy from CI/CD',
      body: `<p>The <code>agentplane</code> CLI finds or creates a deployment by name, rolls out an image or a git ref,
        and waits for the revision, with exit codes a pipeline can branch on
        (0 deployed, 1 failed, 2 timed out, 3 usage or credentials, 4 not found, 130 interrupted).</p>
        ${code(block(pkg('cli'), '', 'sh', 1))}
        <p>A GitHub Actions workflow that deploys on every push to <code>main</code>:</p>
        ${code(block(readme, 'Deploying from CI/CD', 'yaml'))}
        <p>A preview deployment per pull request, updated on every push and deleted when it closes:</p>
        ${code(block(readme, 'Deploying from CI/CD', 'yaml', 1))}
        <p>A rollback to the revision that served before, run by hand:</p>
        ${code(block(readme, 'Deploying from CI/CD', 'yaml', 2))}`,
    },
    {
      id: 'client-packages',
      title: 'Typed client packages',
      body: `<p>Generated from the same specs, so every path, parameter, body and answer is typed:
        <code>npm install @agentplane/control-plane</code> and <code>npm install @agentplane/agent-server</code>.</p>
        <h3>Control plane: deploy and wait</h3>
        ${code(block(pkg('control-plane'), 'Deploy from CI and wait', 'ts'))}
        <h3>Agent server: threads, state and history</h3>
        ${code(block(pkg('agent-server'), 'Threads, state and history', 'ts'))}`,
    },
    {
      id: 'run-locally',
      title: 'Work on agentplane: run it from a clone',
      body: `<p>To work on agentplane itself (an app needs none of this: it installs the emulator, above), from a clone of
        the repository: install, then serve these docs and the stateful emulator of both APIs (<code>npm start</code>),
        or the stateless Prism mocks (<code>npm run mock</code>).</p>
        ${code(block(readme, 'Quick start', 'sh'))}
        <p>Then talk to the emulator with the API key <code>npm start</code> printed:</p>
        ${code(block(readme, 'Quick start', 'sh', 1))}`,
    },
  ];
  return {
    toc: sections.map((s) => `<a href="#${s.id}">${escapeHtml(s.title)}</a>`).join(' · '),
    html: sections
      .map((s) => `      <section id="${s.id}">\n        <h2>${escapeHtml(s.title)}</h2>\n        ${s.body}\n      </section>`)
      .join('\n'),
  };
}
