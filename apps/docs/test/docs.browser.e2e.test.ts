// Opens the built docs in headless Chromium: the index links every API page, the conformance
// page (every check, a sample report) and the guide "Test your agent app without an LLM" (the
// emulator README's sections, their contents and examples), each API page shows every operation's summary, an
// operation shows its code samples (curl, TypeScript, the CLI), nothing is loaded from outside
// localhost, and a full-page screenshot of each page is saved to test-results/docs/ as an artifact. AGENTPLANE_DOCS_SCREENSHOT names a file to save the code
// samples panel of createDeployment to, as well.
//
// Without Chromium the test is skipped with a notice saying how to install it, except in CI
// (CI=true), where a missing browser is a failure.
import fs from 'node:fs';
import path from 'node:path';
import { checkCatalog } from '@agentplane/conformance';
import { listOperations, REPO_ROOT } from '@agentplane/openapi-toolkit';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCodeSamples, SAMPLE_KINDS } from '../src/code-samples.js';
import { CONFORMANCE_PAGE } from '../src/conformance.js';
import { serveStatic } from '../src/serve.js';
import { DIST_DIR, PAGES, TESTING_PAGE } from '../src/site.js';
import { headingId, TESTING_PAGE_TITLE, TESTING_SECTIONS } from '../src/testing-guide.js';
import { GUIDE, readmeBlocks } from './support/readme-examples.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'docs');
const hasChromium = fs.existsSync(CHROMIUM);
// A full-page screenshot of a long page took over 30 s (Playwright's default) on a CI machine
// running the emulator's suites beside this one, and 6 s alone: the pictures are artifacts, so
// they are given time rather than failing a check that had passed.
const SCREENSHOT_TIMEOUT = 120_000;

if (!hasChromium) {
  const notice = `Chromium not found at ${CHROMIUM}: the docs browser check is SKIPPED. Install it with \`apt-get install -y --no-install-recommends chromium\` (or set CHROMIUM_PATH).`;
  if (process.env.CI) throw new Error(`${notice} CI never skips it.`);
  console.warn(`\n⚠️  ${notice}\n`);
}

