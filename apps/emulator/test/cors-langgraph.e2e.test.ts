// CORS of the emulator next to the real LangGraph JS dev server (reference-servers/langgraph-js,
// in its default config), and in a real browser: what a page on another origin meets must be what
// it meets on the LangGraph server, where decision E20 does not say otherwise, and a page must be
// able to call the emulator and read the headers the spec declares.
//
// The browser part needs Chromium; without it that part is skipped with a notice, except in CI.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@agentplane/openapi-toolkit';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import type { TestEmulator } from './support/harness.js';
import { jsonRequest, rawRequest, startTestEmulator } from './support/harness.js';

const PAGE = 'http://localhost:3000';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  const notice = `Chromium not found at ${CHROMIUM}: the CORS browser check is SKIPPED (apt-get install chromium, or set CHROMIUM_PATH).`;
  if (process.env.CI) throw new Error(`${notice} CI never skips it.`);
  console.warn(`\n⚠️  ${notice}\n`);
}

const list = (value: string | string[] | undefined) =>
  String(value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean)
    .sort();

describe('the same CORS answers as the LangGraph JS server, by default', () => {
  let langgraph: LangGraphServer;
  let emulator: TestEmulator;
  beforeAll(async () => {
    [langgraph, emulator] = await Promise.all([startLangGraphServer({ port: await freePort() }), startTestEmulator()]);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([langgraph?.stop(), emulator?.close()]);
  });

  it('a preflight: 204, any origin, the headers asked for, no credentials', async () => {
    const request = {
      method: 'OPTIONS',
      path: '/threads/search',
      headers: { origin: PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
    };
    const [theirs, ours] = await Promise.all([rawRequest(langgraph.url, request), rawRequest(emulator.agentServerUrl, request)]);
    for (const answer of [theirs, ours]) {
      expect(answer.status).toBe(204);
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(list(answer.headers['access-control-allow-headers'])).toEqual(['content-type', 'x-api-key']);
      expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
      expect(answer.headers['access-control-max-age']).toBeUndefined();
      expect(list(answer.headers.vary)).toEqual(['access-control-request-headers']);
    }
    // Theirs lists every method Hono knows; ours those the API has (decision E20).
    expect(list(theirs.headers['access-control-allow-methods'])).toEqual(
      expect.arrayContaining(list(ours.headers['access-control-allow-methods'])),
    );
  });

  it('an answer: any origin, and at least the headers they expose', async () => {
    const request = jsonRequest('POST', '/threads/search', {}, { origin: PAGE });
    const [theirs, ours] = await Promise.all([rawRequest(langgraph.url, request), rawRequest(emulator.agentServerUrl, request)]);
    for (const answer of [theirs, ours]) {
      expect(answer.status).toBe(200);
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.headers.vary).toBeUndefined();
    }
    expect(list(theirs.headers['access-control-expose-headers'])).toEqual(['content-location', 'x-pagination-total']);
    expect(list(ours.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining(list(theirs.headers['access-control-expose-headers'])),
    );
  });
});

describe.skipIf(!hasChromium)('a page on another origin, in Chromium', () => {
  let browser: Browser;
  let page: http.Server;
  let pageUrl: string;
  let open: TestEmulator;
  let closed: TestEmulator;
  beforeAll(async () => {
    page = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    [browser, open, closed] = await Promise.all([
      chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] }),
      startTestEmulator({ config: { agent_server: { api_keys: ['agent-key'] } } }),
      startTestEmulator({ config: { cors: { origins: [PAGE] } } }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), open?.close(), closed?.close(), new Promise((resolve) => page?.close(resolve))]);
  });

  /** Runs a fetch from the page: its status and X-Pagination-Total as the page reads them, or the error. */
  async function fromPage(url: string, headers: Record<string, string>) {
    const tab = await browser.newPage();
    try {
      await tab.goto(pageUrl);
      return await tab.evaluate(
        async ([target, sent]) => {
          try {
            const answer = await fetch(target, { method: 'POST', headers: sent, body: '{}' });
            return { status: answer.status, total: answer.headers.get('x-pagination-total') };
          } catch (error) {
            return { error: String(error) };
          }
        },
        [url, headers] as const,
      );
    } finally {
      await tab.close();
    }
  }

  it('calls the emulator with its API key and reads X-Pagination-Total', async () => {
    const answer = await fromPage(`${open.agentServerUrl}/threads/search`, {
      'content-type': 'application/json',
      'x-api-key': 'agent-key',
    });
    expect(answer).toEqual({ status: 200, total: '0' });
  });

  it('is blocked by an emulator that does not list its origin', async () => {
    const answer = await fromPage(`${closed.agentServerUrl}/threads/search`, { 'content-type': 'application/json' });
    expect(answer).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
  });
});
