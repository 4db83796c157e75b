// Runs on scripted graphs through the real LangGraph SDK's RunsClient, every non-streaming method:
// a conversation's first reply, tool calls and their answers, the reply cursor, interrupts and
// their resumption, breakpoints, scripted errors, background runs joined, listing, cancelling
// (interrupt and rollback), each multitask strategy, regenerating from an earlier checkpoint,
// stateless runs and batches, and the thread status each step leaves. Slow replies (a long
// `delay_ms`) keep a run running for as long as a test needs, so no test depends on timing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAssistantId } from '../src/agent-server/assistants/assistant-store.js';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import type { TestEmulator } from './support/harness.js';
import { rawRequest, startTestEmulator } from './support/harness.js';
import { ask, SUPPORT_GRAPH } from './support/run-graphs.js';
import { sdkClient } from './support/sdk-client.js';

const GRAPHS: Record<string, GraphDefinition> = {
  support: SUPPORT_GRAPH,
  echo: { replies: [{ text: '{{input}}' }] },
  // A reply that takes ten minutes: a run on it is running until it is cancelled.
  slow: { replies: [{ text: 'eventually' }], stream: { chunk: 'whole', delay_ms: 600_000 } },
  loop: { replies: [{ tool_calls: [{ name: 'again' }] }], tools: { again: 'ok' } },
  functions: {
    replies: [({ input, state, resume }) => ({ text: `${input}|${(state.messages as unknown[]).length}|${String(resume)}` })],
  },
};

let emulator: TestEmulator;
let client: Client;

beforeAll(async () => {
  emulator = await startTestEmulator({ graphs: GRAPHS });
  client = sdkClient(emulator.agentServerUrl);
});
afterEach(() => {
  expect(emulator.errors, 'the emulator reported contract violations or internal errors').toEqual([]);
});
afterAll(() => emulator.close());

// The SDK types `onCompletion` as "complete" | "continue", which no server accepts: the servers'
// values are "delete" and "keep" (RunCreate), as the SDK sends whatever it is given.
const KEEP = 'keep' as never;
type Values = Record<string, unknown> & { messages?: Record<string, unknown>[] };
const texts = (values: unknown) => ((values as Values).messages ?? []).map((m) => `${m.type}: ${m.content}`);
const newThread = async (graphId = 'support') => (await client.threads.create({ graphId })).thread_id;

/** The SDK's HTTP error status of a call that must fail. */
async function failure(promise: Promise<unknown>): Promise<number> {
  const error = (await promise.then(
    () => expect.unreachable('the call should have failed'),
    (e: unknown) => e,
  )) as { status?: number };
  return error.status ?? -1;
}