describe.skipIf(!hasChromium)('docs site in a browser', { timeout: 300_000 }, () => {
  let browser: Browser;
  let site: Awaited<ReturnType<typeof serveStatic>>;

  beforeAll(async () => {
    site = await serveStatic({ root: DIST_DIR, port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** Opens an operation from the side menu (expanding its tag group first); Redoc 3 shows one section at a time. */
  async function showOperation(tab: Page, operation: { summary: string; tags: string[] }) {
    const menuItem = tab.locator('[data-testid="menu-item-label"]', { has: tab.locator(`[data-text="${operation.summary}"]`) }).first();
    if (!(await menuItem.isVisible())) {
      await tab
        .locator('[data-testid="menu-item-label"]', { has: tab.locator(`[data-text="${operation.tags[0]}"]`) })
        .first()
        .click();
    }
    await menuItem.waitFor({ state: 'visible', timeout: 10_000 });
    await menuItem.click();
    const heading = tab.locator('h2', { hasText: operation.summary }).first();
    await heading.waitFor({ state: 'visible', timeout: 10_000 });
    return heading;
  }

  /** Opens a page, recording every request that leaves localhost. */
  async function open(page: string) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const tab = await context.newPage();
    const external: string[] = [];
    tab.on('request', (request) => {
      const url = new URL(request.url());
      const local = ['data:', 'blob:', 'about:'].includes(url.protocol) || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      if (!local) external.push(request.url());
    });
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    const response = await tab.goto(`${site.url}/${page}`, { waitUntil: 'networkidle' });
    return { context, tab, external, errors, status: response?.status() };
  }

  it("index links to every API page and guides a newcomer from the READMEs' own code", async () => {
    const { context, tab, external, status } = await open('index.html');
    expect(status).toBe(200);
    for (const { page } of PAGES) await expect(tab.locator(`a[href="./${page}"]`).count()).resolves.toBe(1);
    // Each guide section is there, linked from the contents, with the READMEs' commands in it.
    for (const [id, snippet] of [
      ['run-locally', 'npm ci'],
      ['scripted-graphs', 'lookup_order'],
      ['deploy-from-ci', 'agentplane deploy billing-agent'],
      ['client-packages', 'createControlPlaneClient'],
    ]) {
      await expect(tab.locator(`nav a[href="#${id}"]`).count(), id).resolves.toBe(1);
      await expect(tab.locator(`section#${id} pre`).first().textContent(), id).resolves.toContain(snippet);
    }
    await tab.screenshot({ path: path.join(SCREENSHOT_DIR, 'index.png'), fullPage: true, timeout: SCREENSHOT_TIMEOUT });
    expect(external).toEqual([]);
    await context.close();
  });

  it('index links the conformance page, which lists every check and shows a sample report', async () => {
    const index = await open('index.html');
    await index.tab.locator(`nav a[href="./${CONFORMANCE_PAGE}"]`).click();
    await index.tab.waitForURL(`**/${CONFORMANCE_PAGE}`);
    const { tab } = index;
    await expect(tab.locator('h1').textContent()).resolves.toBe('agentplane conformance');
    const checks = checkCatalog();
    await expect(tab.locator('tbody tr').count()).resolves.toBe(checks.length);
    for (const check of checks) {
      const row = tab.locator(`tr[id="${check.id}"]`);
      await expect(row.isVisible(), check.id).resolves.toBe(true);
      await expect(row.locator('td').nth(3).textContent(), check.id).resolves.toBe(check.rule);
    }
    const sample = await tab.locator('section#sample pre').textContent();
    expect(sample).toContain('every served operation conforms');
    expect(sample).toMatch(/search:limit-offset\s+pass/);
    await tab.screenshot({ path: path.join(SCREENSHOT_DIR, 'conformance.png'), fullPage: true, timeout: SCREENSHOT_TIMEOUT });
    expect(index.external).toEqual([]);
    expect(index.errors).toEqual([]);
    await index.context.close();
  });

  it('index links the guide "Test your agent app without an LLM", which shows the README sections and their examples', async () => {
    const index = await open('index.html');
    await index.tab.locator(`nav a[href="./${TESTING_PAGE}"]`).click();
    await index.tab.waitForURL(`**/${TESTING_PAGE}`);
    const { tab } = index;
    await expect(tab.locator('h1').textContent()).resolves.toBe(TESTING_PAGE_TITLE);
    for (const { heading } of TESTING_SECTIONS) {
      const id = headingId(heading);
      await expect(tab.locator(`h2#${id}`).textContent(), id).resolves.toBe(heading);
      await expect(tab.locator(`nav.toc a[href="#${id}"]`).count(), id).resolves.toBe(1);
    }
    // The examples are the README's, whole: the config, the conversation, the CI step, the in-process test.
    const shown = (await tab.locator('pre code').allTextContents()).map((text) => text.trimEnd());
    const examples = [readmeBlocks('Scripted graphs', 'yaml')[0], ...readmeBlocks(GUIDE, 'ts'), ...readmeBlocks(GUIDE, 'sh')];
    for (const example of examples) expect(shown).toContain(example);
    // The contents lead to the sections.
    await tab.locator('nav.toc a[href="#in-process-in-your-tests"]').click();
    await tab.waitForURL('**#in-process-in-your-tests');
    await expect(tab.locator('h3#in-process-in-your-tests').isVisible()).resolves.toBe(true);
    await tab.screenshot({ path: path.join(SCREENSHOT_DIR, 'test-without-an-llm.png'), fullPage: true, timeout: SCREENSHOT_TIMEOUT });
    expect(index.external).toEqual([]);
    expect(index.errors).toEqual([]);
    await index.context.close();
  });

  for (const { name, changelogPage, bundleJson } of PAGES) {
    it(`${name}: the index shows its version and links its changelog page, which renders offline`, async () => {
      const spec = JSON.parse(fs.readFileSync(bundleJson, 'utf8'));
      const index = await open('index.html');
      await expect(index.tab.locator('ul.apis li', { hasText: spec.info.title }).first().textContent()).resolves.toContain(
        `Version ${spec.info.version}`,
      );
      await index.tab.locator(`a[href="./${changelogPage}"]`).click();
      await index.tab.waitForURL(`**/${changelogPage}`);
      await expect(index.tab.locator('h1').textContent()).resolves.toBe(`${spec.info.title}: changelog`);
      await expect(index.tab.locator('h2#unreleased').isVisible()).resolves.toBe(true);
      await index.tab.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-changelog.png`), fullPage: true });
      expect(index.external).toEqual([]);
      await index.context.close();
    });
  }

  for (const { name, page, bundleJson } of PAGES) {
    const spec = JSON.parse(fs.readFileSync(bundleJson, 'utf8'));
    // The walk opens each operation in turn, so its time grows with the spec: a fixed budget
    // breaks as soon as the API grows or CI runs it beside the heavy suites.
    const budgetMs = 30_000 + 3_000 * listOperations(spec).length;
    it(
      `${name}: shows every operation's summary and loads nothing from outside localhost`,
      async () => {
        const { context, tab, external, errors, status } = await open(page);
        expect(status).toBe(200);
        await tab.waitForSelector('[data-testid="menu-item-label"]', { timeout: 30_000 });
        await tab.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-overview.png`) });
        // Markdown the page shows as plain text (a server description, say) keeps its backticks.
        const literalMarkdown = (await tab.evaluate(() => document.body.innerText)).split('\n').filter((line) => line.includes('`'));
        expect(literalMarkdown, 'text shown with literal backticks').toEqual([]);
        for (const { operation } of listOperations(spec)) {
          const heading = await showOperation(tab, operation);
          await expect(heading.isVisible(), operation.summary).resolves.toBe(true);
        }
        await tab.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
        expect(external).toEqual([]);
        expect(errors).toEqual([]);
        await context.close();
      },
      budgetMs,
    );
  }

  it('control-plane: createDeployment shows its curl, TypeScript and agentplane CLI samples', async () => {
    const { bundleJson } = PAGES.find((p) => p.name === 'control-plane')!;
    const spec = JSON.parse(fs.readFileSync(bundleJson, 'utf8'));
    const { operation, method, path: route } = listOperations(spec).find((o) => o.operationId === 'createDeployment')!;
    const { samples } = generateCodeSamples('control-plane', spec).find((o) => o.operationId === 'createDeployment')!;
    expect(samples.map((s) => s.label)).toEqual([SAMPLE_KINDS.curl.label, SAMPLE_KINDS.typescript.label, SAMPLE_KINDS.cli.label]);

    const { context, tab, external, errors } = await open('control-plane.html');
    await tab.waitForSelector('[data-testid="menu-item-label"]', { timeout: 30_000 });
    await showOperation(tab, operation);
    // The operation's request panel: it starts with its method and path.
    const panel = tab.locator('[data-testid="right-panel"]', { hasText: new RegExp(`^${method.toUpperCase()}${route}`) }).first();
    const labels = new RegExp(`^(${[...samples.map((s) => s.label), 'Payload'].join('|')})$`);
    const language = panel.locator('[data-testid="dropdown"]', { has: tab.locator('button', { hasText: labels }) });
    for (const sample of samples) {
      await language.locator('button').click();
      const choices = await tab.getByRole('menuitem').allTextContents();
      expect(choices).toEqual(expect.arrayContaining(samples.map((s) => s.label)));
      await tab.getByRole('menuitem', { name: sample.label, exact: true }).click();
      await expect(language.locator('button').textContent(), sample.label).resolves.toBe(sample.label);
      const shown = await panel.locator('pre[data-testid="source-code"]').first().textContent();
      expect(shown?.trimEnd(), sample.label).toBe(sample.source);
    }
    // With the language menu open over the last sample, so the picture shows every label.
    await language.locator('button').click();
    await panel.screenshot({ path: path.join(SCREENSHOT_DIR, 'control-plane-createDeployment.png'), timeout: SCREENSHOT_TIMEOUT });
    const wanted = process.env.AGENTPLANE_DOCS_SCREENSHOT;
    if (wanted) {
      fs.mkdirSync(path.dirname(path.resolve(wanted)), { recursive: true });
      await panel.screenshot({ path: path.resolve(wanted), timeout: SCREENSHOT_TIMEOUT });
    }
    expect(external).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
