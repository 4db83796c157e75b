// The thread-centric protocol as clients meet it, as scenarios that run the same on any server of
// the agent-server API running RUN_GRAPHS. SDK_PROTOCOL_SCENARIOS drive the LangGraph SDK's
// `client.threads.stream()` (SDK 1.15) over SSE and over a WebSocket, as an app does: a reply
// streamed and read, an interrupt shown and answered. WIRE_PROTOCOL_SCENARIOS send what no SDK
// call sends (errors, the raw events), to show where the emulator deliberately differs. The
// differential test runs both on the emulator and on the real LangGraph JS server; the protocol
// test runs the SDK ones on the emulator.
import { Client } from '@langchain/langgraph-sdk';
import WebSocket from 'ws';
import type { Scenario } from './langgraph-scenarios.js';

type Transport = 'v2' | 'v2-websocket';

const ask = (content: string) => ({ messages: [{ type: 'human', content }] });

/** The text an app shows for a message's content: the string, or its text blocks joined (what the protocol path stores). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part && typeof part === 'object' && part.type === 'text' ? String(part.text) : '')).join('');
}

/** Polls until `ready` holds (a server may take a second to start a run), or fails after 20 s. */
async function until(ready: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A ThreadStream on a new thread of `graph`, over the transport. */
function openThread(apiUrl: string, transport: Transport, graph: string) {
  const client = new Client({ apiUrl, apiKey: null, streamProtocol: transport, callerOptions: { maxRetries: 0 } });
  const socketOptions = transport === 'v2-websocket' ? { webSocketFactory: (url: string) => new WebSocket(url) as never } : {};
  return { client, thread: client.threads.stream({ assistantId: graph, ...socketOptions }) };
}

/** The texts of the thread's messages, as its state holds them (read through the runs API's state, which both servers serve). */
async function stateTexts(client: Client, threadId: string): Promise<{ type: string; text: string }[]> {
  const state = await client.threads.getState(threadId);
  const messages = (state.values as { messages?: { type: string; content: unknown }[] }).messages ?? [];
  return messages.map((message) => ({ type: message.type, text: textOf(message.content) }));
}

/** A reply streamed: `run.start`, then `thread.messages` read as an app reads it, until the run's output. */
function streamedReply(transport: Transport): Scenario {
  return async (_client, _tag, apiUrl) => {
    const { client, thread } = openThread(apiUrl, transport, 'support');
    try {
      // Read before the run starts, as a UI subscribes before it submits: the SDK never shows a run
      // that ended before its subscription arrived, and on a loaded machine a run may end first.
      const texts: string[] = [];
      const reading = (async () => {
        for await (const message of thread.messages) texts.push(await message.text);
      })();
      await thread.run.start({ input: ask('hello there') });
      const output = (await thread.output) as { messages: { type: string; content: unknown }[] };
      await until(() => texts.length > 0, 'the streamed message');
      void reading;
      return {
        texts,
        output: output.messages.map((message) => ({ type: message.type, text: textOf(message.content) })),
        state: await stateTexts(client, thread.threadId),
      };
    } finally {
      await thread.close().catch(() => {});
    }
  };
}

/** An interrupt shown (`thread.interrupts`) and answered (`thread.input.respond`), as an approval UI does. */
function answeredInterrupt(transport: Transport): Scenario {
  return async (_client, _tag, apiUrl) => {
    const { client, thread } = openThread(apiUrl, transport, 'support');
    try {
      await thread.run.start({ input: ask('I want a refund') });
      await until(() => thread.interrupts.length > 0, 'the interrupt');
      const shown = thread.interrupts.map(({ payload, namespace }) => ({ payload, namespace }));
      const [interrupt] = thread.interrupts;
      await thread.input.respond({ namespace: interrupt!.namespace, interrupt_id: interrupt!.interruptId, response: 'yes' });
      await until(async () => (await client.threads.get(thread.threadId)).status === 'idle', 'the resumed run');
      return {
        shown,
        state: await stateTexts(client, thread.threadId),
        runs: (await client.runs.list(thread.threadId)).map((run) => run.status),
      };
    } finally {
      await thread.close().catch(() => {});
    }
  };
}

export const SDK_PROTOCOL_SCENARIOS: Record<string, Scenario> = {
  'threads.stream over SSE: a reply streamed': streamedReply('v2'),
  'threads.stream over SSE: an interrupt answered': answeredInterrupt('v2'),
  'threads.stream over a WebSocket: a reply streamed': streamedReply('v2-websocket'),
  'threads.stream over a WebSocket: an interrupt answered': answeredInterrupt('v2-websocket'),
};

/** A command sent as JSON: the answer's status and body. */
async function command(apiUrl: string, threadId: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${apiUrl}/threads/${threadId}/commands`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, body: parsed };
}

/** What a command was answered with: its error code, its success, or the HTTP status of a refusal. */
async function answerOf(apiUrl: string, threadId: string, body: unknown): Promise<string> {
  const { status, body: answer } = await command(apiUrl, threadId, body);
  if (status !== 200) return `HTTP ${status}`;
  const frame = answer as { type: string; error?: string };
  return frame.type === 'error' ? `error ${frame.error}` : 'success';
}

/** The events of a thread's stream (read for `ms`), or the HTTP status that refused it; and whether a heartbeat came. */
async function readStream(
  apiUrl: string,
  threadId: string,
  filter: unknown,
  until: (events: { method: string; params: { namespace: string[]; data: Record<string, unknown> } }[]) => boolean,
  ms: number,
): Promise<{
  status: number;
  events: { method: string; params: { namespace: string[]; data: Record<string, unknown> } }[];
  comments: boolean;
}> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  const response = await fetch(`${apiUrl}/threads/${threadId}/stream/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(filter),
    signal: controller.signal,
  });
  const events: { method: string; params: { namespace: string[]; data: Record<string, unknown> } }[] = [];
  let comments = false;
  if (response.status !== 200) {
    clearTimeout(timer);
    return { status: response.status, events, comments };
  }
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments = true;
          if (line.startsWith('data:')) events.push(JSON.parse(line.slice(5)));
        }
      }
      if (buffered.startsWith(':')) comments = true;
      if (until(events)) break;
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { status: 200, events, comments };
}