describe('a conversation', () => {
  it('answers the first message and records the steps LangGraph records', async () => {
    const threadId = await newThread();
    const values = await client.runs.wait(threadId, 'support', { input: ask('hello') });
    expect(texts(values)).toEqual(['human: hello', 'ai: You said: hello']);
    expect(values).toMatchObject({ topic: null });
    const thread = await client.threads.get(threadId);
    expect(thread.status).toBe('idle');
    const history = await client.threads.getHistory(threadId, { limit: 10 });
    expect(history.map((s) => [s.metadata?.source, s.metadata?.step, s.next])).toEqual([
      ['loop', 1, []],
      ['loop', 0, ['agent']],
      ['input', -1, ['__start__']],
    ]);
    // The input checkpoint holds the state before the input: every channel's default.
    expect(history[2]!.values).toEqual({ messages: [], topic: null });
    // A task that ran records what it wrote.
    expect(history[1]!.tasks).toEqual([
      expect.objectContaining({ name: 'agent', result: { messages: [expect.objectContaining({ type: 'ai' })] } }),
    ]);
    expect(history[2]!.tasks).toEqual([expect.objectContaining({ name: '__start__', result: ask('hello') })]);
    const run = (await client.runs.list(threadId))[0]!;
    expect(history[0]!.metadata).toMatchObject({ run_id: run.run_id, thread_id: threadId, graph_id: 'support', run_attempt: 1 });
  });

  it('calls a tool, answers it, and writes the state the reply updates', async () => {
    const threadId = await newThread();
    const values = (await client.runs.wait(threadId, 'support', { input: ask('where is my order?') })) as Values;
    expect(texts(values)).toEqual([
      'human: where is my order?',
      'ai: Let me look up order 4512.',
      'tool: {"status": "shipped"}',
      'ai: It shipped yesterday.',
    ]);
    const [, call, answer] = values.messages!;
    const toolCall = (call!.tool_calls as { id: string; name: string; args: unknown }[])[0]!;
    expect(toolCall).toMatchObject({ name: 'lookup_order', args: { order_id: '4512' }, type: 'tool_call' });
    expect(answer).toMatchObject({ type: 'tool', tool_call_id: toolCall.id, name: 'lookup_order' });
    expect(values.topic).toBe('shipping');
    const history = await client.threads.getHistory(threadId, { limit: 10 });
    expect(history.map((s) => s.next)).toEqual([[], ['agent'], ['tools'], ['agent'], ['__start__']]);
  });

  it('moves the thread cursor past each reply, wrapping around', async () => {
    const threadId = await newThread('functions');
    const first = await client.runs.wait(threadId, 'functions', { input: ask('a') });
    expect(texts(first).at(-1)).toBe('ai: a|1|undefined');
    const second = await client.runs.wait(threadId, 'functions', { input: ask('b') });
    expect(texts(second).at(-1)).toBe('ai: b|3|undefined');
  });

  it('deletes an assistant with its runs: those in flight end first, and delete_threads takes the threads they ran on', async () => {
    const assistant = await client.assistants.create({ graphId: 'echo', name: 'short-lived' });
    const ended = await newThread('echo');
    await client.runs.wait(ended, assistant.assistant_id, { input: ask('one') });
    const held = await newThread('echo');
    const pending = await client.runs.create(held, assistant.assistant_id, { input: ask('later'), afterSeconds: 3600 });
    const other = await client.runs.wait(await newThread('echo'), 'echo', { input: ask('kept') });
    expect((await client.threads.get(held)).status).toBe('busy');

    await client.assistants.delete(assistant.assistant_id);
    expect(await client.runs.list(ended)).toEqual([]);
    expect(await failure(client.runs.get(held, pending.run_id))).toBe(404);
    expect((await client.threads.get(held)).status).toBe('idle');
    expect(texts(await client.threads.getState(ended).then((state) => state.values))).toEqual(['human: one', 'ai: one']);
    expect(texts(other).at(-1)).toBe('ai: kept');

    const second = await client.assistants.create({ graphId: 'echo' });
    const ranOn = await newThread('echo');
    await client.runs.wait(ranOn, second.assistant_id, { input: ask('gone') });
    await client.assistants.delete(second.assistant_id, { deleteThreads: true });
    expect(await failure(client.threads.get(ranOn))).toBe(404);
    expect((await client.threads.get(ended)).status).toBe('idle');
  });

  it('creates a thread of a configured graph with no values: nothing wrote its channels yet', async () => {
    const thread = await client.threads.create({ graphId: 'support' });
    expect([thread.metadata, thread.values]).toEqual([{ graph_id: 'support' }, {}]);
    const stepped = await client.threads.create({
      graphId: 'support',
      supersteps: [{ updates: [{ asNode: '__input__', values: { messages: [{ type: 'human', content: 'hi' }] } }] }],
    });
    // An input checkpoint holds the graph's defaults, as LangGraph's does.
    expect((await client.threads.getHistory(stepped.thread_id)).at(-1)!.values).toEqual({ messages: [], topic: null });
  });

  it('accepts a graph ID or its default assistant ID, and refuses others', async () => {
    const threadId = await newThread('echo');
    const byId = defaultAssistantId('echo');
    expect(texts(await client.runs.wait(threadId, byId, { input: ask('x') })).at(-1)).toBe('ai: x');
    expect((await client.runs.list(threadId))[0]!.assistant_id).toBe(byId);
    expect(await failure(client.runs.wait(threadId, 'billing', { input: ask('x') }))).toBe(404);
    expect(await failure(client.runs.wait(crypto.randomUUID(), 'echo', { input: ask('x') }))).toBe(404);
  });

  it('creates a missing thread with if_not_exists create, with the graph and assistant in its metadata', async () => {
    const threadId = crypto.randomUUID();
    await client.runs.wait(threadId, 'echo', { input: ask('x'), ifNotExists: 'create', metadata: { customer: 'acme' } });
    expect((await client.threads.get(threadId)).metadata).toMatchObject({ graph_id: 'echo', customer: 'acme' });
  });

  it('keeps the run’s metadata, config and context in the run and its checkpoints', async () => {
    const threadId = await newThread('echo');
    const run = await client.runs.create(threadId, 'echo', {
      input: ask('x'),
      metadata: { customer: 'acme' },
      config: { configurable: { model: 'small' }, tags: ['eval'] },
      context: { tier: 'gold' },
    });
    expect(run.status).toBe('pending');
    expect(run.metadata).toMatchObject({ customer: 'acme', graph_id: 'echo', created_by: 'system' });
    expect((run as unknown as { kwargs: Record<string, any> }).kwargs).toMatchObject({
      input: ask('x'),
      config: { tags: ['eval'], configurable: { model: 'small', run_id: run.run_id, thread_id: threadId, graph_id: 'echo' } },
      context: { tier: 'gold' },
      stream_mode: ['values'],
    });
    await client.runs.join(threadId, run.run_id);
    const state = await client.threads.getState(threadId);
    expect(state.metadata).toMatchObject({ customer: 'acme', model: 'small', run_id: run.run_id, source: 'loop' });
  });
});

