// The guide "Test your agent app without an LLM" is the emulator README's own sections, rendered.
// These tests hold the page to its sections and examples (a README edit that drops one fails the
// build, naming it) and run the examples as they stand against the built emulator: the config is
// one it starts with, the refused config is refused with the lines shown, and the conversation
// through the SDK and the in-process test pass, assertions included.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EmulatorConfig } from '@agentplane/emulator';
import { readConfigFile, startEmulator } from '@agentplane/emulator';
import { apiPaths } from '@agentplane/openapi-toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../src/guide.js';
import { headingId, renderTestingPage, TESTING_SECTIONS } from '../src/testing-guide.js';
import { readmeBlocks as blocks, conversationAt, exampleDir, GUIDE, README, readmeBlock, runExample } from './support/readme-examples.js';

const markdown = fs.readFileSync(README, 'utf8');
const render = (file = README) => renderTestingPage(file, { referencePage: 'agent-server.html' });
const RUN_DIR = exampleDir('testing-guide');
afterAll(() => fs.rmSync(RUN_DIR, { recursive: true, force: true }));

describe('the page', () => {
  const html = render();

  it('shows the README sections in order, their headings linked from its contents', () => {
    const h2 = [...html.matchAll(/<h2 id="([^"]+)">/g)].map((m) => m[1]);
    expect(h2).toEqual(TESTING_SECTIONS.map((s) => headingId(s.heading)));
    const h3 = [...html.matchAll(/<h3 id="([^"]+)">/g)].map((m) => m[1]);
    expect(h3).toEqual([
      'a-conversation-through-the-sdk',
      'in-process-in-your-tests',
      'in-ci',
      'test-a-usestream-ui-against-the-emulator',
      'test-a-langchainreact-ui-against-the-emulator',
      'playwright-the-emulator-beside-your-ui',
      'copilotkit',
      'pytest-a-python-app',
      'templates',
      'runs-told-apart-by-the-whole-request',
      'the-command-line',
      'exit-codes',
      'stopping',
      'config',
      'calling-from-a-browser',
      'from-code',
    ]);
    for (const id of [...h2, ...h3]) expect(html, id).toContain(`<a class="level-${h2.includes(id) ? 2 : 3}" href="#${id}">`);
  });

  it('shows how to install it, and its first lines, from the README', () => {
    const shown = [...blocks('Install it in your project', 'sh'), ...blocks('Install it in your project', 'text')];
    expect(shown).toHaveLength(2);
    expect(shown[0]).toContain('npm install --save-dev @agentplane/emulator');
    for (const block of shown) expect(html).toContain(escapeHtml(block));
  });

  it('shows why, the config, the conversation through the SDK, CI and in-process tests, from the README', () => {
    expect(html).toContain('no graph code and no LLM');
    const shown = [
      blocks('Scripted graphs', 'yaml')[0],
      ...blocks(GUIDE, 'ts'),
      ...blocks(GUIDE, 'sh'),
      ...blocks(GUIDE, 'yaml'),
    ] as string[];
    expect(shown.every(Boolean)).toBe(true);
    for (const block of shown) expect(html).toContain(escapeHtml(block));
    const conversation = readmeBlock(GUIDE, 'ts', 'client.runs.wait(');
    const inProcess = readmeBlock(GUIDE, 'ts', 'resume === true');
    for (const step of [
      'client.runs.wait(',
      "command: { resume: 'approved' }",
      '__interrupt__',
      '__error__',
      'raiseError: false',
      'lookup_order',
    ])
      expect(conversation, step).toContain(step);
    expect(blocks(GUIDE, 'sh')[0]).toBe('npx agentplane-emulator --config graphs.yaml');
    expect(readmeBlock(GUIDE, 'yaml', '# .github/workflows/test.yml')).toContain(
      'npx agentplane-emulator --config graphs.yaml --db :memory:',
    );
    for (const step of ['createEmulator({', 'callerOptions: { fetch: emulator.agentServer.fetch }', 'resume', 'command: { resume: true }'])
      expect(inProcess, step).toContain(step);
  });

  it('shows a graph of any shape, and how to record one from the real graph and replay it', () => {
    const shown = [
      ...blocks('Graphs of any shape', 'yaml'),
      ...blocks('Record your agent once, test against it forever', 'sh'),
      ...blocks('Record your agent once, test against it forever', 'yaml'),
    ];
    expect(shown).toHaveLength(5);
    for (const block of shown) expect(html).toContain(escapeHtml(block));
  });

  it('shows the files an app adds to its own project: the Vitest file, the Playwright config, the workflow, pytest', () => {
    const files = ['// tests/agent.test.ts', '// playwright.config.ts', '# .github/workflows/test.yml', '# conftest.py', '# test_agent.py'];
    const shown = ['ts', 'yaml', 'python'].flatMap((lang) => blocks(GUIDE, lang)).filter((block) => files.includes(block.split('\n')[0]!));
    expect(shown.map((block) => block.split('\n')[0]).sort()).toEqual([...files].sort());
    for (const block of shown) expect(html).toContain(escapeHtml(block));
  });

  it('shows the store and crons, and running it: every flag, variable and exit code, stopping, the config', () => {
    expect(html).toContain(escapeHtml(readmeBlock('Store and crons', 'ts', 'client.crons.createForThread(')));
    const running = html.slice(html.indexOf('<h2 id="running-it">'), html.indexOf('<h2 id="runs">'));
    for (const text of [
      '--cron-speed',
      'AGENTPLANE_EMULATOR_DETACHED',
      '--wait-for-upstream',
      'exit status 130',
      'SIGHUP',
      'revision_outcomes',
    ])
      expect(running, text).toContain(text);
  });

  it('names every run status, thread status, multitask strategy and cancel action of the spec in Runs', () => {
    const spec = JSON.parse(fs.readFileSync(apiPaths('agent-server').bundleJson, 'utf8'));
    const runs = html.slice(html.indexOf('<h2 id="runs">'));
    const values = [
      ...spec.components.schemas.RunStatus.enum,
      ...spec.components.schemas.ThreadStatus.enum,
      ...spec.components.schemas.MultitaskStrategy.enum,
      ...spec.components.parameters.CancelAction.schema.enum,
    ] as string[];
    for (const value of values) expect(runs, value).toContain(`<code>${value}</code>`);
  });

  it('works offline and links nothing it cannot follow', () => {
    expect(html).not.toMatch(/<(script|link|img)\b/);
    expect(html).toContain('href="./agent-server.html"');
  });
});

