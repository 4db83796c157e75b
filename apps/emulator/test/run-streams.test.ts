// Streamed runs through the real LangGraph SDK (`runs.stream`, `runs.joinStream`) and over raw
// HTTP where the wire matters: the metadata event first, each stream mode's events as LangGraph's
// JS server sends them for the same graph (the recorded shapes are the expectations here; the
// differential test compares with the live server), interrupts, errors inside a 200 stream, the
// stateless stream, joining and resuming with Last-Event-ID, heartbeats, and a client going away.
import { createAgentServerClient, joinStream, streamRun } from '@agentplane/agent-server';
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';
import { ask, SUPPORT_GRAPH } from './support/run-graphs.js';
import { sdkClient } from './support/sdk-client.js';

const GRAPHS: Record<string, GraphDefinition> = {
  support: SUPPORT_GRAPH,
  // Four words, 150 ms before each: long enough to join, drop or cancel mid-run.
  slow: { replies: [{ text: 'one two three four' }], stream: { chunk: 'word', delay_ms: 150 } },
};

let emulator: TestEmulator;
let client: Client;

beforeAll(async () => {
  emulator = await startTestEmulator({ graphs: GRAPHS, streams: { heartbeatMs: 100 } });
  client = sdkClient(emulator.agentServerUrl);
});
afterEach(() => {
  expect(emulator.errors, 'the emulator reported contract violations or internal errors').toEqual([]);
});
afterAll(() => emulator.close());

type Values = Record<string, unknown>;
interface StreamEvent {
  event: string;
  data: any;
  id?: string;
}
const newThread = async (graphId = 'support') => (await client.threads.create({ graphId })).thread_id;

async function collect(stream: AsyncIterable<{ event: string; data: unknown; id?: string }>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event as StreamEvent);
  return events;
}