describe('interrupts and breakpoints', () => {
  it('pauses at an interrupt, shows it, and replies once resumed', async () => {
    const threadId = await newThread();
    // As LangGraph's servers answer it: only what the run stopped at; the values are in the state.
    const paused = (await client.runs.wait(threadId, 'support', { input: ask('I want a refund') })) as Values;
    expect(paused).toEqual({ __interrupt__: [{ value: { question: 'Refund $20?' }, id: expect.stringMatching(/^[0-9a-f]{32}$/) }] });
    const thread = await client.threads.get(threadId);
    expect(thread.status).toBe('interrupted');
    const state = await client.threads.getState(threadId);
    expect(texts(state.values)).toEqual(['human: I want a refund']);
    expect(state.next).toEqual(['agent']);
    expect(state.tasks[0]!.interrupts).toEqual(paused.__interrupt__);
    expect(thread.interrupts).toEqual({ [state.tasks[0]!.id]: paused.__interrupt__ });
    expect((await client.runs.list(threadId))[0]!.status).toBe('success');

    const resumed = await client.runs.wait(threadId, 'support', { command: { resume: 'approved' } });
    expect(texts(resumed).at(-1)).toBe('ai: Refund sent (approved).');
    expect((await client.threads.get(threadId)).status).toBe('idle');
    expect((await client.threads.getState(threadId)).tasks).toEqual([]);
  });

  it('stops before a node with interrupt_before, and goes on with input null', async () => {
    const threadId = await newThread();
    const stopped = await client.runs.wait(threadId, 'support', { input: ask('my order?'), interruptBefore: ['tools'] });
    expect(stopped).toEqual({ __interrupt__: [] });
    expect((await client.threads.get(threadId)).status).toBe('interrupted');
    const state = await client.threads.getState(threadId);
    expect(texts(state.values).at(-1)).toBe('ai: Let me look up order 4512.');
    expect(state.next).toEqual(['tools']);
    expect((await client.threads.get(threadId)).interrupts).toEqual({ [state.tasks[0]!.id]: [] });
    const done = await client.runs.wait(threadId, 'support', { input: null, interruptBefore: ['tools'] });
    expect(texts(done).at(-1)).toBe('ai: It shipped yesterday.');
    expect((await client.threads.get(threadId)).status).toBe('idle');
  });

  it('stops after a node with interrupt_after, even the last one', async () => {
    const threadId = await newThread();
    expect(await client.runs.wait(threadId, 'support', { input: ask('my order?'), interruptAfter: ['agent'] })).toEqual({
      __interrupt__: [],
    });
    expect((await client.threads.getState(threadId)).next).toEqual(['tools']);
    expect(await client.runs.wait(threadId, 'support', { input: null, interruptAfter: ['agent'] })).toEqual({ __interrupt__: [] });
    const state = await client.threads.getState(threadId);
    expect(texts(state.values).at(-1)).toBe('ai: It shipped yesterday.');
    expect(state.next).toEqual([]);
    // Nothing left to run: a continue with input null does nothing and answers the values.
    expect(texts(await client.runs.wait(threadId, 'support', { input: null })).at(-1)).toBe('ai: It shipped yesterday.');
  });

  it('runs the command and ignores the input given beside it, as the AG-UI adapter and agent-chat-ui send it', async () => {
    const threadId = await newThread();
    await client.runs.wait(threadId, 'support', { input: ask('I want a refund') });
    const state = await client.threads.getState(threadId);
    // The AG-UI LangGraph adapter (CopilotKit) sends the thread's state as input beside every resume.
    const input = { ...(state.values as Values), messages: [...((state.values as Values).messages ?? []), ...ask('ignored').messages] };
    const resumed = await client.runs.wait(threadId, 'support', { input, command: { resume: 'approved' } });
    expect(texts(resumed)).toEqual(['human: I want a refund', 'ai: Refund sent (approved).']);
    const [run] = await client.runs.list(threadId);
    expect((run as unknown as { kwargs: Record<string, unknown> }).kwargs).toMatchObject({ input, command: { resume: 'approved' } });
    // agent-chat-ui answers an interrupt with `input: {}`; a command update writes, the input does not.
    const other = await newThread('echo');
    const updated = await client.runs.wait(other, 'echo', { input: {}, command: { update: ask('via command'), goto: 'agent' } });
    expect(texts(updated)).toEqual(['human: via command', 'ai: via command']);
    const stateless = await client.runs.wait(null, 'echo', { input: ask('ignored'), command: { update: ask('stateless'), goto: 'agent' } });
    expect(texts(stateless)).toEqual(['human: stateless', 'ai: stateless']);
    // The ignored input is still held to its schema: a malformed message is a 422 naming it, and nothing runs.
    const runsBefore = (await client.runs.list(threadId)).length;
    const refused = await rawRequest(emulator.agentServerUrl, {
      method: 'POST',
      path: `/threads/${threadId}/runs/wait`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'support', input: { messages: [{ type: 'human' }] }, command: { resume: 'again' } }),
    });
    expect([refused.status, refused.json]).toEqual([
      422,
      { detail: [{ loc: ['body', 'input', 'messages', 0, 'content'], msg: 'Field required', type: 'missing' }] },
    ]);
    expect(await client.runs.list(threadId)).toHaveLength(runsBefore);
  });

  it('takes a command update and goto as input: one input checkpoint, then the node named', async () => {
    const threadId = await newThread('echo');
    const values = await client.runs.wait(threadId, 'echo', { command: { update: ask('via command'), goto: 'agent' } });
    expect(texts(values)).toEqual(['human: via command', 'ai: via command']);
    const history = await client.threads.getHistory(threadId);
    expect(history.map((s) => [s.metadata?.source, s.metadata?.step, s.next])).toEqual([
      ['loop', 0, []],
      ['input', -1, ['agent']],
    ]);
  });

  it('fails a run whose reply raises, with the error in the answer and on the task', async () => {
    const threadId = await newThread();
    const answer = await client.runs.wait(threadId, 'support', { input: ask('please fail'), raiseError: false });
    expect(answer).toEqual({ __error__: { error: 'Error', message: 'Model provider rate limit' } });
    await expect(client.runs.wait(threadId, 'echo', { input: ask('x') })).resolves.toBeDefined();
    const failed = await newThread();
    await expect(client.runs.wait(failed, 'support', { input: ask('fail again') })).rejects.toThrow('Error: Model provider rate limit');
    expect((await client.threads.get(failed)).status).toBe('error');
    expect((await client.runs.list(failed))[0]!.status).toBe('error');
    expect((await client.threads.getState(failed)).tasks[0]).toMatchObject({ name: 'agent', error: 'Model provider rate limit' });
  });

  it('fails a graph that never stops at its recursion limit', async () => {
    const threadId = await newThread('loop');
    const answer = await client.runs.wait(threadId, 'loop', { input: ask('go'), config: { recursion_limit: 5 }, raiseError: false });
    expect(answer).toEqual({
      __error__: { error: 'GraphRecursionError', message: expect.stringMatching(/^Recursion limit of 5 reached/) },
    });
  });
});

