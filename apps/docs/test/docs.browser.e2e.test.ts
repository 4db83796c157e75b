// Opens the built docs in headless Chromium: the index links every API page, each page shows
// every operation's summary, nothing is loaded from outside localhost, and a full-page
// screenshot of each page is saved to test-results/docs/ as an artifact.
//
// Without Chromium the test is skipped with a notice saying how to install it, except in CI
// (CI=true), where a missing browser is a failure.
import fs from 'node:fs';
import path from 'node:path';
import { listOperations, REPO_ROOT } from '@agentplane/openapi-toolkit';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStatic } from '../src/serve.js';
import { DIST_DIR, PAGES } from '../src/site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'docs');
const hasChromium = fs.existsSync(CHROMIUM);

if (!hasChromium) {
  const notice = `Chromium not found at ${CHROMIUM}: the docs browser check is SKIPPED. Install it with \`apt-get install -y --no-install-recommends chromium\` (or set CHROMIUM_PATH).`;
  if (process.env.CI) throw new Error(`${notice} CI never skips it.`);
  console.warn(`\n⚠️  ${notice}\n`);
}

describe.skipIf(!hasChromium)('docs site in a browser', () => {
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
      ['deploy-from-ci', 'agentplane deploy billing-agent'],
      ['client-packages', 'createControlPlaneClient'],
    ]) {
      await expect(tab.locator(`nav a[href="#${id}"]`).count(), id).resolves.toBe(1);
      await expect(tab.locator(`section#${id} pre`).first().textContent(), id).resolves.toContain(snippet);
    }
    await tab.screenshot({ path: path.join(SCREENSHOT_DIR, 'index.png'), fullPage: true });
    expect(external).toEqual([]);
    await context.close();
  });

  for (const { name, page, bundleJson } of PAGES) {
    it(`${name}: shows every operation's summary and loads nothing from outside localhost`, async () => {
      const spec = JSON.parse(fs.readFileSync(bundleJson, 'utf8'));
      const { context, tab, external, errors, status } = await open(page);
      expect(status).toBe(200);
      await tab.waitForSelector('[data-testid="menu-item-label"]', { timeout: 30_000 });
      await tab.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-overview.png`) });
      // Markdown the page shows as plain text (a server description, say) keeps its backticks.
      const literalMarkdown = (await tab.evaluate(() => document.body.innerText)).split('\n').filter((line) => line.includes('`'));
      expect(literalMarkdown, 'text shown with literal backticks').toEqual([]);
      // Redoc 3 renders one section at a time: open each operation from the side menu (expanding
      // its tag group first) and check that its summary is the visible heading.
      for (const { operation } of listOperations(spec)) {
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
        await expect(heading.isVisible(), operation.summary).resolves.toBe(true);
      }
      await tab.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
      expect(external).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
