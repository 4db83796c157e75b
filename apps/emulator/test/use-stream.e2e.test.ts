// The LangGraph SDK's React hook `useStream`, in Chromium, against the emulator: a chat
// page (test/browser/use-stream/app.tsx), bundled here with esbuild and served from an origin of
// its own, calls the emulator's agent server across origins as a UI developer's page would, and
// everything is checked through what it renders: a reply streaming in word by word, a tool call
// and its result, an interrupt and its resume, stop() cancelling a run, an edit branching the
// thread, and a reload rejoining a run in flight. The emulator's side (run status, history) is
// read with the SDK's Client from node. A screenshot of each scenario is kept under
// apps/emulator/test-results/use-stream/.
//
// Needs Chromium; without it the suite is skipped with a notice, except in CI.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import type { ServedPage } from './support/chat-page.js';
import {
  chromiumAvailable,
  launchChromium,
  openChatPage,
  screenshot as screenshotTo,
  seenTexts,
  send,
  servePage,
  threadOf,
  transcript,
  untilIdle,
  untilPartOfReply,
  untilReplied,
  untilReplyStarts,
  WAIT,
  watchReply,
} from './support/chat-page.js';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';

const hasChromium = chromiumAvailable('useStream');
const HERE = path.dirname(fileURLToPath(import.meta.url));
const APP = path.join(HERE, 'browser/use-stream/app.tsx');
const SCREENSHOTS = path.join(HERE, '../test-results/use-stream');
const screenshot = (page: Page, name: string) => screenshotTo(page, SCREENSHOTS, name);
const REPLY = 'The quick brown fox jumps over the lazy dog';
const STORY = Array.from({ length: 30 }, (_, index) => `word${index + 1}`).join(' ');
const GRAPHS: Record<string, GraphDefinition> = {
  // Nine words, 150 ms before each: the page has over a second to show the reply growing.
  words: { replies: [{ text: REPLY }], stream: { chunk: 'word', delay_ms: 150 } },
  tools: {
    replies: [
      { text: 'Let me look up order 4512.', tool_calls: [{ name: 'lookup_order', args: { order_id: '4512' } }] },
      { text: 'It shipped yesterday.' },
    ],
    tools: { lookup_order: '{"status": "shipped"}' },
  },
  approval: { replies: [{ interrupt: { question: 'Refund $20?' }, text: 'Refund sent ({{resume}}).' }] },
  // A story of 30 words, 200 ms before each (6 s): still running when the page stops it or
  // reloads; anything else is answered in a few words.
  slow: {
    replies: [{ match: '*story*', text: STORY }, { text: 'Quick answer to {{input}}' }],
    stream: { chunk: 'word', delay_ms: 200 },
  },
  echo: { replies: [{ text: 'You said: {{input}}' }] },
};