describe('background runs', () => {
  it('creates a pending run, joins it, gets it and lists it', async () => {
    const threadId = await newThread('echo');
    const run = await client.runs.create(threadId, 'echo', { input: ask('hi') });
    expect(run.status).toBe('pending');
    expect(texts(await client.runs.join(threadId, run.run_id))).toEqual(['human: hi', 'ai: hi']);
    expect((await client.runs.get(threadId, run.run_id)).status).toBe('success');
    const second = await client.runs.create(threadId, 'echo', { input: ask('again') });
    await client.runs.join(threadId, second.run_id);
    expect((await client.runs.list(threadId)).map((r) => r.run_id)).toEqual([second.run_id, run.run_id]);
    expect((await client.runs.list(threadId, { limit: 1, offset: 1 })).map((r) => r.run_id)).toEqual([run.run_id]);
    expect(await client.runs.list(threadId, { status: 'error' })).toEqual([]);
    // `select` is not a parameter of the operation: ignored, every run answered whole.
    const selected = await client.runs.list(threadId, { select: ['status'] });
    expect(selected[0]).toMatchObject({ run_id: second.run_id, thread_id: threadId, status: 'success' });
  });

  it('joins a run that ended long ago with its own ending, not the thread’s later state', async () => {
    const threadId = await newThread('echo');
    const first = await client.runs.create(threadId, 'echo', { input: ask('one') });
    await client.runs.join(threadId, first.run_id);
    await client.runs.wait(threadId, 'echo', { input: ask('two') });
    expect(texts(await client.runs.join(threadId, first.run_id))).toEqual(['human: one', 'ai: one']);
  });

  it('starts a run after after_seconds', async () => {
    const threadId = await newThread('echo');
    // Bounds from this process's clock, which the emulator shares: a loaded machine may take longer
    // than the delay to answer, so "pending" is only asserted of an answer that came back before
    // the run's start time.
    const sentAt = Date.now();
    const run = await client.runs.create(threadId, 'echo', { input: ask('later'), afterSeconds: 0.3 });
    const startsAt = Date.parse(run.created_at);
    expect(startsAt).toBeGreaterThanOrEqual(sentAt + 300);
    const read = await client.runs.get(threadId, run.run_id);
    if (Date.now() < startsAt - 10) expect(read.status).toBe('pending');
    expect(texts(await client.runs.join(threadId, run.run_id)).at(-1)).toBe('ai: later');
  });

  it('deletes an ended run with its checkpoints, and refuses one in flight', async () => {
    const threadId = await newThread('echo');
    await client.runs.wait(threadId, 'echo', { input: ask('keep') });
    const second = await client.runs.create(threadId, 'echo', { input: ask('drop') });
    await client.runs.join(threadId, second.run_id);
    await client.runs.delete(threadId, second.run_id);
    expect(await failure(client.runs.get(threadId, second.run_id))).toBe(404);
    expect(texts((await client.threads.getState(threadId)).values)).toEqual(['human: keep', 'ai: keep']);
    const slow = await newThread('slow');
    const running = await client.runs.create(slow, 'slow', { input: ask('x') });
    expect(await failure(client.runs.delete(slow, running.run_id))).toBe(409);
    await client.runs.cancel(slow, running.run_id);
  });
});

describe('cancelling', () => {
  it('interrupts a slow run: it ends interrupted, keeps what it wrote, and the thread is usable', async () => {
    const threadId = await newThread('slow');
    const run = await client.runs.create(threadId, 'slow', { input: ask('take your time') });
    await waitUntil(async () => (await client.runs.get(threadId, run.run_id)).status === 'running');
    await client.runs.cancel(threadId, run.run_id, true);
    expect((await client.runs.get(threadId, run.run_id)).status).toBe('interrupted');
    expect((await client.threads.get(threadId)).status).toBe('idle');
    expect(texts((await client.threads.getState(threadId)).values)).toEqual(['human: take your time']);
    expect(texts(await client.runs.join(threadId, run.run_id))).toEqual(['human: take your time']);
    expect(texts(await client.runs.wait(threadId, 'echo', { input: ask('quick') })).at(-1)).toBe('ai: quick');
  });

  it('rolls a run back: it is deleted with every checkpoint it wrote', async () => {
    const threadId = await newThread('slow');
    await client.threads.updateState(threadId, { values: ask('before'), asNode: '__start__' });
    const before = await client.threads.getHistory(threadId);
    const run = await client.runs.create(threadId, 'slow', { input: ask('undo me') });
    await client.runs.cancel(threadId, run.run_id, false, 'rollback');
    expect(await failure(client.runs.get(threadId, run.run_id))).toBe(404);
    expect((await client.threads.getHistory(threadId)).map((s) => s.checkpoint.checkpoint_id)).toEqual(
      before.map((s) => s.checkpoint.checkpoint_id),
    );
    expect((await client.threads.get(threadId)).status).toBe('idle');
  });

  it('cancels many runs by ID or by status', async () => {
    const a = await newThread('slow');
    const b = await newThread('slow');
    const runA = await client.runs.create(a, 'slow', { input: ask('a') });
    const runB = await client.runs.create(b, 'slow', { input: ask('b') });
    await client.runs.cancelMany({ threadId: a, runIds: [runA.run_id] });
    expect((await client.runs.get(a, runA.run_id)).status).toBe('interrupted');
    expect((await client.runs.get(b, runB.run_id)).status).not.toBe('interrupted');
    await client.runs.cancelMany({ status: 'all' });
    expect((await client.runs.get(b, runB.run_id)).status).toBe('interrupted');
    expect(await failure(client.runs.cancelMany({ runIds: [crypto.randomUUID()] }))).toBe(404);
  });

  it('cancels a waited run whose client goes away when the run asks so', async () => {
    const threadId = await newThread('slow');
    const controller = new AbortController();
    const waiting = client.runs.wait(threadId, 'slow', { input: ask('x'), onDisconnect: 'cancel', signal: controller.signal });
    await waitUntil(async () => (await client.runs.list(threadId)).length === 1);
    controller.abort();
    await expect(waiting).rejects.toThrow();
    const [run] = await client.runs.list(threadId);
    await waitUntil(async () => (await client.runs.get(threadId, run!.run_id)).status === 'interrupted');
  });
});

