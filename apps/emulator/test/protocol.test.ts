// The thread-centric protocol against the emulator, through the typed client of
// @agentplane/agent-server (sendCommand, streamThreadEvents, connectThread over the `ws` package):
// runs started, their events in order and in the protocol's shapes, interrupts answered,
// cancelled runs, subgraph namespaces, tools, replay with `since` across runs, reconnects and a
// restart, several followers, the error answers, keys, deletion. Every event and answer is also
// checked against the spec by the emulator itself (test mode): `errors` must stay empty.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProtocolCommandError, ProtocolEvent, ProtocolEventFilter } from '@agentplane/agent-server';
import { ApiError, connectThread, createAgentServerClient, sendCommand, streamThreadEvents } from '@agentplane/agent-server';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import { KEPT_EVENTS, ProtocolEventStore } from '../src/agent-server/protocol/protocol-event-store.js';
import { ThreadStore } from '../src/agent-server/threads/thread-store.js';
import { CommitGroup } from '../src/store/commit-group.js';
import { openDatabase } from '../src/store/database.js';
import type { TestEmulator } from './support/harness.js';
import { rawRequest, socketHandshake, startTestEmulator } from './support/harness.js';
import { SDK_PROTOCOL_SCENARIOS } from './support/langgraph-protocol-scenarios.js';
import { RUN_GRAPHS } from './support/langgraph-run-scenarios.js';

const GRAPHS: Record<string, GraphDefinition> = {
  echo: { replies: [{ text: 'Echo: {{input}}' }] },
  ask: { replies: [{ interrupt: { question: 'Refund $20?' }, text: 'Refund sent ({{resume}}).' }] },
  tools: {
    replies: [
      { text: 'Let me look.', tool_calls: [{ name: 'lookup_order', args: { order_id: '4512' }, id: 'call_1' }] },
      { text: 'It shipped.' },
    ],
    tools: { lookup_order: '{"status": "shipped"}' },
  },
  fail: { replies: [{ error: 'Model provider rate limit' }] },
  slow: { replies: [{ text: 'one two three four five six seven eight nine ten' }], stream: { chunk: 'word', delay_ms: 100 } },
  review: {
    channels: { messages: { reducer: 'messages', default: [] }, approved: {} },
    runs: [
      {
        steps: [
          { node: 'plan', custom: [{ stage: 'planning' }], message: { text: 'Plan.' } },
          { node: 'review', subgraph: [{ node: 'check', interrupt: { question: 'Publish?' }, update: { approved: '{{resume}}' } }] },
          { node: 'publish', message: { text: 'Published.' } },
        ],
      },
    ],
  },
};

const ALL: ProtocolEventFilter['channels'] = [
  'lifecycle',
  'values',
  'updates',
  'messages',
  'tools',
  'input',
  'checkpoints',
  'tasks',
  'custom',
];
const ask = (content: string) => ({ messages: [{ type: 'human', content }] });

let emulator: TestEmulator;
let client: ReturnType<typeof createAgentServerClient>;
let sdk: Client;

beforeAll(async () => {
  emulator = await startTestEmulator({ graphs: GRAPHS, streams: { heartbeatMs: 200, protocolRunDelayMs: 0 } });
  client = createAgentServerClient({ baseUrl: emulator.agentServerUrl, retry: false });
  sdk = new Client({ apiUrl: emulator.agentServerUrl, apiKey: null, callerOptions: { maxRetries: 0 } });
});
afterAll(() => emulator?.close());
afterEach(() => expect(emulator.errors).toEqual([]));

/** Reads events until `until` holds for those read (then the stream is closed). */
async function read(events: AsyncIterable<ProtocolEvent>, until: (read: ProtocolEvent[]) => boolean): Promise<ProtocolEvent[]> {
  const seen: ProtocolEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (until(seen)) break;
  }
  return seen;
}

/** Whether the last event read is the end of a run at the root (any of its endings). */
const rootEnded =
  (count = 1) =>
  (events: ProtocolEvent[]) =>
    events.filter((e) => e.method === 'lifecycle' && e.params.namespace.length === 0 && eventOf(e) !== 'running').length >= count;

