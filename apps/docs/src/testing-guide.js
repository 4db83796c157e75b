// The guide page "Test your agent app without an LLM" (TESTING_PAGE): the emulator README's own
// sections, from installing it into an app's project to running it, and on runs, rendered from
// markdown as they stand, never written a second time. The
// README's TypeScript blocks are type-checked by the emulator's tests and run by the docs' tests
// and the packed-install test (apps/mock), so the page shows only what the emulator does.
//
// The build fails, naming the README and the section, when a section or an example the page
// promises is gone, or when a link would not work on the page: an in-page anchor that names no
// heading here, or a relative link into the repository, which the site does not serve.
import fs from 'node:fs';
import path from 'node:path';
import { Marked } from 'marked';
import { escapeHtml, fencedBlocks, markdownSection } from './guide.js';

export const TESTING_PAGE_TITLE = 'Test your agent app without an LLM';

/**
 * The README sections the page shows, in this order (the README's own, an app team's first hour:
 * install, test, graphs, recording, the store and crons, running it; then what runs do), and the
 * code blocks each must keep. The README's part on working on the emulator itself, from a clone of
 * this repository, is not shown: nothing here asks a reader for the repository.
 */
export const TESTING_SECTIONS = [
  {
    heading: 'Install it in your project',
    blocks: [
      { lang: 'sh', contains: 'npm install --save-dev @agentplane/emulator' },
      { lang: 'text', contains: 'agentplane-emulator ready: ' },
    ],
  },
  {
    heading: 'Test your agent app without an LLM',
    blocks: [
      // A conversation through the SDK against the command, in process (Vitest, a reply function), CI.
      { lang: 'sh', contains: 'npx agentplane-emulator --config graphs.yaml' },
      { lang: 'ts', contains: 'client.runs.wait(' },
      { lang: 'ts', contains: '// tests/agent.test.ts' },
      { lang: 'ts', contains: '({ input, resume }) =>' },
      { lang: 'yaml', contains: 'npx agentplane-emulator --config graphs.yaml --db :memory:' },
      // UIs: both useStreams, Playwright beside them; CopilotKit's AG-UI LangGraph adapter; pytest.
      { lang: 'tsx', contains: "from '@langchain/langgraph-sdk/react'" },
      { lang: 'tsx', contains: "from '@langchain/react'" },
      { lang: 'ts', contains: 'webServer' },
      { lang: 'ts', contains: "from '@ag-ui/langgraph'" },
      { lang: 'python', contains: 'def agent_server_url' },
    ],
  },
  { heading: 'Scripted graphs', blocks: [{ lang: 'yaml', contains: 'graphs:' }] },
  // Your own graph's shape, then the same written for you from the real graph.
  { heading: 'Graphs of any shape', blocks: [{ lang: 'yaml', contains: 'runs:' }] },
  {
    heading: 'Record your agent once, test against it forever',
    blocks: [
      { lang: 'sh', contains: 'npx agentplane-emulator record --upstream' },
      { lang: 'yaml', contains: 'chunks:' },
    ],
  },
  { heading: 'Store and crons', blocks: [{ lang: 'ts', contains: 'client.crons.createForThread(' }] },
  // Flags, variables, exit codes, stopping, the config, a browser's calls, and createEmulator().
  {
    heading: 'Running it',
    blocks: [
      { lang: 'yaml', contains: 'revision_outcomes:' },
      { lang: 'ts', contains: 'startEmulator(' },
    ],
  },
  { heading: 'Runs', blocks: [] },
  // What @langchain/react's useStream and threads.stream() speak (the react example links here).
  { heading: 'The thread-centric protocol', blocks: [{ lang: 'ts', contains: 'client.threads.stream(' }] },
];

/** The emulator README, whose sections the page shows. */
export const testingReadme = (/** @type {string} */ repoRoot) => path.join(repoRoot, 'apps', 'emulator', 'README.md');

/**
 * The anchor GitHub gives a heading, so that the README's in-page links work on the page too:
 * its text, lower case, without punctuation, each space a hyphen.
 * @param {string} html the heading's rendered content
 */