/** A stream read off the wire: headers, and each frame's fields as sent (comment lines kept apart). */
async function rawStream(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
) {
  const response = await fetch(`${emulator.agentServerUrl}${path}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
  });
  const text = await response.text();
  const lines = text.split('\n');
  const comments = lines.filter((line) => line.startsWith(':'));
  const frames = lines
    .filter((line) => !line.startsWith(':'))
    .join('\n')
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) =>
      Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)])),
    );
  return { response, text, frames, comments };
}

const names = (events: StreamEvent[]) => events.map((event) => event.event);

async function runStatus(threadId: string, runId: string): Promise<string> {
  return (await client.runs.get(threadId, runId)).status;
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a streamed run', () => {
  it('sends metadata first, then values and message chunks as useStream asks for them, and ends with the final state', async () => {
    const threadId = await newThread();
    const events = await collect(
      client.runs.stream(threadId, 'support', { input: ask('Where is my order?'), streamMode: ['values', 'messages-tuple'] }),
    );
    expect(events[0]).toMatchObject({ event: 'metadata', data: { run_id: expect.any(String), attempt: 1 } });
    expect(new Set(names(events))).toEqual(new Set(['metadata', 'values', 'messages']));
    // The chunks of each AI reply add up to the reply; the tool's answer comes whole.
    const tuples = events.filter((event) => event.event === 'messages').map((event) => event.data as [Values, Values]);
    const byId = new Map<string, string>();
    for (const [chunk] of tuples)
      if (chunk.type === 'ai') byId.set(chunk.id as string, (byId.get(chunk.id as string) ?? '') + chunk.content);
    expect([...byId.values()]).toEqual(['Let me look up order 4512.', 'It shipped yesterday.']);
    expect(tuples.map(([chunk]) => chunk.content).slice(0, 6)).toEqual(['Let', ' me', ' look', ' up', ' order', ' 4512.']);
    expect(tuples[5]![0].tool_calls).toMatchObject([{ name: 'lookup_order', args: { order_id: '4512' }, type: 'tool_call' }]);
    const tool = tuples.find(([message]) => message.type === 'tool')!;
    expect(tool[0]).toMatchObject({ content: '{"status": "shipped"}', name: 'lookup_order' });
    expect(tool[0].id).toMatch(/^run-.+-tool-/);
    expect(tool[1]).toMatchObject({ langgraph_node: 'tools', langgraph_step: 2, tags: ['graph:step:2'] });
    expect(tuples[0]![1]).toMatchObject({
      langgraph_node: 'agent',
      langgraph_step: 1,
      langgraph_triggers: ['branch:to:agent'],
      thread_id: threadId,
      ls_provider: 'ScriptedChatModel',
      graph_id: 'support',
    });
    // The last values event is the thread's state, which keeps the tool message's streamed ID.
    const state = await client.threads.getState(threadId);
    expect(events.at(-1)).toEqual({ event: 'values', data: state.values, id: expect.any(String) });
    expect(events.filter((event) => event.event === 'values')).toHaveLength(4);
  });

  it('sends each stream mode as LangGraph does, and no mode that was not asked for', async () => {
    const expectations: Record<string, (events: StreamEvent[]) => void> = {
      updates: (events) => expect(events.slice(1).map((event) => Object.keys(event.data))).toEqual([['agent'], ['tools'], ['agent']]),
      checkpoints: (events) =>
        expect(events.slice(1).map((event) => [event.data.metadata, event.data.next])).toEqual([
          [{ source: 'input', step: -1, parents: {} }, ['__start__']],
          [{ source: 'loop', step: 0, parents: {} }, ['agent']],
          [{ source: 'loop', step: 1, parents: {} }, ['tools']],
          [{ source: 'loop', step: 2, parents: {} }, ['agent']],
          [{ source: 'loop', step: 3, parents: {} }, []],
        ]),
      tasks: (events) =>
        expect(events.slice(1).map((event) => [event.data.name, 'input' in event.data ? 'start' : 'result'])).toEqual([
          ['agent', 'start'],
          ['agent', 'result'],
          ['tools', 'start'],
          ['tools', 'result'],
          ['agent', 'start'],
          ['agent', 'result'],
        ]),
      debug: (events) =>
        expect(events.slice(1).map((event) => `${event.data.type}@${event.data.step}`)).toEqual([
          'checkpoint@-1',
          'checkpoint@0',
          'task@1',
          'task_result@1',
          'checkpoint@1',
          'task@2',
          'task_result@2',
          'checkpoint@2',
          'task@3',
          'task_result@3',
          'checkpoint@3',
        ]),
      tools: (events) =>
        expect(events.slice(1).map((event) => [event.data.event, event.data.name])).toEqual([
          ['on_tool_start', 'lookup_order'],
          ['on_tool_end', 'lookup_order'],
        ]),
      custom: (events) => expect(events.slice(1)).toEqual([]),
      messages: (events) => {
        expect(names(events).slice(1, 4)).toEqual(['messages/complete', 'messages/metadata', 'messages/partial']);
        const partials = events.filter((event) => event.event === 'messages/partial').map((event) => event.data[0].content);
        expect(partials.slice(0, 3)).toEqual(['Let', 'Let me', 'Let me look']);
        const completed = events.filter((event) => event.event === 'messages/complete').flatMap((event) => event.data);
        expect(completed.map((message: Values) => message.type)).toEqual(['human', 'ai', 'tool', 'ai']);
      },
    };
    for (const [mode, expectation] of Object.entries(expectations)) {
      const events = await collect(
        client.runs.stream(await newThread(), 'support', { input: ask('Where is my order?'), streamMode: mode as never }),
      );
      expect(events[0]!.event, mode).toBe('metadata');
      const wanted = mode === 'messages' ? ['messages/complete', 'messages/metadata', 'messages/partial'] : [mode];
      expect(
        names(events)
          .slice(1)
          .every((name) => wanted.includes(name)),
        `${mode}: ${names(events)}`,
      ).toBe(true);
      expectation(events);
    }
  });

  it("shows a tool's answer in on_tool_end with the ID the thread keeps when a messages mode names it, as the AG-UI adapter reads it", async () => {
    const toolEnd = async (streamMode: string[]) => {
      const threadId = await newThread();
      const events = await collect(
        client.runs.stream(threadId, 'support', { input: ask('Where is my order?'), streamMode: streamMode as never }),
      );
      const output = events.find((event) => event.event === 'events' && event.data.event === 'on_tool_end')?.data.data.output;
      const stored = ((await client.threads.getState(threadId)).values as { messages: Values[] }).messages.find((m) => m.type === 'tool');
      return { output, stored };
    };
    // The adapter's modes: the messages mode names it `run-<node run id>-tool-<call id>`, and so does on_tool_end.
    const named = await toolEnd(['events', 'values', 'updates', 'messages-tuple']);
    expect(named.stored!.id).toMatch(/^run-[0-9a-f-]{36}-tool-[0-9a-f-]{36}$/);
    expect(named.output).toEqual({ ...named.stored, id: named.stored!.id });
    // Without a messages mode the reducer names it afterwards: the event shows it without an ID.
    const unnamed = await toolEnd(['events']);
    expect(unnamed.output).not.toHaveProperty('id');
    expect(unnamed.output).toEqual(Object.fromEntries(Object.entries(unnamed.stored!).filter(([key]) => key !== 'id')));
  });

  it("names the model chunks with the agent node's namespace with stream_subgraphs, and announces each state's checkpoint", async () => {
    const threadId = await newThread();
    const events = await collect(
      client.runs.stream(threadId, 'support', {
        input: ask('hello'),
        streamMode: ['values', 'messages-tuple'],
        streamSubgraphs: true,
      }) as AsyncIterable<StreamEvent>,
    );
    const state = await client.threads.getState(threadId);
    const taskNamespace = /^messages\|agent:[0-9a-f-]{36}$/;
    expect(names(events).map((name) => (taskNamespace.test(name) ? 'messages|agent:<task>' : name))).toEqual([
      'metadata',
      'checkpoints',
      'values',
      'messages|agent:<task>',
      'messages|agent:<task>',
      'messages|agent:<task>',
      'checkpoints',
      'values',
    ]);
    expect(events.at(-2)!.data).toEqual({
      id: state.checkpoint.checkpoint_id,
      parent_id: state.parent_checkpoint?.checkpoint_id,
      step: 1,
      source: 'loop',
    });
  });

  it('ends at an interrupt with __interrupt__ in values and updates, and a resumed stream starts from the state it goes on from', async () => {
    const threadId = await newThread();
    const interrupted = await collect(
      client.runs.stream(threadId, 'support', { input: ask('refund please'), streamMode: ['values', 'updates'] }),
    );
    const interrupt = { id: expect.stringMatching(/^[0-9a-f]{32}$/), value: { question: 'Refund $20?' } };
    expect(interrupted.slice(-2).map((event) => [event.event, event.data])).toEqual([
      ['updates', { __interrupt__: [interrupt] }],
      ['values', { __interrupt__: [interrupt] }],
    ]);
    const resumed = await collect(client.runs.stream(threadId, 'support', { command: { resume: 'yes' }, streamMode: 'values' }));
    const values = resumed.filter((event) => event.event === 'values').map((event) => event.data.messages.map((m: Values) => m.content));
    expect(values).toEqual([['refund please'], ['refund please', 'Refund sent (yes).']]);
  });

  it('sends a scripted error as an error event inside a 200 stream, and the thread ends in error', async () => {
    const threadId = await newThread();
    const { response, frames } = await rawStream(`/threads/${threadId}/runs/stream`, {
      body: { assistant_id: 'support', input: ask('please fail'), stream_mode: ['values', 'tasks'] },
    });
    expect(response.status).toBe(200);
    expect(frames.map((frame) => frame.event)).toEqual(['metadata', 'values', 'tasks', 'tasks', 'error']);
    expect(JSON.parse(frames.at(-1)!.data!)).toEqual({ error: 'Error', message: 'Model provider rate limit' });
    expect(JSON.parse(frames[3]!.data!)).toMatchObject({ name: 'agent', result: {}, interrupts: [] });
    expect((await client.threads.get(threadId)).status).toBe('error');
  });

  it('answers with the stream headers, event IDs from 0, and the URLs of the run and of its stream', async () => {
    const threadId = await newThread();
    const { response, frames } = await rawStream(`/threads/${threadId}/runs/stream`, {
      body: { assistant_id: 'support', input: ask('hi') },
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const runId = JSON.parse(frames[0]!.data!).run_id;
    expect(response.headers.get('content-location')).toBe(`/threads/${threadId}/runs/${runId}`);
    expect(response.headers.get('location')).toBe(`/threads/${threadId}/runs/${runId}/stream`);
    expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, i) => String(i)));
  });

  it('streams a stateless run, its events numbered too, and leaves no thread behind', async () => {
    const before = (await client.threads.search({ limit: 100 })).length;
    const { response, frames } = await rawStream('/runs/stream', {
      body: { assistant_id: 'support', input: ask('hi'), stream_mode: 'values' },
    });
    expect(response.status).toBe(200);
    expect(frames.map((frame) => frame.event)).toEqual(['metadata', 'values', 'values']);
    expect(frames.map((frame) => frame.id)).toEqual(['0', '1', '2']);
    const runId = JSON.parse(frames[0]!.data!).run_id;
    expect(response.headers.get('content-location')).toBe(`/runs/${runId}`);
    expect(response.headers.get('location')).toBeNull();
    expect((await client.threads.search({ limit: 100 })).length).toBe(before);
  });

  it('refuses a stream mode LangGraph does not have, before any stream, with the 422 shape', async () => {
    const threadId = await newThread();
    const response = await fetch(`${emulator.agentServerUrl}/threads/${threadId}/runs/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'support', stream_mode: 'bogus' }),
    });
    expect(response.status).toBe(422);
    expect((await response.json()).detail[0].loc).toEqual(['body', 'stream_mode']);
  });
});