describe('multitask strategies', () => {
  /** A thread whose slow run is running, and that run's ID. */
  async function busy() {
    const threadId = await newThread('slow');
    const run = await client.runs.create(threadId, 'slow', { input: ask('first') });
    return { threadId, first: run.run_id };
  }

  it('rejects a second run by default (409), and a state update too', async () => {
    const { threadId, first } = await busy();
    expect((await client.threads.get(threadId)).status).toBe('busy');
    expect(await failure(client.runs.create(threadId, 'echo', { input: ask('second') }))).toBe(409);
    expect(await failure(client.threads.updateState(threadId, { values: ask('x'), asNode: '__start__' }))).toBe(409);
    await client.runs.cancel(threadId, first);
  });

  it('interrupts the run in flight', async () => {
    const { threadId, first } = await busy();
    const second = await client.runs.create(threadId, 'echo', { input: ask('second'), multitaskStrategy: 'interrupt' });
    expect(texts(await client.runs.join(threadId, second.run_id))).toEqual(['human: first', 'human: second', 'ai: second']);
    expect((await client.runs.get(threadId, first)).status).toBe('interrupted');
  });

  it('rolls back the run in flight', async () => {
    const { threadId, first } = await busy();
    const second = await client.runs.create(threadId, 'echo', { input: ask('second'), multitaskStrategy: 'rollback' });
    expect(texts(await client.runs.join(threadId, second.run_id))).toEqual(['human: second', 'ai: second']);
    expect(await failure(client.runs.get(threadId, first))).toBe(404);
  });

  it('enqueues behind the run in flight', async () => {
    const { threadId, first } = await busy();
    const second = await client.runs.create(threadId, 'echo', { input: ask('second'), multitaskStrategy: 'enqueue' });
    expect((await client.runs.get(threadId, second.run_id)).status).toBe('pending');
    await client.runs.cancel(threadId, first);
    expect(texts(await client.runs.join(threadId, second.run_id))).toEqual(['human: first', 'human: second', 'ai: second']);
    expect((await client.threads.get(threadId)).status).toBe('idle');
  });
});

describe('regenerating from an earlier checkpoint', () => {
  it('branches from the checkpoint, leaving the original branch in the history', async () => {
    const threadId = await newThread('echo');
    await client.runs.wait(threadId, 'echo', { input: ask('first') });
    const history = await client.threads.getHistory(threadId);
    const beforeFirst = history.find((s) => s.metadata?.source === 'input')!;
    const regenerated = await client.runs.wait(threadId, 'echo', {
      input: ask('edited'),
      checkpointId: beforeFirst.checkpoint.checkpoint_id!,
    });
    expect(texts(regenerated)).toEqual(['human: edited', 'ai: edited']);
    const after = await client.threads.getHistory(threadId, { limit: 20 });
    const input = after.find((s) => s.metadata?.source === 'input' && s.checkpoint.checkpoint_id !== beforeFirst.checkpoint.checkpoint_id)!;
    expect(input.parent_checkpoint?.checkpoint_id).toBe(beforeFirst.checkpoint.checkpoint_id);
    expect(after).toHaveLength(history.length + 3);
    expect(await failure(client.runs.wait(threadId, 'echo', { input: ask('x'), checkpointId: crypto.randomUUID() }))).toBe(404);
  });
});

describe('what a run wrote, read back by thread operations', () => {
  it('applies a state update without as_node as the node that wrote last, so next is that node’s successor', async () => {
    const threadId = await newThread();
    await client.runs.wait(threadId, 'support', { input: ask('hello') });
    const call = { name: 'lookup_order', args: { order_id: '7' }, id: 'call-7', type: 'tool_call' as const };
    await client.threads.updateState(threadId, { values: { messages: [{ type: 'ai', content: '', tool_calls: [call] }] } });
    const state = await client.threads.getState(threadId);
    // Applied as `agent`, whose reply now calls a tool: the tools node runs next (as `__start__`, agent would).
    expect(state.next).toEqual(['tools']);
    expect(Object.keys(state.metadata?.writes as object)).toEqual(['agent']);
  });

  it('copies a thread a run filled with checkpoints that name the copy, not the original', async () => {
    const threadId = await newThread();
    await client.runs.wait(threadId, 'support', { input: ask('hello') });
    const copy = await client.threads.copy(threadId);
    const history = await client.threads.getHistory(copy.thread_id, { limit: 20 });
    expect(history.length).toBeGreaterThan(0);
    expect(history.map((state) => state.metadata?.thread_id)).toEqual(history.map(() => copy.thread_id));
    // The original's are untouched.
    const original = await client.threads.getHistory(threadId, { limit: 20 });
    expect(original.map((state) => state.metadata?.thread_id)).toEqual(original.map(() => threadId));
  });
});