describe.skipIf(!hasChromium)('useStream in Chromium, against the emulator', () => {
  let emulator: TestEmulator;
  let client: Client;
  let browser: Browser;
  let site: ServedPage;
  const pages: Page[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // The page's origin is its own port, the emulator's agent server another: every call is cross-origin.
    [emulator, browser, site] = await Promise.all([
      startTestEmulator({ graphs: GRAPHS, streams: { heartbeatMs: 1000 } }),
      launchChromium(),
      servePage(APP, 'useStream'),
    ]);
    client = new Client({ apiUrl: emulator.agentServerUrl, apiKey: null, callerOptions: { maxRetries: 0 } });
  }, 60_000);

  afterEach(async () => {
    await Promise.all(pages.splice(0).map((page) => page.close()));
    expect(pageErrors.splice(0), 'errors thrown in the page').toEqual([]);
    expect(emulator.errors, 'the emulator reported contract violations or internal errors').toEqual([]);
  });

  afterAll(async () => {
    await Promise.all([browser?.close(), emulator?.close(), site?.close()]);
  });

  /** The chat page on `graph`, its API the emulator's agent server. */
  async function openChat(graph: string, query: Record<string, string> = {}): Promise<Page> {
    return openChatPage(browser, { pages, errors: pageErrors }, site.url, { api: emulator.agentServerUrl, graph, ...query });
  }

  it('streams a reply in word by word', async () => {
    const page = await openChat('words');
    await watchReply(page);
    await send(page, 'Hello');
    // Part of the reply is on screen while the run goes on.
    await untilPartOfReply(page, REPLY);
    await screenshot(page, '1-streaming-partial');
    await untilReplied(page, REPLY);
    await screenshot(page, '1-streaming-done');
    const seen = await seenTexts(page);
    const partial = seen.filter((sample) => sample.streaming && sample.text !== REPLY);
    // Growing prefixes of the reply, a word at a time (a busy browser may render two words at once).
    expect(partial.length).toBeGreaterThanOrEqual(3);
    for (const [index, sample] of partial.entries()) {
      expect(REPLY.startsWith(sample.text)).toBe(true);
      if (index > 0) expect(sample.text.length).toBeGreaterThan(partial[index - 1]?.text.length ?? 0);
    }
    expect(await transcript(page)).toEqual(['human: Hello', `ai: ${REPLY}`]);
  });

  it('shows a tool call and its result', async () => {
    const page = await openChat('tools');
    await send(page, 'Where is my order?');
    await untilReplied(page, 'It shipped yesterday.');
    await screenshot(page, '2-tool-call');
    expect(await transcript(page)).toEqual([
      'human: Where is my order?',
      'ai: Let me look up order 4512.',
      'tool: {"status": "shipped"}',
      'ai: It shipped yesterday.',
    ]);
    expect(await page.getByTestId('tool-call').allTextContents()).toEqual(['lookup_order({"order_id":"4512"})']);
    expect(await page.getByTestId('tool-result').allTextContents()).toEqual(['lookup_order → {"status": "shipped"}']);
  });

  it('shows an interrupt, and resuming it finishes the run', async () => {
    const page = await openChat('approval');
    await send(page, 'Can I have my money back?');
    await page.getByTestId('interrupt-value').waitFor(WAIT);
    await untilIdle(page);
    expect(JSON.parse((await page.getByTestId('interrupt-value').textContent()) ?? '')).toEqual({ question: 'Refund $20?' });
    await screenshot(page, '3-interrupt');
    const threadId = await threadOf(page);
    expect((await client.threads.get(threadId)).status).toBe('interrupted');

    await page.getByTestId('resume').click();
    await untilReplied(page, 'Refund sent (yes).');
    await page.getByTestId('interrupt').waitFor({ state: 'detached', ...WAIT });
    await screenshot(page, '3-resumed');
    expect(await transcript(page)).toEqual(['human: Can I have my money back?', 'ai: Refund sent (yes).']);
    expect((await client.threads.get(threadId)).status).toBe('idle');
    expect((await client.runs.list(threadId)).map((run) => run.status)).toEqual(['success', 'success']);
  });

  // With reconnectOnMount, the run is created with on_disconnect "continue" and stop() cancels it
  // through POST .../cancel; without it, the run has on_disconnect "cancel" and stop() only
  // aborts the stream, so the emulator cancels it when the connection goes.
  it.each<[string, Record<string, string>]>([
    ['reconnectOnMount: stop() cancels the run', {}],
    ['no reconnectOnMount: the dropped stream cancels the run', { reconnect: '0' }],
  ])('stop() cancels a slow reply (%s) and the thread answers afterwards', async (_name, query) => {
    const page = await openChat('slow', query);
    await send(page, 'Tell me a story');
    await untilReplyStarts(page);
    const threadId = await threadOf(page);
    await page.getByTestId('stop').click();
    await untilIdle(page);
    await expect.poll(async () => (await client.runs.list(threadId)).map((run) => run.status), WAIT).toEqual(['interrupted']);
    await expect.poll(async () => (await client.threads.get(threadId)).status, WAIT).toBe('idle');
    await screenshot(page, `4-stopped${query.reconnect === '0' ? '-no-reconnect' : ''}`);

    await send(page, 'Hello again');
    await untilReplied(page, 'Quick answer to Hello again');
    expect((await client.runs.list(threadId)).map((run) => run.status)).toEqual(['success', 'interrupted']);
    const shown = await transcript(page);
    expect(shown.slice(-2)).toEqual(['human: Hello again', 'ai: Quick answer to Hello again']);
    expect(shown.join('\n')).not.toContain(STORY);
  });

  it('regenerates from an earlier checkpoint when a message is edited: a branch', async () => {
    const page = await openChat('echo');
    await send(page, 'first');
    await untilReplied(page, 'You said: first');
    await send(page, 'second');
    await untilReplied(page, 'You said: second');
    const threadId = await threadOf(page);

    // Edit the second message: useStream submits from the checkpoint before it.
    await page.getByTestId('edit').nth(1).click();
    await page.getByTestId('edit-input').fill('second, edited');
    await page.getByTestId('edit-save').click();
    await untilReplied(page, 'You said: second, edited');
    expect(await transcript(page)).toEqual([
      'human: first',
      'ai: You said: first',
      'human: second, edited',
      'ai: You said: second, edited',
    ]);
    // The hook sees both branches in the thread's history, and the page offers them.
    await page.getByTestId('branches').waitFor(WAIT);
    expect(await page.getByTestId('branches').allTextContents()).toEqual(['branch 2 of 2']);
    await screenshot(page, '5-branch');

    // The thread's history: one checkpoint with two children, the original branch kept.
    const history = await client.threads.getHistory(threadId, { limit: 100 });
    const children = new Map<string, number>();
    for (const state of history) {
      const parent = state.parent_checkpoint?.checkpoint_id;
      if (parent) children.set(parent, (children.get(parent) ?? 0) + 1);
    }
    expect([...children.values()].filter((count) => count > 1)).toEqual([2]);
    const lastTexts = history.map((state) => (state.values as { messages?: { content: unknown }[] }).messages?.at(-1)?.content);
    expect(lastTexts).toContain('You said: second');
    expect(lastTexts).toContain('You said: second, edited');
  });

  it('rejoins a run in flight after a reload (reconnectOnMount)', async () => {
    const page = await openChat('slow');
    await send(page, 'Tell me a story');
    await untilReplyStarts(page);
    const threadId = await threadOf(page);
    const runId = await page.evaluate((id) => sessionStorage.getItem(`lg:stream:${id}`), threadId);
    expect(runId).toBeTruthy();
    await screenshot(page, '6-before-reload');

    await page.reload();
    expect(new URL(page.url()).searchParams.get('thread')).toBe(threadId);
    // Rejoined: the page streams the same run again, from its first event, while it still runs.
    await page.waitForFunction(
      (full) => {
        const text = document.querySelector('[data-testid=message-ai] [data-testid=text]')?.textContent ?? '';
        return document.querySelector('[data-testid=status]')?.textContent === 'streaming' && text.length > 0 && text !== full;
      },
      STORY,
      WAIT,
    );
    expect((await client.runs.get(threadId, runId ?? '')).status).toBe('running');
    await screenshot(page, '6-rejoined');
    await untilReplied(page, STORY);
    await screenshot(page, '6-done');
    expect(await transcript(page)).toEqual(['human: Tell me a story', `ai: ${STORY}`]);
    const runs = await client.runs.list(threadId);
    expect(runs.map((run) => [run.run_id, run.status])).toEqual([[runId, 'success']]);
    expect(await page.evaluate((id) => sessionStorage.getItem(`lg:stream:${id}`), threadId)).toBeNull();
  });
});