describe("agentplane's typed client", () => {
  it('streams a run as typed events, and joins it from Last-Event-ID', async () => {
    const api = createAgentServerClient({ baseUrl: emulator.agentServerUrl });
    const threadId = await newThread();
    const events = [];
    for await (const event of streamRun(api, threadId, {
      assistant_id: 'support',
      input: ask('hello'),
      stream_mode: ['values', 'updates'],
    }))
      events.push(event);
    expect(events.map((event) => event.event)).toEqual(['metadata', 'values', 'updates', 'values']);
    const last = events.at(-1)!;
    expect(last.event).toBe('values');
    expect((last.data as { messages: Values[] }).messages.map((message) => message.content)).toEqual(['hello', 'You said: hello']);
    // The run has ended and was not resumable: a join after it has nothing to send.
    const runId = (events[0]!.data as { run_id: string }).run_id;
    const joined = [];
    for await (const event of joinStream(api, threadId, runId, { lastEventId: '-1' })) joined.push(event);
    expect(joined).toEqual([]);
  });
});

describe('joining a run', () => {
  it('reads a background run from its first event, and after Last-Event-ID', async () => {
    const threadId = await newThread('slow');
    const run = await client.runs.create(threadId, 'slow', { input: ask('go'), streamMode: ['values', 'messages-tuple'] });
    const joined = await collect(client.runs.joinStream(threadId, run.run_id));
    expect(names(joined)).toEqual(['metadata', 'values', 'messages', 'messages', 'messages', 'messages', 'values']);
    expect(joined.map((event) => event.id)).toEqual(joined.map((_, i) => String(i)));
    // Ended and not resumable: its events are gone, the stream ends at once.
    expect(await collect(client.runs.joinStream(threadId, run.run_id, { lastEventId: '-1' }))).toEqual([]);
  });

  it('replays a resumable run after it ended, from Last-Event-ID (-1: everything)', async () => {
    const threadId = await newThread();
    const streamed = await collect(
      client.runs.stream(threadId, 'support', { input: ask('hi'), streamMode: 'values', streamResumable: true }),
    );
    const runId = streamed[0]!.data.run_id;
    expect(await collect(client.runs.joinStream(threadId, runId, { lastEventId: '-1' }))).toEqual(streamed);
    expect(await collect(client.runs.joinStream(threadId, runId, { lastEventId: '1' }))).toEqual(streamed.slice(2));
    // Without Last-Event-ID a join waits for new events: an ended run has none.
    expect(await collect(client.runs.joinStream(threadId, runId))).toEqual([]);
  });

  it('sends only events after a Last-Event-ID the run has not reached yet, as they come', async () => {
    const threadId = await newThread('slow');
    const run = await client.runs.create(threadId, 'slow', { input: ask('go'), streamMode: ['values', 'messages-tuple'] });
    // Joined at once: the run has sent at most its metadata and first values; id 4 is two chunks away.
    const joined = await collect(client.runs.joinStream(threadId, run.run_id, { lastEventId: '4' }));
    expect(joined.map((event) => event.id)).toEqual(['5', '6']);
    expect(names(joined)).toEqual(['messages', 'values']);
    expect(joined[0]!.data[0].content).toBe(' four');
  });

  it('rejoins a thread stream after a Last-Event-ID its run has not reached yet, with only the later events', async () => {
    const threadId = await newThread('slow');
    const run = await client.runs.create(threadId, 'slow', { input: ask('go'), streamMode: ['values', 'messages-tuple'] });
    // A thread stream lasts as long as the thread: read the run's last two events, then leave.
    const abort = new AbortController();
    const seen: StreamEvent[] = [];
    for await (const event of client.threads.joinStream(threadId, { lastEventId: `${run.run_id}:4`, signal: abort.signal })) {
      seen.push(event as StreamEvent);
      if (seen.length === 2) abort.abort();
    }
    expect(seen.map((event) => event.id)).toEqual([`${run.run_id}:5`, `${run.run_id}:6`]);
    expect(names(seen)).toEqual(['messages', 'values']);
  });

  it('keeps only the stream modes the join asks for (metadata and error always come)', async () => {
    const threadId = await newThread('slow');
    const run = await client.runs.create(threadId, 'slow', { input: ask('go'), streamMode: ['values', 'messages-tuple'] });
    const joined = await collect(client.runs.joinStream(threadId, run.run_id, { streamMode: ['values'] }));
    expect(names(joined)).toEqual(['metadata', 'values', 'values']);
    // The ids stay the run's own: the messages between the values were skipped, not renumbered.
    expect(joined.map((event) => event.id)).toEqual(['0', '1', '6']);
  });

  it("streams a thread's runs one after the other, until the thread is deleted", async () => {
    const threadId = await newThread('slow');
    const first = await client.runs.create(threadId, 'slow', { input: ask('one'), streamMode: 'values' });
    const abort = new AbortController();
    const seen: StreamEvent[] = [];
    const reading = (async () => {
      for await (const event of client.threads.joinStream(threadId, { signal: abort.signal })) seen.push(event as StreamEvent);
    })();
    const second = await client.runs.create(threadId, 'slow', { input: ask('two'), streamMode: 'values', multitaskStrategy: 'enqueue' });
    await until(async () => (await runStatus(threadId, second.run_id)) === 'success', 'the second run to end');
    await until(async () => seen.filter((event) => event.event === 'values').length === 4, 'both runs streamed');
    await client.threads.delete(threadId);
    await reading;
    const runIds = seen.filter((event) => event.event === 'metadata').map((event) => event.data.run_id);
    expect(runIds).toEqual([first.run_id, second.run_id]);
    expect(names(seen)).toEqual(['metadata', 'values', 'values', 'metadata', 'values', 'values']);
    expect(seen[3]!.id).toBe(`${second.run_id}:0`);
  });

  it('answers 404 for a run that is not there, before any stream', async () => {
    const threadId = await newThread();
    const response = await fetch(`${emulator.agentServerUrl}/threads/${threadId}/runs/${crypto.randomUUID()}/stream`);
    expect(response.status).toBe(404);
    expect((await response.json()).detail).toMatch(/^Run with ID .* not found for thread/);
  });
});