describe('a README that loses what the page shows', () => {
  const copy = (edit: (text: string) => string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-testing-guide-'));
    const file = path.join(dir, 'README.md');
    fs.writeFileSync(file, edit(markdown));
    return { file, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
  };

  it.each([
    ['a section', (text: string) => text.replace('## Runs\n', '## Run semantics\n'), /no "## Runs" section, which the page .* shows/],
    [
      'the CI job',
      (text: string) => text.replace('npx agentplane-emulator --config graphs.yaml --db :memory: >', 'npx agentplane-emulator >'),
      /section "Test your agent app without an LLM" has no yaml block with "npx agentplane-emulator --config graphs\.yaml --db :memory:"/,
    ],
    [
      'the install command',
      (text: string) => text.replace('npm install --save-dev @agentplane/emulator', 'npm install @agentplane/emulator'),
      /section "Install it in your project" has no sh block with "npm install --save-dev @agentplane\/emulator"/,
    ],
    ['the store and crons', (text: string) => text.replace('## Store and crons\n', '## Memory\n'), /no "## Store and crons" section/],
    [
      'the config reference',
      (text: string) => text.replace('revision_outcomes:          # first', 'outcomes:          # first'),
      /section "Running it" has no yaml block with "revision_outcomes:"/,
    ],
    [
      'the in-process test',
      (text: string) => text.replace('({ input, resume }) =>', '({ input }) =>'),
      /no ts block with "\(\{ input, resume \}\) =>"/,
    ],
    [
      'the CopilotKit example',
      (text: string) => text.replace("from '@ag-ui/langgraph'", "from 'ag-ui'"),
      /section "Test your agent app without an LLM" has no ts block with "from '@ag-ui\/langgraph'"/,
    ],
    [
      'the pytest fixture',
      (text: string) => text.replace('def agent_server_url', 'def emulator_url'),
      /section "Test your agent app without an LLM" has no python block with "def agent_server_url"/,
    ],
    [
      'an anchor',
      (text: string) => text.replace('(#in-process-in-your-tests)', '(#in-process)'),
      /the link to #in-process names no heading/,
    ],
    [
      'a link the site cannot follow',
      (text: string) => text.replace('## Runs\n', '## Runs\n\nSee [the decisions](../../docs/decisions.md).\n'),
      /the link to \.\.\/\.\.\/docs\/decisions\.md points into the repository/,
    ],
  ])('fails the build when it loses %s, naming the README', (_, edit, error) => {
    const { file, done } = copy(edit);
    try {
      expect(() => render(file)).toThrow(error);
      expect(() => render(file)).toThrow(file);
    } finally {
      done();
    }
  });
});

describe('the examples, run as they stand', () => {
  it('the config is one the emulator accepts; the refused one is refused with the lines shown', () => {
    const [config, refused] = blocks('Scripted graphs', 'yaml') as [string, string];
    const file = path.join(RUN_DIR, 'graphs.yaml');
    fs.writeFileSync(file, config);
    expect(Object.keys(readConfigFile(file).graphs ?? {})).toEqual(['support']);
    fs.writeFileSync(file, refused);
    const shown = blocks('Scripted graphs', 'text')[0] ?? '';
    expect(shown).toContain('graphs.yaml:5:9: ');
    // The README's file is graphs.yaml where it was run; here it is named as the error names it.
    const expected = shown.replace(/^agentplane-emulator: /, '').replaceAll('graphs.yaml', path.relative(process.cwd(), file));
    expect(() => readConfigFile(file)).toThrow(expected);
    // The config reference's example, which shows `graphs:` among the rest, is accepted too.
    expect(readYamlBlock('Running it', 'revision_outcomes:').graphs).toBeDefined();
  });

  it('the graph of any shape and the recording shown are configs the emulator starts with', () => {
    const cases: [string, string[]][] = [
      ['Graphs of any shape', ['research']],
      ['Record your agent once, test against it forever', ['agent']],
    ];
    for (const [section, graphs] of cases) {
      const file = path.join(RUN_DIR, `${headingId(section)}.yaml`);
      fs.writeFileSync(file, blocks(section, 'yaml')[0] ?? '');
      expect(Object.keys(readConfigFile(file).graphs ?? {}), section).toEqual(graphs);
    }
  });

  it('the conversation through the SDK answers as its assertions say, against the emulator started with the config', async () => {
    const file = path.join(RUN_DIR, 'conversation-graphs.yaml');
    fs.writeFileSync(file, blocks('Scripted graphs', 'yaml')[0] ?? '');
    const errors: string[] = [];
    const emulator = await startEmulator({
      config: readConfigFile(file),
      db: ':memory:',
      agentServerPort: 0,
      controlPlanePort: 0,
      onError: (message) => errors.push(message),
    });
    try {
      // The example talks to the agent server on 8123; this one listens on a free port.
      await runExample(RUN_DIR, 'conversation', conversationAt(emulator.agentServerUrl));
      expect(errors).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it('the in-process test passes as written', async () => {
    await runExample(RUN_DIR, 'in-process', readmeBlock(GUIDE, 'ts', 'resume === true'));
  });

  it("the CopilotKit example passes as written: the AG-UI LangGraph adapter's tool call, state and interrupt", async () => {
    const example = readmeBlock(GUIDE, 'ts', "from '@ag-ui/langgraph'");
    for (const step of [
      'new LangGraphAgent({ deploymentUrl: emulator.agentServerUrl',
      'TOOL_CALL_RESULT',
      'on_interrupt',
      'forwardedProps',
    ])
      expect(example, step).toContain(step);
    await runExample(RUN_DIR, 'copilotkit', example);
  });

  it('the example of createEmulator() and startEmulator() passes as written', async () => {
    await runExample(RUN_DIR, 'from-code', readmeBlock('Running it', 'ts', 'startEmulator('));
  });

  it('the cron example on a moved clock passes as written', async () => {
    await runExample(RUN_DIR, 'crons', readmeBlock('Store and crons', 'ts', 'client.crons.createForThread('));
  });

  it('the protocol through the SDK’s threads.stream(), in process, passes as written', async () => {
    await runExample(RUN_DIR, 'protocol', blocks('The thread-centric protocol', 'ts')[0] ?? '');
  });
});

/** A README section's YAML block with `contains`, read by the emulator's own config reader. */
function readYamlBlock(heading: string, contains: string): EmulatorConfig {
  const file = path.join(RUN_DIR, `${headingId(heading)}.yaml`);
  fs.writeFileSync(file, readmeBlock(heading, 'yaml', contains));
  return readConfigFile(file);
}