const thread = () => crypto.randomUUID();
/** What a lifecycle or messages event says happened (`event` of its data). */
const eventOf = (event: ProtocolEvent | undefined) => (event?.params.data as { event?: string } | undefined)?.event;
const start = (threadId: string, graph: string, input: unknown) =>
  sendCommand(client, threadId, 'run.start', { assistant_id: graph, input });
const events = (threadId: string, filter: Partial<ProtocolEventFilter> = {}, since?: number) =>
  streamThreadEvents(client, threadId, { channels: ALL, ...filter }, since === undefined ? {} : { since });
const lifecycles = (read: ProtocolEvent[]) =>
  read
    .filter((e) => e.method === 'lifecycle')
    .map((e) => `${e.params.namespace.map((s) => s.split(':')[0]).join('/') || 'root'} ${eventOf(e)}`);

describe('runs told as events', () => {
  it('run.start makes the thread and runs it; a stream opened after replays its events from the first, in seq order', async () => {
    const threadId = thread();
    const { run_id } = await start(threadId, 'echo', ask('hello world'));
    const told = await read(events(threadId), rootEnded());
    expect(told.map((e) => e.seq)).toEqual(told.map((_, i) => i + 1));
    expect(told[0]).toMatchObject({
      event_id: `synth:${run_id}:1`,
      method: 'lifecycle',
      params: { namespace: [], data: { event: 'running', graph_name: 'echo' } },
    });
    expect(told.at(-1)).toMatchObject({ event_id: `synth:${run_id}:${told.length}`, params: { data: { event: 'completed' } } });
    expect(lifecycles(told)).toEqual(['root running', 'agent started', 'agent completed', 'root completed']);
    // The reply as content blocks, in the node's task namespace.
    const messages = told.filter((e) => e.method === 'messages');
    expect(messages.map(eventOf)).toEqual([
      'message-start',
      'content-block-start',
      'content-block-delta',
      'content-block-delta',
      'content-block-delta',
      'content-block-finish',
      'message-finish',
    ]);
    expect(messages[0]!.params).toMatchObject({ node: 'agent', data: { role: 'ai' } });
    expect(messages[0]!.params.namespace[0]).toMatch(/^agent:[0-9a-f-]{36}$/);
    expect(messages.at(-2)!.params.data).toEqual({
      event: 'content-block-finish',
      index: 0,
      content: { type: 'text', text: 'Echo: hello world' },
    });
    // Values after each step, their checkpoint before them; the last is the thread's state, compacted.
    const values = told.filter((e) => e.method === 'values');
    const state = await sdk.threads.getState(threadId);
    expect(values.at(-1)!.params.data).toEqual({
      messages: (state.values as { messages: { type: string; content: string; id: string }[] }).messages.map(({ type, content, id }) => ({
        type,
        content,
        id,
      })),
    });
    const checkpoints = told.filter((e) => e.method === 'checkpoints').map((e) => e.params.data);
    expect(checkpoints.at(-1)).toMatchObject({ id: state.checkpoint.checkpoint_id, step: 1, source: 'loop' });
    expect(told.find((e) => e.method === 'updates')!.params.data).toMatchObject({
      node: 'agent',
      values: { messages: [{ type: 'ai', content: 'Echo: hello world' }] },
    });
    // The run is a run like any other.
    expect((await sdk.runs.list(threadId)).map((run) => [run.run_id, run.status])).toEqual([[run_id, 'success']]);
    expect((await sdk.threads.get(threadId)).metadata).toMatchObject({ graph_id: 'echo' });
  });

  it('tells a tool call as its own content block and the tool node as tools events', async () => {
    const threadId = thread();
    await start(threadId, 'tools', ask('Where is my order?'));
    const told = await read(events(threadId, { channels: ['messages', 'tools', 'lifecycle'] }), rootEnded());
    const blocks = told.filter((e) => e.method === 'messages' && eventOf(e) === 'content-block-finish').map((e) => e.params.data);
    expect(blocks).toEqual([
      { event: 'content-block-finish', index: 0, content: { type: 'text', text: 'Let me look.' } },
      {
        event: 'content-block-finish',
        index: 1,
        content: { type: 'tool_call', id: 'call_1', name: 'lookup_order', args: { order_id: '4512' } },
      },
      { event: 'content-block-finish', index: 0, content: { type: 'text', text: 'It shipped.' } },
    ]);
    expect(told.filter((e) => e.method === 'messages' && eventOf(e) === 'message-finish').map((e) => e.params.data)).toEqual([
      { event: 'message-finish', reason: 'tool_use' },
      { event: 'message-finish', reason: 'stop' },
    ]);
    const tools = told.filter((e) => e.method === 'tools');
    expect(tools.map((e) => e.params.data)).toEqual([
      { event: 'tool-started', tool_call_id: 'call_1', tool_name: 'lookup_order', input: { order_id: '4512' } },
      {
        event: 'tool-finished',
        tool_call_id: 'call_1',
        // With the ID the thread keeps the message under, as the tool's end event carries it (decision T11).
        output: {
          type: 'tool',
          content: '{"status": "shipped"}',
          tool_call_id: 'call_1',
          name: 'lookup_order',
          status: 'success',
          id: expect.stringMatching(/^run-[0-9a-f-]{36}-tool-call_1$/),
        },
      },
    ]);
    expect(tools[0]!.params.namespace[0]).toMatch(/^tools:/);
    expect(lifecycles(told)).toEqual([
      'root running',
      'agent started',
      'agent completed',
      'tools started',
      'tools completed',
      'agent started',
      'agent completed',
      'root completed',
    ]);
  });

  it('tells a failed run with its error, and a cancelled one as interrupted', async () => {
    const failing = thread();
    await start(failing, 'fail', ask('hi'));
    const failed = await read(events(failing, { channels: ['lifecycle'] }), rootEnded());
    expect(failed.at(-1)!.params.data).toEqual({ event: 'failed', graph_name: 'fail', error: 'Model provider rate limit' });

    const slow = thread();
    const { run_id } = await start(slow, 'slow', ask('go'));
    const stream = events(slow, { channels: ['lifecycle', 'messages'] });
    const told = await read(stream, (seen) => seen.some((e) => e.method === 'messages' && eventOf(e) === 'content-block-delta'));
    await sdk.runs.cancel(slow, run_id);
    const rest = await read(events(slow, { channels: ['lifecycle'] }, told.at(-1)!.seq), rootEnded());
    expect(lifecycles(rest)).toEqual(['agent interrupted', 'root interrupted']);
  });

  it('honours multitask_strategy: interrupt cancels the run in flight, reject refuses, enqueue runs after it', async () => {
    const threadId = thread();
    await start(threadId, 'slow', ask('first'));
    await expect(
      sendCommand(client, threadId, 'run.start', { assistant_id: 'slow', input: ask('refused'), multitask_strategy: 'reject' }),
    ).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/already running/) });
    await sendCommand(client, threadId, 'run.start', { assistant_id: 'echo', input: ask('second'), multitaskStrategy: 'interrupt' });
    const told = await read(events(threadId, { channels: ['lifecycle'], namespaces: [[]], depth: 0 }), rootEnded(2));
    expect(lifecycles(told)).toEqual(['root running', 'root interrupted', 'root running', 'root completed']);
    expect((await sdk.runs.list(threadId)).map((run) => run.status)).toEqual(['success', 'interrupted']);
  });
});