describe('stateless runs', () => {
  it('runs on a thread of its own, deleted at the end unless kept', async () => {
    expect(texts(await client.runs.wait(null, 'echo', { input: ask('once') }))).toEqual(['human: once', 'ai: once']);
    const kept = await client.runs.create(null, 'echo', { input: ask('keep'), onCompletion: KEEP });
    await waitUntil(async () => (await client.runs.get(kept.thread_id, kept.run_id)).status === 'success');
    expect(texts((await client.threads.getState(kept.thread_id)).values).at(-1)).toBe('ai: keep');
    const gone = await client.runs.create(null, 'echo', { input: ask('go') });
    await waitUntil(async () => (await failure(client.threads.get(gone.thread_id))) === 404);
  });

  it('creates a batch all or nothing', async () => {
    const runs = await client.runs.createBatch([
      { assistantId: 'echo', input: ask('a'), onCompletion: KEEP },
      { assistantId: 'echo', input: ask('b'), onCompletion: KEEP },
    ]);
    expect(runs).toHaveLength(2);
    expect(await failure(client.runs.createBatch([{ assistantId: 'echo' }, { assistantId: 'billing' }]))).toBe(404);
  });
});

describe('real data round-trips', () => {
  // The values of a thread as the LangGraph JS server answered them after a streamed tool-call run
  // (its AI messages carry tool_call_chunks, its tool messages status and metadata), with the
  // response and usage metadata a model provider adds to the last reply.
  const REAL_STATE = {
    messages: [
      {
        content: 'Where is my order?',
        additional_kwargs: {},
        response_metadata: {},
        id: '7bae1fab-76d6-46f3-a13f-aac3119fd3d3',
        type: 'human',
      },
      {
        content: 'Let me look up order 4512.',
        additional_kwargs: {},
        response_metadata: {},
        tool_call_chunks: [
          {
            name: 'lookup_order',
            args: '{"order_id":"4512"}',
            id: '53d8f09e-8561-4080-becc-0ac02c800ab9',
            index: 0,
            type: 'tool_call_chunk',
          },
          {
            name: 'unlisted_tool',
            args: '{}',
            id: 'call-fixed-1',
            index: 1,
            type: 'tool_call_chunk',
          },
        ],
        tool_calls: [
          {
            name: 'lookup_order',
            args: {
              order_id: '4512',
            },
            id: '53d8f09e-8561-4080-becc-0ac02c800ab9',
            type: 'tool_call',
          },
          {
            name: 'unlisted_tool',
            args: {},
            id: 'call-fixed-1',
            type: 'tool_call',
          },
        ],
        id: 'run-01a2149c-16cf-7719-83c9-ce39aa32fbc1',
        invalid_tool_calls: [],
        type: 'ai',
      },
      {
        status: 'success',
        content: '{"status": "shipped"}',
        tool_call_id: '53d8f09e-8561-4080-becc-0ac02c800ab9',
        name: 'lookup_order',
        metadata: {
          versions: {
            '@langchain/core': '1.2.18',
          },
        },
        additional_kwargs: {},
        response_metadata: {},
        id: '6f4f0cd7-15e5-47f5-871d-187deda17727',
        type: 'tool',
      },
      {
        status: 'success',
        content: 'ok',
        tool_call_id: 'call-fixed-1',
        name: 'unlisted_tool',
        metadata: {
          versions: {
            '@langchain/core': '1.2.18',
          },
        },
        additional_kwargs: {},
        response_metadata: {},
        id: '8b5fd4f9-b2d7-4ff6-a635-13e505759412',
        type: 'tool',
      },
      {
        content: 'It shipped yesterday.',
        additional_kwargs: {},
        response_metadata: {
          model_name: 'gpt-4o-mini-2024-07-18',
          finish_reason: 'stop',
          system_fingerprint: 'fp_0aa8d3e20b',
        },
        tool_call_chunks: [],
        tool_calls: [],
        id: 'run-01a2149c-16f5-751b-9bd5-9c8328b044f8',
        invalid_tool_calls: [],
        type: 'ai',
        usage_metadata: {
          input_tokens: 412,
          output_tokens: 38,
          total_tokens: 450,
          input_token_details: {
            cache_read: 0,
          },
          output_token_details: {
            reasoning: 0,
          },
        },
      },
    ],
    topic: 'shipping',
  };

  it('accepts a real server’s state back in supersteps and keeps every field', async () => {
    const thread = await client.threads.create({
      metadata: { graph_id: 'support' },
      supersteps: [{ updates: [{ values: REAL_STATE, asNode: 'agent' }] }],
    });
    expect((await client.threads.getState(thread.thread_id)).values).toEqual(REAL_STATE);
    const copy = await newThread();
    await client.threads.updateState(copy, { values: REAL_STATE, asNode: 'agent' });
    expect((await client.threads.getState(copy)).values).toEqual(REAL_STATE);
  });
});

describe('webhooks', () => {
  it('POSTs the finished run, its values and when it ran', async () => {
    const received: { body: any; headers: http.IncomingHttpHeaders }[] = [];
    const receiver = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        received.push({ body: JSON.parse(text), headers: req.headers });
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const threadId = await newThread('support');
      await client.runs.wait(threadId, 'support', { input: ask('hello'), webhook: url });
      await client.runs.wait(threadId, 'support', { input: ask('fail now'), webhook: url, raiseError: false });
      await waitUntil(async () => received.length === 2);
      const [ok, failed] = received;
      expect(ok!.headers['content-type']).toBe('application/json');
      expect(ok!.body).toMatchObject({
        thread_id: threadId,
        status: 'success',
        run_started_at: expect.any(String),
        run_ended_at: expect.any(String),
      });
      expect(texts(ok!.body.values).at(-1)).toBe('ai: You said: hello');
      expect(failed!.body).toMatchObject({ status: 'error', error: 'Model provider rate limit' });
      expect(failed!.body.values).toBeUndefined();
    } finally {
      receiver.close();
    }
  });

  it('tells the user, not the error log, when the receiver is down', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const threadId = await newThread('echo');
    const run = await client.runs.create(threadId, 'echo', { input: ask('x'), webhook: url });
    await waitUntil(async () => emulator.notices.some((notice) => notice.includes(run.run_id)));
    expect(emulator.notices.find((notice) => notice.includes(run.run_id))).toMatch(
      /the webhook of run .* to http:\/\/127\.0\.0\.1:\d+\/hook failed/,
    );
    expect((await client.runs.get(threadId, run.run_id)).status).toBe('success');
  });
});

