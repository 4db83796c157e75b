// `@langchain/react`'s `useStream` (v1: the thread-centric protocol), in Chromium: a chat page
// (test/browser/react-stream/app.tsx) bundled with esbuild and served from an origin of its own
// calls an agent server across origins as a UI developer's page would, and everything is checked
// through what it renders: a reply streaming in word by word, an interrupt shown and answered,
// a reload finding the thread (done, and in the middle of a run), over SSE and over a WebSocket.
// The same cases run against the emulator and against the real LangGraph JS server
// (reference-servers/langgraph-js, the same scripted graphs), which must render the same.
// Screenshots are kept under apps/emulator/test-results/react-stream/.
//
// Needs Chromium; without it the suite is skipped with a notice, except in CI.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@agentplane/openapi-toolkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import type { ServedPage } from './support/chat-page.js';
import {
  chromiumAvailable,
  launchChromium,
  openChatPage,
  screenshot,
  seenTexts,
  send,
  servePage,
  threadOf,
  transcript,
  untilPartOfReply,
  untilReplied,
  untilReplyStarts,
  WAIT,
  watchReply,
} from './support/chat-page.js';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';

const hasChromium = chromiumAvailable('@langchain/react useStream');
const HERE = path.dirname(fileURLToPath(import.meta.url));
const APP = path.join(HERE, 'browser/react-stream/app.tsx');
const SCREENSHOTS = path.join(HERE, '../test-results/react-stream');

const REPLY = 'The quick brown fox jumps over the lazy dog';
const STORY = Array.from({ length: 20 }, (_, index) => `word${index + 1}`).join(' ');
const GRAPHS = {
  // Nine words, 150 ms before each: the page has over a second to show the reply growing.
  words: { replies: [{ text: REPLY }], stream: { chunk: 'word', delay_ms: 150 } },
  approval: { replies: [{ interrupt: { question: 'Refund $20?' }, text: 'Refund sent ({{resume}}).' }] },
  // Twenty words, 200 ms before each (4 s): still running when the page reloads.
  slow: { replies: [{ text: STORY }], stream: { chunk: 'word', delay_ms: 200 } },
} satisfies Record<string, GraphDefinition>;

/** The servers the page talks to: the emulator, and the LangGraph JS server running the same graphs. */
interface Server {
  url: string;
  /** Problems the server reported (the emulator's contract violations; none for the other). */
  errors: () => string[];
  close(): Promise<void>;
}

const SERVERS: [name: string, start: () => Promise<Server>][] = [
  [
    'the emulator',
    async () => {
      const emulator: TestEmulator = await startTestEmulator({ graphs: GRAPHS, streams: { heartbeatMs: 1000 } });
      return { url: emulator.agentServerUrl, errors: () => emulator.errors, close: () => emulator.close() };
    },
  ],
  [
    'the LangGraph JS server',
    async () => {
      const server: LangGraphServer = await startLangGraphServer({ port: await freePort(), graphs: GRAPHS });
      return { url: server.url, errors: () => [], close: () => server.stop() };
    },
  ],
];

describe.skipIf(!hasChromium).each(SERVERS)("@langchain/react's useStream in Chromium, against %s", (serverName, start) => {
  let server: Server;
  let browser: Browser;
  let site: ServedPage;
  const pages: Page[] = [];
  const pageErrors: string[] = [];
  const shot = (page: Page, name: string) =>
    screenshot(page, SCREENSHOTS, `${serverName === 'the emulator' ? 'emulator' : 'langgraph'}-${name}`);

  beforeAll(async () => {
    [server, browser, site] = await Promise.all([start(), launchChromium(), servePage(APP, 'useStream v1')]);
  }, 300_000);

  afterEach(async () => {
    await Promise.all(pages.splice(0).map((page) => page.close()));
    expect(pageErrors.splice(0), 'errors thrown in the page').toEqual([]);
    expect(server.errors(), 'the server reported contract violations or internal errors').toEqual([]);
  });

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.close(), site?.close()]);
  });

  /** The chat page on `graph`, its API the server's. */
  async function openChat(graph: string, query: Record<string, string> = {}): Promise<Page> {
    return openChatPage(browser, { pages, errors: pageErrors }, site.url, { api: server.url, graph, ...query });
  }

  for (const transport of ['sse', 'websocket'])
    it(`streams a reply in word by word (${transport})`, async () => {
      const page = await openChat('words', { transport });
      await watchReply(page);
      await send(page, 'Hello');
      await untilPartOfReply(page, REPLY);
      await untilReplied(page, REPLY);
      await shot(page, `1-reply-${transport}`);
      const partial = (await seenTexts(page)).filter((sample) => sample.streaming && sample.text !== REPLY);
      // Growing prefixes of the reply (a busy browser may render two words at once).
      expect(partial.length).toBeGreaterThanOrEqual(3);
      for (const [index, sample] of partial.entries()) {
        expect(REPLY.startsWith(sample.text)).toBe(true);
        if (index > 0) expect(sample.text.length).toBeGreaterThan(partial[index - 1]?.text.length ?? 0);
      }
      expect(await transcript(page)).toEqual(['human: Hello', `ai: ${REPLY}`]);
    });

  for (const transport of ['sse', 'websocket'])
    it(`shows an interrupt, and answering it finishes the run (${transport})`, async () => {
      const page = await openChat('approval', { transport });
      await send(page, 'Can I have my money back?');
      await page.getByTestId('interrupt-value').waitFor(WAIT);
      expect(JSON.parse((await page.getByTestId('interrupt-value').textContent()) ?? '')).toEqual({ question: 'Refund $20?' });
      await shot(page, `2-interrupt-${transport}`);
      await page.getByTestId('resume').click();
      await untilReplied(page, 'Refund sent (yes).');
      await page.getByTestId('interrupt').waitFor({ state: 'detached', ...WAIT });
      expect(await transcript(page)).toEqual(['human: Can I have my money back?', 'ai: Refund sent (yes).']);
    });

  it('finds the thread again after a reload: a finished conversation, and a run in flight', async () => {
    const page = await openChat('words');
    await send(page, 'Hello');
    await untilReplied(page, REPLY);
    await page.reload();
    await untilReplied(page, REPLY);
    expect(await transcript(page)).toEqual(['human: Hello', `ai: ${REPLY}`]);

    const slow = await openChat('slow');
    await send(slow, 'Tell me a story');
    await untilReplyStarts(slow);
    const threadId = await threadOf(slow);
    await slow.reload();
    expect(new URL(slow.url()).searchParams.get('thread')).toBe(threadId);
    // The run goes on and the page, reloaded in its middle, shows it to its end.
    await untilReplied(slow, STORY);
    await shot(slow, '3-reloaded');
    expect(await transcript(slow)).toEqual(['human: Tell me a story', `ai: ${STORY}`]);
  });
});