describe('interrupts', () => {
  it('requests input, refuses an unknown interrupt, and answers the one the thread waits at, by ID', async () => {
    const threadId = thread();
    await start(threadId, 'ask', ask('Can I have my money back?'));
    const first = await read(events(threadId, { channels: ['lifecycle', 'input'] }), rootEnded());
    const requested = first.find((e) => e.method === 'input.requested')!;
    expect(requested.params).toMatchObject({ namespace: [], data: { payload: { question: 'Refund $20?' } } });
    const interruptId = (requested.params.data as { interrupt_id: string }).interrupt_id;
    expect(eventOf(first.at(-1))).toBe('interrupted');

    await expect(
      sendCommand(client, threadId, 'input.respond', { interrupt_id: 'deadbeef', response: 'no', namespace: [] }),
    ).rejects.toMatchObject({
      code: 'no_such_interrupt',
    });
    const { run_id } = await sendCommand(client, threadId, 'input.respond', {
      interrupt_id: interruptId,
      response: 'approved',
      namespace: [],
    });
    const second = await read(events(threadId, { channels: ['lifecycle', 'input', 'values'] }, first.at(-1)!.seq), rootEnded());
    expect(second[0]).toMatchObject({ event_id: `synth:${run_id}:${first.at(-1)!.seq + 1}`, params: { data: { event: 'running' } } });
    expect(second[1]).toMatchObject({ method: 'input.answered', params: { namespace: [], data: { interrupt_ids: [interruptId] } } });
    expect(
      (second.filter((e) => e.method === 'values').at(-1)!.params.data as { messages: { content: string }[] }).messages.at(-1)!.content,
    ).toBe('Refund sent (approved).');
    // Nothing waits any more.
    await expect(
      sendCommand(client, threadId, 'input.respond', { interrupt_id: interruptId, response: 'again', namespace: [] }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('takes run.start input on an interrupted thread as the answer, as the protocol says', async () => {
    const threadId = thread();
    await start(threadId, 'ask', ask('money back?'));
    await read(events(threadId, { channels: ['lifecycle'] }), rootEnded());
    await start(threadId, 'ask', 'yes please');
    const told = await read(events(threadId, { channels: ['lifecycle', 'values'] }), rootEnded(2));
    expect(
      (told.filter((e) => e.method === 'values').at(-1)!.params.data as { messages: { content: string }[] }).messages.at(-1)!.content,
    ).toBe('Refund sent (yes please).');
  });

  it('tells a subgraph: its namespace, the interrupt inside it, and the tree of the run', async () => {
    const threadId = thread();
    const { run_id } = await start(threadId, 'review', ask('the draft'));
    const told = await read(events(threadId), rootEnded());
    const requested = told.find((e) => e.method === 'input.requested')!;
    expect(requested.params.namespace).toHaveLength(1);
    expect(requested.params.namespace[0]).toMatch(/^review:/);
    expect(told.filter((e) => e.method === 'input.requested')).toHaveLength(1);
    expect(told.find((e) => e.method === 'custom')!.params).toMatchObject({ namespace: [], data: { payload: { stage: 'planning' } } });
    expect(lifecycles(told)).toEqual([
      'root running',
      'plan started',
      'plan completed',
      'review started',
      'review interrupted',
      'root interrupted',
    ]);
    // Values and checkpoints of the subgraph carry its namespace.
    expect(told.some((e) => e.method === 'checkpoints' && e.params.namespace[0]?.startsWith('review:'))).toBe(true);
    // Filters by namespace and depth.
    const rootOnly = await read(events(threadId, { channels: ['lifecycle', 'input'], namespaces: [[]], depth: 0 }), rootEnded());
    expect(lifecycles(rootOnly)).toEqual(['root running', 'root interrupted']);
    const inReview = await read(
      events(threadId, { channels: ['lifecycle', 'input'], namespaces: [['review']] }),
      (seen) => seen.length === 3,
    );
    expect(inReview.map((e) => e.method)).toEqual(['lifecycle', 'input.requested', 'lifecycle']);

    const { tree } = await sendCommand(client, threadId, 'agent.getTree', { run_id });
    expect(tree).toMatchObject({
      namespace: [],
      status: 'interrupted',
      graph_name: 'review',
      children: [
        { status: 'completed', graph_name: 'plan' },
        { status: 'interrupted', graph_name: 'review' },
      ],
    });
    const interruptId = (requested.params.data as { interrupt_id: string }).interrupt_id;
    const inside = await sendCommand(client, threadId, 'state.get', { namespace: requested.params.namespace });
    expect(inside.checkpoint?.ns).toBe(requested.params.namespace[0]);
    await sendCommand(client, threadId, 'input.respond', {
      interrupt_id: interruptId,
      response: true,
      namespace: requested.params.namespace,
    });
    const after = await read(events(threadId, { channels: ['lifecycle'] }, told.at(-1)!.seq), rootEnded());
    expect(lifecycles(after)).toEqual([
      'root running',
      'review started',
      'review completed',
      'publish started',
      'publish completed',
      'root completed',
    ]);
    expect((await sendCommand(client, threadId, 'state.get', { namespace: [], keys: ['approved'] })).values).toEqual({ approved: true });
  });
});

describe('replay and followers', () => {
  it('resumes by since with no gap and no repeat, across runs and a broken connection', async () => {
    const threadId = thread();
    await start(threadId, 'echo', ask('one'));
    const all = await read(events(threadId), rootEnded());
    // A client that read part of the first run, then reconnects after its last seq.
    const cut = Math.floor(all.length / 2);
    const head = await read(events(threadId), (seen) => seen.length === cut);
    await start(threadId, 'echo', ask('two'));
    const tail = await read(events(threadId, {}, head.at(-1)!.seq), rootEnded(2 - 0));
    const seqs = [...head, ...tail].map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // Last-Event-ID works as since does.
    const answer = await fetch(`${emulator.agentServerUrl}/threads/${threadId}/stream/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'last-event-id': tail.at(-1)!.event_id! },
      body: JSON.stringify({ channels: ['lifecycle'] }),
    });
    const reader = answer.body!.getReader();
    const nothing = await Promise.race([
      reader.read().then(({ value }) => new TextDecoder().decode(value)),
      new Promise((r) => setTimeout(() => r('silent'), 300)),
    ]);
    // Nothing after the last event: the heartbeat is all that comes.
    expect(nothing === 'silent' || nothing === ': heartbeat\n').toBe(true);
    await reader.cancel();
  });

  it('sends every follower every event it selects, and tells runs the runs API starts once a stream follows the thread', async () => {
    const threadId = (await sdk.threads.create({ metadata: { graph_id: 'echo' } })).thread_id;
    const messages = read(events(threadId, { channels: ['messages'] }), (seen) => seen.some((e) => eventOf(e) === 'message-finish'));
    const ends = read(events(threadId, { channels: ['lifecycle'] }), rootEnded());
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sdk.runs.wait(threadId, 'echo', { input: ask('through the runs API') });
    const [m, l] = await Promise.all([messages, ends]);
    expect(m.every((e) => e.method === 'messages')).toBe(true);
    expect(m.at(-2)!.params.data).toMatchObject({ content: { text: 'Echo: through the runs API' } });
    expect(lifecycles(l)).toEqual(['root running', 'agent started', 'agent completed', 'root completed']);
  });

  it('keeps the events in the database: seq goes on and since works after a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'protocol-'));
    const db = path.join(dir, 'emulator.db');
    const threadId = thread();
    let restarted = await startTestEmulator({ graphs: GRAPHS, db });
    let restartedClient = createAgentServerClient({ baseUrl: restarted.agentServerUrl, retry: false });
    await sendCommand(restartedClient, threadId, 'run.start', { assistant_id: 'echo', input: ask('before') });
    const before = await read(streamThreadEvents(restartedClient, threadId, { channels: ALL }), rootEnded());
    await restarted.close();
    restarted = await startTestEmulator({ graphs: GRAPHS, db });
    restartedClient = createAgentServerClient({ baseUrl: restarted.agentServerUrl, retry: false });
    await sendCommand(restartedClient, threadId, 'run.start', { assistant_id: 'echo', input: ask('after') });
    const after = await read(streamThreadEvents(restartedClient, threadId, { channels: ALL }, { since: before.at(-1)!.seq }), rootEnded());
    expect(after[0]!.seq).toBe(before.at(-1)!.seq + 1);
    expect((await read(streamThreadEvents(restartedClient, threadId, { channels: ALL }), rootEnded(2))).length).toBe(
      before.length + after.length,
    );
    await restarted.close();
    expect(restarted.errors).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a thread’s last events only, and its seq never goes back', () => {
    const db = openDatabase(':memory:');
    const commits = new CommitGroup(db, (message) => expect.fail(message));
    const store = new ProtocolEventStore(db, commits);
    new ThreadStore(db, commits).insert(
      { thread_id: 't', created_at: '', updated_at: '', state_updated_at: '', status: 'idle', metadata: {}, config: {}, values: {} },
      [],
    );
    store.join('t');
    const total = KEPT_EVENTS + 1_500;
    for (let seq = 1; seq <= total; seq++)
      store.append('t', { seq, runId: 'r', method: 'values', eventId: String(seq), channel: 'values', namespace: [], json: '{}' });
    store.commits.commit();
    const kept = store.after('t', 0);
    expect(kept.length).toBeGreaterThanOrEqual(KEPT_EVENTS);
    expect(kept.length).toBeLessThan(KEPT_EVENTS + 500);
    expect(kept.at(-1)!.seq).toBe(total);
    expect(store.lastSeq('t')).toBe(total);
    commits.commit();
    db.close();
  });
});

describe('state and checkpoints', () => {
  it('lists the thread’s checkpoints, reads its state, and forks a run from an earlier checkpoint', async () => {
    const threadId = thread();
    await start(threadId, 'echo', ask('first'));
    await read(events(threadId, { channels: ['lifecycle'] }), rootEnded());
    const { checkpoints } = await sendCommand(client, threadId, 'state.listCheckpoints', { limit: 10 });
    expect(checkpoints.map((checkpoint) => checkpoint.step)).toEqual([1, 0, -1]);
    const { values } = await sendCommand(client, threadId, 'state.get', { namespace: [] });
    expect((values as { messages: unknown[] }).messages).toHaveLength(2);
    const beforeReply = checkpoints.find((checkpoint) => checkpoint.step === -1)!;
    const forked = await sendCommand(client, threadId, 'state.fork', { checkpoint_id: beforeReply.id, input: ask('edited') });
    expect(forked.thread_id).toBe(threadId);
    await read(events(threadId, { channels: ['lifecycle'] }), rootEnded(2));
    const state = (await sendCommand(client, threadId, 'state.get', { namespace: [] })).values as { messages: { content: string }[] };
    expect(state.messages.map((message) => message.content)).toEqual(['edited', 'Echo: edited']);
    await expect(sendCommand(client, threadId, 'state.fork', { checkpoint_id: crypto.randomUUID() })).rejects.toMatchObject({
      code: 'no_such_checkpoint',
    });
    await expect(sendCommand(client, threadId, 'state.get', { namespace: ['nowhere:1'] })).rejects.toMatchObject({
      code: 'no_such_namespace',
    });
  });
});

describe('errors', () => {
  it('answers what it refuses with the protocol’s codes, and what breaks the envelope with the API’s 422', async () => {
    const threadId = thread();
    const refused = (method: string, params: unknown) =>
      sendCommand(client, threadId, method as 'agent.getTree', params as never).then(
        () => expect.fail(`${method} was accepted`),
        (error: ProtocolCommandError) => error.code,
      );
    expect(await refused('agent.getTree', {})).toBe('no_such_run');
    expect(await refused('state.get', {})).toBe('no_such_run');
    expect(await refused('input.respond', { interrupt_id: 'x', response: 1, namespace: [] })).toBe('no_such_run');
    expect(await refused('run.cancel', {})).toBe('unknown_command');
    expect(await refused('input.inject', { namespace: [], message: { role: 'user', content: 'hi' } })).toBe('not_supported');
    expect(await refused('subscription.subscribe', { channels: ['values'] })).toBe('not_supported');
    expect(await refused('run.start', { assistant_id: 'nope', input: null })).toBe('invalid_argument');
    expect(await refused('run.start', { input: null })).toBe('invalid_argument');
    expect(await refused('run.start', { assistant_id: 'echo', input: { messages: [{ type: 'robot', content: 1 }] } })).toBe(
      'invalid_argument',
    );
    // Nothing was made by the refused commands.
    await expect(sdk.threads.get(threadId)).rejects.toThrow();

    const raw = (target: string, body: unknown) =>
      rawRequest(emulator.agentServerUrl, {
        method: 'POST',
        path: target,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await raw(`/threads/${threadId}/commands`, { method: 'run.start' })).status).toBe(422);
    expect((await raw('/threads/my-thread/commands', { id: 1, method: 'agent.getTree' })).status).toBe(422);
    expect((await raw(`/threads/${threadId}/stream/events`, { channels: ['everything'] })).status).toBe(422);
    expect((await raw(`/threads/${threadId}/stream/events`, { channels: [] })).status).toBe(422);
    const malformed = await rawRequest(emulator.agentServerUrl, {
      method: 'POST',
      path: `/threads/${threadId}/commands`,
      headers: { 'content-type': 'application/json' },
      body: '{"id": 1,',
    });
    expect(malformed.status).toBe(422);
  });

  it('requires the API key where the deployment does, on commands, streams and the socket', async () => {
    const keyed = await startTestEmulator({ graphs: GRAPHS, config: { agent_server: { api_keys: ['agent-key'] } } });
    const threadId = thread();
    const anonymous = createAgentServerClient({ baseUrl: keyed.agentServerUrl, retry: false });
    await expect(sendCommand(anonymous, threadId, 'agent.getTree', {})).rejects.toBeInstanceOf(ApiError);
    await expect(read(streamThreadEvents(anonymous, threadId, { channels: ['values'] }), () => true)).rejects.toMatchObject({
      status: 401,
    });
    expect((await socketHandshake(`${keyed.agentServerUrl}/threads/${threadId}/stream/events`)).status).toBe(401);
    const withKey = createAgentServerClient({ baseUrl: keyed.agentServerUrl, apiKey: 'agent-key', retry: false });
    await sendCommand(withKey, threadId, 'run.start', { assistant_id: 'echo', input: ask('hi') });
    const socket = await connectThread({ baseUrl: keyed.agentServerUrl, threadId, apiKey: 'agent-key', WebSocket: WebSocket as never });
    const subscription = await socket.subscribe({ channels: ['lifecycle'], namespaces: [[]], depth: 0 });
    expect(lifecycles(await read(subscription, rootEnded()))).toEqual(['root running', 'root completed']);
    socket.close();
    await keyed.close();
    expect(keyed.errors).toEqual([]);
  });
});

describe('over a WebSocket', () => {
  it('answers commands and subscriptions on one connection, each event once, with since after a reconnect', async () => {
    const threadId = thread();
    const socket = await connectThread({ baseUrl: emulator.agentServerUrl, threadId, WebSocket: WebSocket as never });
    const lifecycle = await socket.subscribe({ channels: ['lifecycle'] });
    const messages = await socket.subscribe({ channels: ['messages', 'lifecycle'], namespaces: [[]], depth: 1 });
    const { run_id } = await socket.send('run.start', { assistant_id: 'echo', input: ask('over a socket') });
    const [l, m] = await Promise.all([read(lifecycle, rootEnded()), read(messages, rootEnded())]);
    expect(l[0]!.event_id).toBe(`synth:${run_id}:1`);
    expect(lifecycles(l)).toEqual(['root running', 'agent started', 'agent completed', 'root completed']);
    // Start, the text block's start, a delta per word (Echo: over a socket), its finish, the end.
    expect(m.filter((e) => e.method === 'messages')).toHaveLength(8);
    expect((await socket.send('agent.getTree', {})).tree.status).toBe('completed');
    await expect(socket.send('state.get', { namespace: ['none:1'] })).rejects.toMatchObject({ code: 'no_such_namespace' });
    socket.close();

    // A later connection subscribes after the last seq it saw: only what came after.
    await start(threadId, 'echo', ask('again'));
    const later = await connectThread({ baseUrl: emulator.agentServerUrl, threadId, WebSocket: WebSocket as never });
    const rest = await later.subscribe({ channels: ['lifecycle'] }, { since: l.at(-1)!.seq });
    const second = await read(rest, rootEnded());
    expect(eventOf(second[0])).toBe('running');
    expect(second[0]!.seq).toBeGreaterThan(l.at(-1)!.seq);
    later.close();
  });

  it('answers what is not a command with an error, refuses an unknown subscription, and closes 4404 when the thread is deleted', async () => {
    const threadId = thread();
    await start(threadId, 'echo', ask('hi'));
    const { socket } = await socketHandshake(`${emulator.agentServerUrl}/threads/${threadId}/stream/events`);
    const received: unknown[] = [];
    socket!.on('message', (data) => received.push(JSON.parse(String(data))));
    const closed = new Promise<number>((resolve) => socket!.on('close', (code) => resolve(code)));
    socket!.send('not json');
    socket!.send(JSON.stringify({ id: 'x', method: 'run.start' }));
    socket!.send(JSON.stringify({ id: 7, method: 'subscription.unsubscribe', params: { subscription_id: 'sub-9' } }));
    socket!.send(JSON.stringify({ id: 8, method: 'subscription.subscribe', params: { channels: ['lifecycle'] } }));
    await expect.poll(() => received.length).toBeGreaterThanOrEqual(4);
    expect(received.slice(0, 4)).toMatchObject([
      { type: 'error', id: null, error: 'invalid_argument', message: 'Protocol commands must be valid JSON.' },
      { type: 'error', id: null, error: 'invalid_argument' },
      { type: 'error', id: 7, error: 'no_such_subscription' },
      { type: 'success', id: 8, result: { subscription_id: 'sub-1' } },
    ]);
    await sdk.threads.delete(threadId);
    expect(await closed).toBe(4404);
  });

  it('is refused over HTTP, where there is no socket: 426', async () => {
    const answer = await fetch(`${emulator.agentServerUrl}/threads/${thread()}/stream/events`);
    expect(answer.status).toBe(426);
    expect(answer.headers.get('upgrade')).toBe('websocket');
  });
});

describe('the end of a thread', () => {
  it('ends its event streams when it is deleted, and forgets its events', async () => {
    const threadId = thread();
    await start(threadId, 'echo', ask('hi'));
    const stream = read(events(threadId, { channels: ['lifecycle'] }), () => false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sdk.threads.delete(threadId);
    expect(lifecycles(await stream)).toEqual(['root running', 'agent started', 'agent completed', 'root completed']);
    // A new thread of the same ID starts at seq 1.
    await start(threadId, 'echo', ask('again'));
    expect((await read(events(threadId), () => true))[0]!.seq).toBe(1);
  });
});

describe("the LangGraph SDK's client.threads.stream() (SDK 1.15)", () => {
  // The same scenarios the differential test runs against the LangGraph JS server, which answers the same.
  let sdkEmulator: TestEmulator;
  beforeAll(async () => {
    sdkEmulator = await startTestEmulator({ graphs: RUN_GRAPHS });
  });
  afterAll(() => sdkEmulator?.close());
  afterEach(() => expect(sdkEmulator.errors).toEqual([]));
  const run = (name: string) =>
    SDK_PROTOCOL_SCENARIOS[name]!(new Client({ apiUrl: sdkEmulator.agentServerUrl, apiKey: null }), 'sdk', sdkEmulator.agentServerUrl);
  const reply = {
    texts: ['You said: hello there'],
    output: [
      { type: 'human', text: 'hello there' },
      { type: 'ai', text: 'You said: hello there' },
    ],
    state: [
      { type: 'human', text: 'hello there' },
      { type: 'ai', text: 'You said: hello there' },
    ],
  };
  const answered = {
    shown: [{ payload: { question: 'Refund $20?' }, namespace: [] }],
    state: [
      { type: 'human', text: 'I want a refund' },
      { type: 'ai', text: 'Refund sent (yes).' },
    ],
    runs: ['success', 'success'],
  };
  it('tells a run begun as soon as run.start is answered, and ended if it is cancelled before it executes', async () => {
    const sdkClient = createAgentServerClient({ baseUrl: sdkEmulator.agentServerUrl, retry: false });
    const threadId = thread();
    const answer = await sdkClient.POST('/threads/{thread_id}/commands', {
      params: { path: { thread_id: threadId } },
      body: { id: 1, method: 'run.start', params: { assistant_id: 'echo', input: ask('never run') } },
    });
    const started = answer.data as unknown as { type: 'success'; result: { run_id: string }; meta: { applied_through_seq: number } };
    // The run waits its 250 ms; its `running` is already told (the answer's applied_through_seq covers it).
    expect(started.meta.applied_through_seq).toBe(1);
    await new Client({ apiUrl: sdkEmulator.agentServerUrl, apiKey: null }).runs.cancel(threadId, started.result.run_id);
    const told = await read(streamThreadEvents(sdkClient, threadId, { channels: ['lifecycle'] }), rootEnded());
    expect(lifecycles(told)).toEqual(['root running', 'root interrupted']);
    expect(told.map((event) => event.event_id)).toEqual([`synth:${started.result.run_id}:1`, `synth:${started.result.run_id}:2`]);
  });

  for (const transport of ['SSE', 'a WebSocket'])
    it(`streams a reply and answers an interrupt over ${transport}`, async () => {
      expect(await run(`threads.stream over ${transport}: a reply streamed`)).toEqual(reply);
      expect(await run(`threads.stream over ${transport}: an interrupt answered`)).toEqual(answered);
    });
});
