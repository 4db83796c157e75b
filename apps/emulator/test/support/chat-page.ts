// What the browser suites share: a chat page (test/browser/<page>/app.tsx) bundled with esbuild
// and served from an origin of its own, so that every call it makes to an agent server is
// cross-origin as a UI developer's is; headless Chromium (Debian's, through playwright-core);
// and the readings of the page both pages allow, by their common test IDs (`status`, `thread`,
// `message-<type>` items with their `text`, `input`, `send`).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether Chromium is installed; without it a browser suite is skipped with a notice, except in CI, where it fails. */
export function chromiumAvailable(suite: string): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  const notice = `Chromium not found at ${CHROMIUM}: the ${suite} browser test is SKIPPED (apt-get install chromium, or set CHROMIUM_PATH).`;
  if (process.env.CI) throw new Error(`${notice} CI never skips it.`);
  console.warn(`\n⚠️  ${notice}\n`);
  return false;
}

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });

export interface ServedPage {
  /** The page's origin, another than the agent server's. */
  url: string;
  close(): Promise<void>;
}

/** Bundles `entry` (a page's app.tsx) for the browser and serves it with an HTML shell on a port of its own. */
export async function servePage(entry: string, title: string): Promise<ServedPage> {
  const bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chat-page-'));
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    outfile: path.join(bundleDir, 'app.js'),
    define: { 'process.env.NODE_ENV': '"development"' },
    logLevel: 'silent',
  });
  const html = [
    `<!doctype html><meta charset="utf-8"><title>${title}</title>`,
    '<style>li > * + * { margin-left: 0.5em } [data-testid=branches] { color: #666 }</style>',
    '<div id="root"></div><script type="module" src="/app.js"></script>',
  ].join('');
  const site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://page');
    if (url.pathname === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(path.join(bundleDir, 'app.js')));
    } else if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
    } else if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => site.close(resolve));
      fs.rmSync(bundleDir, { recursive: true, force: true });
    },
  };
}

/** Generous: a shared 2-core machine may be running other suites. */
export const WAIT = { timeout: 30_000 };

/**
 * Opens the served chat page on `graph` against the agent server at `api` (with `query` besides),
 * kept in `opened` and its errors in `errors` (console errors are printed), once it shows a status.
 */
export async function openChatPage(
  browser: Browser,
  opened: { pages: Page[]; errors: string[] },
  siteUrl: string,
  params: Record<string, string> & { api: string; graph: string },
): Promise<Page> {
  const page = await browser.newPage();
  opened.pages.push(page);
  page.on('pageerror', (error) => opened.errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') console.warn(`[page console] ${message.text()} (${message.location().url})`);
  });
  const url = new URL(siteUrl);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  await page.goto(url.href);
  await page.getByTestId('status').waitFor(WAIT);
  return page;
}

export async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('input').fill(text);
  await page.getByTestId('send').click();
}

export const untilIdle = (page: Page) =>
  page.waitForFunction(() => document.querySelector('[data-testid=status]')?.textContent === 'idle', null, WAIT);

/** Waits until the page shows the first words of the AI reply. */
export const untilReplyStarts = (page: Page) =>
  page.waitForFunction(
    () => (document.querySelector('[data-testid=message-ai] [data-testid=text]')?.textContent ?? '').length > 0,
    null,
    WAIT,
  );

export const threadOf = async (page: Page) => (await page.getByTestId('thread').textContent()) ?? '';

/** The texts the page shows, message by message, as `type: text`. */
export const transcript = (page: Page) =>
  page.$$eval('li', (items) =>
    items.map((item) => `${item.dataset.testid?.slice(8)}: ${item.querySelector('[data-testid=text]')?.textContent}`),
  );

/** Waits until the last message shown is an AI message with this text and the hook has stopped streaming. */
export async function untilReplied(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (expected) => {
      const items = document.querySelectorAll('li');
      const last = items[items.length - 1];
      return (
        last?.dataset.testid === 'message-ai' &&
        last.querySelector('[data-testid=text]')?.textContent === expected &&
        document.querySelector('[data-testid=status]')?.textContent === 'idle'
      );
    },
    text,
    WAIT,
  );
}

/**
 * Records, on the page, every text the AI message shows and whether the hook was streaming then:
 * read it back with `seenTexts`.
 */
export const watchReply = (page: Page) =>
  page.evaluate(() => {
    const seen: { text: string; streaming: boolean }[] = [];
    (window as unknown as { seen: typeof seen }).seen = seen;
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid=message-ai] [data-testid=text]')?.textContent;
      const streaming = document.querySelector('[data-testid=status]')?.textContent === 'streaming';
      if (text && seen.at(-1)?.text !== text) seen.push({ text, streaming });
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });

export const seenTexts = (page: Page) => page.evaluate(() => (window as unknown as { seen: { text: string; streaming: boolean }[] }).seen);

/** Waits until part of `full` is on screen while the hook still streams. */
export const untilPartOfReply = (page: Page, full: string) =>
  page.waitForFunction(
    (reply) => {
      const text = document.querySelector('[data-testid=message-ai] [data-testid=text]')?.textContent ?? '';
      return (
        text.length > 0 &&
        text !== reply &&
        reply.startsWith(text) &&
        document.querySelector('[data-testid=status]')?.textContent === 'streaming'
      );
    },
    full,
    WAIT,
  );

export async function screenshot(page: Page, dir: string, name: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}
