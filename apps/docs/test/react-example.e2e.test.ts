// The guide's `@langchain/react` example, run as it stands: the README's component, its apiUrl
// pointed at an emulator started with the README's graphs config, bundled with esbuild into a page
// served from an origin of its own, and driven in headless Chromium as its text says: an order
// question (a tool call, its answer, the reply), then a refund (an interrupt shown and approved).
//
// Without Chromium the test is skipped with a notice, except in CI, where it fails.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { readConfigFile, startEmulator } from '@agentplane/emulator';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleDir, GUIDE, readmeBlocks } from './support/readme-examples.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  const notice = `Chromium not found at ${CHROMIUM}: the guide's @langchain/react example is SKIPPED (apt-get install chromium, or set CHROMIUM_PATH).`;
  if (process.env.CI) throw new Error(`${notice} CI never skips it.`);
  console.warn(`\n⚠️  ${notice}\n`);
}

const DIR = exampleDir('react-example');
const WAIT = { timeout: 30_000 };
afterAll(() => fs.rmSync(DIR, { recursive: true, force: true }));

describe.skipIf(!hasChromium)("the guide's @langchain/react page", () => {
  it('asks, shows the tool call’s reply, then shows the interrupt and answers it', async () => {
    const component = readmeBlocks(GUIDE, 'tsx').find((block) => block.includes("from '@langchain/react'"));
    if (!component) throw new Error('the guide has no @langchain/react example');
    fs.writeFileSync(path.join(DIR, 'graphs.yaml'), readmeBlocks('Scripted graphs', 'yaml')[0] ?? '');
    const errors: string[] = [];
    const emulator = await startEmulator({
      config: readConfigFile(path.join(DIR, 'graphs.yaml')),
      db: ':memory:',
      agentServerPort: 0,
      controlPlanePort: 0,
      onError: (message) => errors.push(message),
    });
    let browser: Browser | undefined;
    let site: http.Server | undefined;
    try {
      // The example talks to `npm start`'s agent server; this one listens on a free port.
      const parts = component.split("'http://127.0.0.1:8123'");
      expect(parts).toHaveLength(2);
      fs.writeFileSync(path.join(DIR, 'chat.tsx'), parts.join(`'${emulator.agentServerUrl}'`));
      fs.writeFileSync(
        path.join(DIR, 'main.tsx'),
        "import { createRoot } from 'react-dom/client';\nimport { Chat } from './chat.js';\ncreateRoot(document.getElementById('root')!).render(<Chat threadId={null} />);\n",
      );
      await build({
        entryPoints: [path.join(DIR, 'main.tsx')],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        jsx: 'automatic',
        outfile: path.join(DIR, 'app.js'),
        define: { 'process.env.NODE_ENV': '"development"' },
        logLevel: 'silent',
      });
      site = http.createServer((req, res) => {
        if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(path.join(DIR, 'app.js')));
        else
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<!doctype html><div id="root"></div><script type="module" src="/app.js"></script>');
      });
      await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      });
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(String(error)));
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
      const ask = async (text: string) => {
        await page.getByLabel('message').fill(text);
        await page.getByRole('button', { name: 'Send' }).click();
      };
      const shown = () => page.$$eval('main p', (items) => items.map((item) => `${item.className}: ${item.textContent}`));
      await ask('Where is my order?');
      await expect
        .poll(shown, WAIT)
        .toEqual([
          'human: Where is my order?',
          'ai: Let me look up order 4512.',
          'tool: {"status": "shipped"}',
          'ai: It shipped yesterday.',
        ]);
      await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled(), WAIT).toBe(true);
      await ask('Can I have my money back?');
      const approve = page.getByRole('button', { name: /^Approve/ });
      await approve.waitFor(WAIT);
      expect(await approve.textContent()).toBe('Approve: {"question":"Refund $20?"}');
      await approve.click();
      await expect
        .poll(async () => (await shown()).slice(-2), WAIT)
        .toEqual(['human: Can I have my money back?', 'ai: Refund sent (approved).']);
      expect(pageErrors).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser?.close();
      await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
      await emulator.close();
    }
  }, 120_000);
});