describe('search by values', () => {
  it('finds a thread by the values its runs left, and not by values a regenerated branch replaced', async () => {
    const threadId = await newThread();
    await client.runs.wait(threadId, 'support', { input: ask('where is my order?') });
    const found = await client.threads.search({ values: { topic: 'shipping' }, metadata: { graph_id: 'support' }, limit: 1000 });
    expect(found.map((t) => t.thread_id)).toContain(threadId);
    const input = (await client.threads.getHistory(threadId, { limit: 20 })).find((s) => s.metadata?.source === 'input')!;
    await client.runs.wait(threadId, 'support', {
      input: { ...ask('hello'), topic: 'greeting' },
      checkpointId: input.checkpoint.checkpoint_id!,
    });
    const after = await client.threads.search({ values: { topic: 'shipping' }, metadata: { graph_id: 'support' }, limit: 1000 });
    expect(after.map((t) => t.thread_id)).not.toContain(threadId);
    expect(await client.threads.count({ values: { topic: 'greeting' } })).toBeGreaterThanOrEqual(1);
  });
});

describe('the LangGraph Python SDK', () => {
  // Its synchronous client sends `raise_error` in every runs.wait body (and raises a failed run's
  // error itself, from `__error__`); the body below is the one it sends, None fields left out.
  const pythonWait = (fields: Record<string, unknown>) =>
    JSON.stringify({ input: ask('hello'), assistant_id: 'support', raise_error: true, ...fields });
  const post = (path: string, body: string) =>
    rawRequest(emulator.agentServerUrl, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body });

  it('gets the state from the sync client’s runs.wait, on a thread and stateless, raise_error true or false', async () => {
    const threadId = await newThread();
    const onThread = await post(`/threads/${threadId}/runs/wait`, pythonWait({}));
    expect(onThread.status, onThread.text).toBe(200);
    expect(texts(onThread.json)).toEqual(['human: hello', 'ai: You said: hello']);
    const stateless = await post('/runs/wait', pythonWait({ raise_error: false }));
    expect(stateless.status, stateless.text).toBe(200);
    expect(texts(stateless.json)).toEqual(['human: hello', 'ai: You said: hello']);
    // A failed run answers `__error__` either way: raising it is the client's part.
    const failed = await post(`/threads/${threadId}/runs/wait`, pythonWait({ input: ask('please fail') }));
    expect(failed.status, failed.text).toBe(200);
    expect(failed.json).toHaveProperty('__error__');
  });

  it('still refuses any other unknown field of a run body, naming it', async () => {
    const threadId = await newThread();
    for (const [path, body] of [
      [`/threads/${threadId}/runs/wait`, pythonWait({ raise_errors: true })],
      ['/runs/wait', pythonWait({ raise_errors: true })],
      [`/threads/${threadId}/runs`, pythonWait({ raise_errors: true })],
      [`/threads/${threadId}/runs/stream`, pythonWait({ raise_errors: true })],
    ] as const) {
      const answer = await post(path, body);
      expect(answer.status, path).toBe(422);
      expect(answer.json, path).toEqual({
        detail: [{ loc: ['body', 'raise_errors'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
      });
    }
    expect((await client.threads.getState(threadId)).values).toEqual({});
  });
});

describe('input', () => {
  it('writes only the graph’s state keys, as LangGraph maps input to its channels', async () => {
    const threadId = await newThread();
    const values = await client.runs.wait(threadId, 'support', { input: { ...ask('hello'), topic: 'greeting', unknown: 1 } });
    expect(values).toMatchObject({ topic: 'greeting' });
    expect(values).not.toHaveProperty('unknown');
  });

  it('takes messages in the role form of chat-completion APIs and stores them in the type form', async () => {
    const threadId = await newThread();
    const values = await client.runs.wait(threadId, 'support', { input: { messages: [{ role: 'user', content: 'hello' }] } });
    expect(texts(values)).toEqual(['human: hello', 'ai: You said: hello']);
    const [human] = (values as Values).messages!;
    expect(human).not.toHaveProperty('role');
    expect(human).toMatchObject({ type: 'human', content: 'hello', additional_kwargs: {}, response_metadata: {} });
    expect(human?.id).toEqual(expect.any(String));

    await client.threads.updateState(threadId, {
      values: {
        messages: [
          { role: 'developer', content: 'Answer in English.' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id": "4512"}' } },
              { id: 'call_2', type: 'function', function: { name: 'lookup_order', arguments: '{not json' } },
              { id: 'call_3', name: 'lookup_order', args: { order_id: '7' } },
            ],
          },
          { role: 'tool', content: 'shipped', tool_call_id: 'call_1', name: 'lookup_order' },
        ],
      },
      asNode: 'agent',
    });
    const stored = ((await client.threads.getState(threadId)).values as Values).messages!.slice(2);
    expect(stored.map((m) => m.type)).toEqual(['system', 'ai', 'tool']);
    expect(stored[0]?.additional_kwargs).toEqual({ __openai_role__: 'developer' });
    expect(stored[1]?.tool_calls).toEqual([
      { id: 'call_1', name: 'lookup_order', args: { order_id: '4512' }, type: 'tool_call' },
      { id: 'call_3', name: 'lookup_order', args: { order_id: '7' }, type: 'tool_call' },
    ]);
    expect(stored[1]?.invalid_tool_calls).toEqual([
      {
        id: 'call_2',
        name: 'lookup_order',
        args: '{not json',
        error: 'Function arguments are not the JSON of an object.',
        type: 'invalid_tool_call',
      },
    ]);
    expect(stored[2]).toMatchObject({ type: 'tool', tool_call_id: 'call_1', name: 'lookup_order', content: 'shipped' });
  });

  it('takes a message with both role and type naming one type as that message, every field kept, as the AG-UI adapter writes them', async () => {
    const threadId = await newThread();
    // The forms the AG-UI LangGraph adapter converts its user, assistant, tool and system messages to.
    const messages = [
      { id: 'u-1', role: 'user', type: 'human', content: [{ type: 'text', text: 'Where is my order?' }] },
      {
        id: 'a-1',
        role: 'assistant',
        type: 'ai',
        content: '',
        tool_calls: [{ id: 'call_1', name: 'lookup_order', args: { order_id: '4512' }, type: 'tool_call' }],
      },
      { id: 't-1', role: 'tool', type: 'tool', content: 'no such order', tool_call_id: 'call_1', status: 'error' },
      { id: 's-1', role: 'system', type: 'system', content: 'Be brief.' },
      { id: 'd-1', role: 'developer', type: 'system', content: 'Answer in English.' },
      { id: 'u-2', role: 'human', type: 'human', content: 'thanks', name: 'alice' },
    ];
    await client.threads.updateState(threadId, { values: { messages }, asNode: 'agent' });
    const stored = ((await client.threads.getState(threadId)).values as Values).messages!;
    expect(stored.map((m) => [m.id, m.type, m.role])).toEqual([
      ['u-1', 'human', undefined],
      ['a-1', 'ai', undefined],
      ['t-1', 'tool', undefined],
      ['s-1', 'system', undefined],
      ['d-1', 'system', undefined],
      ['u-2', 'human', undefined],
    ]);
    expect(stored[0]?.content).toEqual([{ type: 'text', text: 'Where is my order?' }]);
    expect(stored[1]?.tool_calls).toEqual(messages[1]!.tool_calls);
    expect(stored[2]).toMatchObject({ tool_call_id: 'call_1', status: 'error', content: 'no such order' });
    expect(stored[3]?.additional_kwargs).toEqual({});
    expect(stored[4]?.additional_kwargs).toEqual({ __openai_role__: 'developer' });
    expect(stored[5]?.name).toBe('alice');
  });

  it('refuses a message whose role names another type than its type, naming both', async () => {
    const threadId = await newThread();
    const before = await client.threads.getState(threadId);
    for (const [role, type, msg] of [
      ['user', 'ai', "Input should be 'assistant' or 'ai', as type is 'ai'"],
      ['assistant', 'human', "Input should be 'user' or 'human', as type is 'human'"],
      ['developer', 'human', "Input should be 'user' or 'human', as type is 'human'"],
      ['system', 'tool', "Input should be 'tool', as type is 'tool'"],
    ]) {
      const extra = type === 'tool' ? { tool_call_id: 'call_1' } : {};
      const answer = await rawRequest(emulator.agentServerUrl, {
        method: 'POST',
        path: `/threads/${threadId}/runs/wait`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          assistant_id: 'support',
          input: { messages: [ask('fine').messages[0], { role, type, content: 'hi', ...extra }] },
        }),
      });
      expect([answer.status, answer.json], `${role} with ${type}`).toEqual([
        422,
        { detail: [{ loc: ['body', 'input', 'messages', 1, 'role'], msg, type: 'enum' }] },
      ]);
    }
    expect(await client.runs.list(threadId)).toEqual([]);
    expect((await client.threads.getState(threadId)).checkpoint).toEqual(before.checkpoint);
  });

  it('refuses a role-form message it cannot store, with the 422 shape, and keeps the thread as it was', async () => {
    const threadId = await newThread();
    await client.runs.wait(threadId, 'support', { input: ask('hello') });
    const before = await client.threads.getState(threadId);
    for (const [message, loc] of [
      [{ role: 'tool', content: 'shipped' }, 'tool_call_id'],
      [{ role: 'robot', content: 'beep' }, 'role'],
      // A role naming another type than `type`: the 422 is at role, and says which type it was held to.
      [{ role: 'user', content: 'hi', type: 'ai' }, 'role'],
      // Written without `type`, a message takes the role form's fields only.
      [{ role: 'tool', content: 'shipped', tool_call_id: 'call_1', status: 'error' }, 'status'],
    ] as const) {
      const answer = await rawRequest(emulator.agentServerUrl, {
        method: 'POST',
        path: `/threads/${threadId}/runs/wait`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ assistant_id: 'support', input: { messages: [message] } }),
      });
      expect(answer.status, JSON.stringify(message)).toBe(422);
      const detail = (answer.json as { detail: { loc: unknown[] }[] }).detail;
      expect(
        detail.map((issue) => issue.loc.at(-1)),
        JSON.stringify(message),
      ).toContain(loc);
    }
    expect((await client.threads.getState(threadId)).checkpoint).toEqual(before.checkpoint);
  });
});

/** Polls until `condition` holds (for states reached in the background); fails after 10 s. */
async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