export function headingId(html) {
  /** @type {Record<string, string>} */
  const entities = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
  const text = html.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (_, /** @type {string} */ name) => entities[name] ?? '');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * The page's HTML, from the README at `readmeFile`.
 * @param {string} readmeFile
 * @param {{referencePage: string}} links the agent server's API reference page
 */
export function renderTestingPage(readmeFile, { referencePage }) {
  const markdown = fs.readFileSync(readmeFile, 'utf8');
  const where = readmeFile;
  const sections = TESTING_SECTIONS.map(({ heading, blocks }) => {
    let section;
    try {
      section = markdownSection(markdown, heading);
    } catch {
      throw new Error(`${where}: no "## ${heading}" section, which the page ${TESTING_PAGE_TITLE} shows`);
    }
    const fences = fencedBlocks(section.body);
    for (const wanted of blocks)
      if (!fences.some((fence) => fence.lang === wanted.lang && fence.code.includes(wanted.contains)))
        throw new Error(`${where}: section "${heading}" has no ${wanted.lang} block with "${wanted.contains}", which the page shows`);
    return `${section.headingLine}\n${section.body}`;
  });

  /** @type {{level: number, id: string, html: string}[]} */
  const headings = [];
  const marked = new Marked({
    renderer: {
      heading(text, level) {
        const id = headingId(text);
        headings.push({ level, id, html: text });
        return `<h${level} id="${id}">${text}</h${level}>\n`;
      },
    },
  });
  const body = /** @type {string} */ (marked.parse(sections.join('\n'), { async: false }));
  const ids = new Set(headings.map((h) => h.id));
  for (const [, href] of body.matchAll(/<a href="([^"]*)"/g)) {
    if (href?.startsWith('#') && !ids.has(href.slice(1)))
      throw new Error(`${where}: the link to ${href} names no heading of the page ${TESTING_PAGE_TITLE}`);
    if (!href?.startsWith('#') && !/^https?:\/\//.test(href ?? ''))
      throw new Error(`${where}: the link to ${href} points into the repository, which the page ${TESTING_PAGE_TITLE} cannot follow`);
  }
  const toc = headings
    .filter((h) => h.level <= 3)
    .map((h) => `<a class="level-${h.level}" href="#${h.id}">${h.html}</a>`)
    .join('\n        ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>agentplane: ${escapeHtml(TESTING_PAGE_TITLE)}</title>
    <style>
      body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1f2430; background: #f7f8fa; line-height: 1.5; }
      main { max-width: 56rem; margin: 3rem auto; padding: 0 1.5rem; }
      h1 { font-size: 1.8rem; margin-bottom: .25rem; } h2 { font-size: 1.4rem; margin: 2.5rem 0 .5rem; } h3 { font-size: 1.1rem; margin: 1.5rem 0 .4rem; }
      a { color: #2456c9; } .meta { color: #6a7182; font-size: .9rem; }
      nav.toc { display: flex; flex-direction: column; gap: .1rem; font-size: .95rem; margin: 1rem 0 1.5rem; }
      nav.toc .level-3 { margin-left: 1.25rem; }
      pre { background: #1f2430; color: #e8eaf0; padding: .9rem 1rem; border-radius: 6px; overflow-x: auto; font-size: .85rem; line-height: 1.4; }
      code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
      p code, li code, h3 code, td code { background: #eceef3; padding: 0 .25rem; border-radius: 3px; }
      table { border-collapse: collapse; margin: .75rem 0; font-size: .92rem; }
      th, td { border-bottom: 1px solid #dde1e8; padding: .35rem .6rem; text-align: left; vertical-align: top; }
    </style>
  </head>
  <body>
    <main>
      <p class="meta"><a href="./index.html">agentplane</a> · <a href="./${escapeHtml(referencePage)}">Agent server reference</a></p>
      <h1>${escapeHtml(TESTING_PAGE_TITLE)}</h1>
      <p class="meta">From the emulator's README (<code>apps/emulator/README.md</code>), in the order an app team needs it:
        installing it into your project, testing your app, scripted and recorded graphs, the store and crons, running it
        (flags, environment, exit codes, stopping, config), and what runs do. The repository's tests type-check and run its examples.</p>
      <nav class="toc">
        ${toc}
      </nav>
${body}
    </main>
  </body>
</html>
`;
}