const rootEnd = (events: { method: string; params: { namespace: string[]; data: Record<string, unknown> } }[]) =>
  events.some((e) => e.method === 'lifecycle' && e.params.namespace.length === 0 && e.params.data.event !== 'running');

/** What a test reads of an event: its channel, depth and the kind and keys of its data. */
const shapeOf = (event: { method: string; params: { namespace: string[]; data: Record<string, unknown> } }) => ({
  method: event.method,
  depth: event.params.namespace.length,
  event: event.params.data.event,
  keys: Object.keys(event.params.data).sort(),
});

export const WIRE_PROTOCOL_SCENARIOS: Record<string, Scenario> = {
  'protocol: a thread ID that is not a UUID': async (_client, _tag, apiUrl) => ({
    answer: await answerOf(apiUrl, `my-thread-${crypto.randomUUID()}`, { id: 1, method: 'agent.getTree', params: {} }),
  }),

  'protocol: commands refused': async (_client, _tag, apiUrl) => {
    const fresh = crypto.randomUUID();
    const interrupted = crypto.randomUUID();
    await command(apiUrl, interrupted, { id: 1, method: 'run.start', params: { assistant_id: 'support', input: ask('refund please') } });
    await readStream(apiUrl, interrupted, { channels: ['lifecycle'], namespaces: [[]], depth: 0 }, rootEnd, 20_000);
    return {
      unknownMethodOnNewThread: await answerOf(apiUrl, fresh, { id: 1, method: 'run.cancel', params: {} }),
      unknownAssistant: await answerOf(apiUrl, crypto.randomUUID(), {
        id: 1,
        method: 'run.start',
        params: { assistant_id: 'nope', input: null },
      }),
      noId: await answerOf(apiUrl, fresh, { method: 'agent.getTree' }),
      malformed: await answerOf(apiUrl, fresh, '{"id": 1,'),
      stateOfMissingThread: await answerOf(apiUrl, fresh, { id: 1, method: 'state.get', params: { namespace: [] } }),
      unknownInterrupt: await answerOf(apiUrl, interrupted, {
        id: 2,
        method: 'input.respond',
        params: { namespace: [], interrupt_id: 'deadbeef', response: 'no' },
      }),
      subscribeOverHttp: await answerOf(apiUrl, interrupted, { id: 3, method: 'subscription.subscribe', params: { channels: ['values'] } }),
      withoutAssistant: await answerOf(apiUrl, interrupted, { id: 4, method: 'run.start', params: { input: null } }),
    };
  },

  'protocol: a run.start while a run is in flight, multitask_strategy interrupt': async (client, _tag, apiUrl) => {
    const threadId = crypto.randomUUID();
    await command(apiUrl, threadId, { id: 1, method: 'run.start', params: { assistant_id: 'slow', input: ask('first') } });
    await until(async () => (await client.runs.list(threadId).catch(() => [])).some((run) => run.status === 'running'), 'the first run');
    await command(apiUrl, threadId, {
      id: 2,
      method: 'run.start',
      params: { assistant_id: 'echo', input: ask('second'), multitaskStrategy: 'interrupt', multitask_strategy: 'interrupt' },
    });
    await until(
      async () => (await client.runs.list(threadId)).every((run) => run.status !== 'pending' && run.status !== 'running'),
      'both runs',
    );
    return { statuses: (await client.runs.list(threadId)).map((run) => run.status).sort() };
  },

  'protocol: state.listCheckpoints': async (_client, _tag, apiUrl) => {
    const threadId = crypto.randomUUID();
    await command(apiUrl, threadId, { id: 1, method: 'run.start', params: { assistant_id: 'echo', input: ask('hi') } });
    await readStream(apiUrl, threadId, { channels: ['lifecycle'] }, rootEnd, 20_000);
    return { answer: await answerOf(apiUrl, threadId, { id: 2, method: 'state.listCheckpoints', params: { limit: 5 } }) };
  },

  'protocol: a stream of a channel that does not exist': async (_client, _tag, apiUrl) => ({
    status: (await readStream(apiUrl, crypto.randomUUID(), { channels: ['everything'] }, () => true, 500)).status,
  }),

  'protocol: a silent run streamed': async (_client, _tag, apiUrl) => {
    const threadId = crypto.randomUUID();
    await command(apiUrl, threadId, { id: 1, method: 'run.start', params: { assistant_id: 'silent', input: ask('wait') } });
    const read = await readStream(apiUrl, threadId, { channels: ['lifecycle'], namespaces: [[]], depth: 0 }, rootEnd, 20_000);
    return { comments: read.comments, lifecycle: read.events.map((e) => e.params.data.event) };
  },

  'protocol: the events of a reply': async (_client, _tag, apiUrl) => {
    const threadId = crypto.randomUUID();
    await command(apiUrl, threadId, { id: 1, method: 'run.start', params: { assistant_id: 'support', input: ask('hello there') } });
    const read = await readStream(apiUrl, threadId, { channels: ['lifecycle', 'messages', 'values', 'updates', 'input'] }, rootEnd, 20_000);
    return { events: read.events.map(shapeOf) };
  },

  'protocol: a GET of the event stream without an upgrade': async (_client, _tag, apiUrl) => ({
    status: (await fetch(`${apiUrl}/threads/${crypto.randomUUID()}/stream/events`)).status,
  }),
};