describe('a client that goes away', () => {
  it('cancels the run with on_disconnect: cancel, and leaves the thread usable', async () => {
    const threadId = await newThread('slow');
    const abort = new AbortController();
    const response = await fetch(`${emulator.agentServerUrl}/threads/${threadId}/runs/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'slow', input: ask('go'), stream_mode: 'messages-tuple', on_disconnect: 'cancel' }),
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const runId = /"run_id":"([^"]+)"/.exec(first)![1]!;
    abort.abort();
    await until(async () => (await runStatus(threadId, runId)) === 'interrupted', 'the run to be cancelled');
    await until(async () => (await client.threads.get(threadId)).status !== 'busy', 'the thread to be free');
    // The cancelled run kept its input and wrote no reply; the next run answers.
    const next = (await client.runs.wait(threadId, 'slow', { input: ask('again') })) as { messages: Values[] };
    expect(next.messages.map((message) => message.content)).toEqual(['go', 'again', 'one two three four']);
  });

  it('lets the run finish with on_disconnect: continue (the default)', async () => {
    const threadId = await newThread('slow');
    const abort = new AbortController();
    const response = await fetch(`${emulator.agentServerUrl}/threads/${threadId}/runs/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'slow', input: ask('go') }),
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const runId = /"run_id":"([^"]+)"/.exec(first)![1]!;
    abort.abort();
    await until(async () => (await runStatus(threadId, runId)) === 'success', 'the run to finish');
  });

  it('keeps a silent stream alive with comment lines', async () => {
    const threadId = await newThread('slow');
    const { frames, comments } = await rawStream(`/threads/${threadId}/runs/stream`, {
      body: { assistant_id: 'slow', input: ask('go'), stream_mode: 'values' },
    });
    expect(frames.map((frame) => frame.event)).toEqual(['metadata', 'values', 'values']);
    // Four pauses of 150 ms with a heartbeat after 100 ms of silence.
    expect(comments.length).toBeGreaterThanOrEqual(2);
    expect(comments.every((comment) => comment === ': heartbeat')).toBe(true);
  });
});
