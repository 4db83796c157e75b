// What the LangGraph SDK's 1.13–1.15 releases send on the legacy API, through the real SDK
// (@langchain/langgraph-sdk 1.15), each accepted and honoured as the spec describes it: `select` of
// getState and getHistory (the values narrowed, every answer still a ThreadState), of a thread
// search (never any values) and of runs.list; `strictResume` (a resume that does not match the
// interrupts waiting is refused, with LangGraph's UnknownInterruptError); `keyedByInterruptId` in a
// resume's command; `include: ["ttl"]` of threads.get; `reason: "taken"` on cancel
// (`cancel_reason`); `streamNamespaces` on streams and joins; `checkpointId` on joins; the
// `lifecycle` stream mode; and `/info`'s flags for strict resume and namespaces.
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';
import { ask, REVIEW_GRAPH, SUPPORT_GRAPH } from './support/run-graphs.js';
import type { WireRecord } from './support/sdk-client.js';
import { sdkClient, sdkError } from './support/sdk-client.js';

const GRAPHS: Record<string, GraphDefinition> = {
  support: SUPPORT_GRAPH,
  echo: { replies: [{ text: '{{input}}' }] },
  // A reply that takes ten minutes: a run on it is running until it is cancelled.
  slow: { replies: [{ text: 'eventually' }], stream: { chunk: 'whole', delay_ms: 600_000 } },
  // Two approvals asked at once: two interrupts waiting side by side.
  approvals: {
    channels: { messages: { reducer: 'messages', default: [] }, legal: {}, finance: {} },
    runs: [
      {
        steps: [
          {
            parallel: [
              { node: 'legal', interrupt: { question: 'Legal OK?' }, update: { legal: '{{resume}}' } },
              { node: 'finance', interrupt: { question: 'Budget OK?' }, update: { finance: '{{resume}}' } },
            ],
          },
          { node: 'done', message: { text: 'Approved.' } },
        ],
      },
    ],
  },
  // A subgraph node whose own node asks a question.
  review: REVIEW_GRAPH,
  // A subgraph node whose own node raises.
  audit: {
    channels: { messages: { reducer: 'messages', default: [] } },
    runs: [{ steps: [{ node: 'audit', subgraph: [{ node: 'check', error: { name: 'AuditError', message: 'ledger mismatch' } }] }] }],
  },
};

let emulator: TestEmulator;
let client: Client;
const wire: WireRecord[] = [];
const lastWire = (): WireRecord => wire.at(-1)!;

beforeAll(async () => {
  emulator = await startTestEmulator({ graphs: GRAPHS });
  client = sdkClient(emulator.agentServerUrl, { wire });
});
afterEach(() => {
  expect(emulator.errors, 'the emulator reported contract violations or internal errors').toEqual([]);
});
afterAll(() => emulator.close());

type Values = Record<string, any>;
/** A run's kwargs, which the API answers and the SDK's Run type leaves out. */
const kwargsOf = (run: unknown) => (run as { kwargs?: Values } | undefined)?.kwargs;
const newThread = async (graphId: string) => (await client.threads.create({ graphId })).thread_id;
const STATE_FIELDS = [
  'values',
  'next',
  'tasks',
  'metadata',
  'created_at',
  'checkpoint',
  'parent_checkpoint',
  'checkpoint_id',
  'parent_checkpoint_id',
];

/** A thread of `support` that has talked once and has `messages` and `topic` in its state. */
async function talkedThread(): Promise<string> {
  const threadId = await newThread('support');
  await client.threads.updateState(threadId, { values: { topic: 'shipping' }, asNode: 'agent' });
  await client.runs.wait(threadId, 'support', { input: ask('hello') });
  return threadId;
}

/** Every event of a stream, with its name, data and id. */
async function eventsOf(stream: AsyncIterable<{ event: string; data: any; id?: unknown }>) {
  const events: { event: string; data: any; id?: string }[] = [];
  for await (const part of stream) events.push(part as { event: string; data: any; id?: string });
  return events;
}

describe('select of a state read (getState, getHistory)', () => {
  it('answers the selected keys of the values and every other field of the state, as the SDK sends it', async () => {
    const threadId = await talkedThread();
    const whole = await client.threads.getState<Values>(threadId);
    expect(Object.keys(whole.values).sort()).toEqual(['messages', 'topic']);

    const messages = await client.threads.getState<Values>(threadId, undefined, { select: ['values.messages'] });
    expect(lastWire().path).toBe(`/threads/${threadId}/state?select=values.messages`);
    expect(messages).toEqual({ ...whole, values: { messages: whole.values.messages } });

    // Top-level names keep their fields (always answered); with no `values` name, no values.
    const next = await client.threads.getState<Values>(threadId, undefined, { select: ['next', 'tasks'] });
    expect(Object.keys(next).sort()).toEqual([...STATE_FIELDS].sort());
    expect(next.values).toEqual({});
    const all = await client.threads.getState<Values>(threadId, undefined, { select: ['values', 'values.topic'] });
    expect(all).toEqual(whole);
    // A key the state lacks is not answered; `interrupts` (no field of these states) adds nothing.
    const missing = await client.threads.getState<Values>(threadId, undefined, { select: ['values.nope', 'values.topic', 'interrupts'] });
    expect(missing.values).toEqual({ topic: 'shipping' });

    // At a checkpoint, by ID (query) and as an object (body).
    const first = (await client.threads.getHistory(threadId, { limit: 100 })).at(-1)!;
    const atId = await client.threads.getState<Values>(threadId, first.checkpoint.checkpoint_id!, { select: ['next'] });
    expect(lastWire().path).toBe(`/threads/${threadId}/state/${first.checkpoint.checkpoint_id}?select=next`);
    expect(atId).toEqual({ ...(await client.threads.getState(threadId, first.checkpoint.checkpoint_id!)), values: {} });
    const topicCheckpoint = (await client.threads.getHistory(threadId, { limit: 100 })).find(
      (state) => state.metadata?.source === 'update',
    )!;
    const atObject = await client.threads.getState<Values>(threadId, topicCheckpoint.checkpoint, { select: ['values.topic'] });
    expect(lastWire()).toMatchObject({ method: 'POST', body: { select: ['values.topic'] } });
    expect(atObject).toEqual({ ...(await client.threads.getState(threadId, topicCheckpoint.checkpoint)), values: { topic: 'shipping' } });
  });

  it('narrows every state of a history page, which pages as before', async () => {
    const threadId = await talkedThread();
    const whole = await client.threads.getHistory<Values>(threadId, { limit: 100 });
    const selected = await client.threads.getHistory<Values>(threadId, { limit: 100, select: ['values.topic'] });
    expect(lastWire().body).toMatchObject({ select: ['values.topic'] });
    expect(selected).toEqual(whole.map((state) => ({ ...state, values: 'topic' in state.values ? { topic: state.values.topic } : {} })));
    const page = await client.threads.getHistory<Values>(threadId, {
      limit: 2,
      select: ['values.messages'],
      // The checkpoint object as before, as the SDK's types do not allow but its callers send.
      before: selected[1]!.checkpoint as never,
    });
    expect(page.map((state) => state.checkpoint.checkpoint_id)).toEqual(whole.slice(2, 4).map((state) => state.checkpoint.checkpoint_id));
  });

  it('refuses a name that is no part of a state with a 422 naming it', async () => {
    const threadId = await talkedThread();
    const refused = await sdkError(client.threads.getState(threadId, undefined, { select: ['valuez' as never] }));
    expect(refused.status).toBe(422);
    expect((refused.detail as { loc: unknown[] }[])[0]!.loc).toEqual(['query', 'select', 0]);
    const inHistory = await sdkError(client.threads.getHistory(threadId, { select: ['values.'] }));
    expect((inHistory.detail as { loc: unknown[] }[])[0]!.loc).toEqual(['body', 'select', 0]);
  });
});

describe('include of threads.get', () => {
  it('adds the thread’s time to live with include ttl: the minutes last given and when it runs out', async () => {
    const before = Date.now();
    const thread = await client.threads.create({ ttl: 60 });
    const read = await client.threads.get(thread.thread_id, { include: ['ttl'] });
    expect(lastWire().path).toBe(`/threads/${thread.thread_id}?include=ttl`);
    const ttl = (read as { ttl?: { strategy: string; ttl_minutes: number; expires_at: string } }).ttl!;
    expect([ttl.strategy, ttl.ttl_minutes]).toEqual(['delete', 60]);
    expect(Date.parse(ttl.expires_at) - before).toBeGreaterThanOrEqual(60 * 60_000);
    expect(Date.parse(ttl.expires_at) - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    // An update that gives a ttl restarts the clock with its minutes; one that does not keeps them.
    await client.threads.update(thread.thread_id, { ttl: 30 });
    await client.threads.update(thread.thread_id, { metadata: { kept: true } });
    const after = (await client.threads.get(thread.thread_id, { include: ['ttl'] })) as { ttl?: { ttl_minutes: number } };
    expect(after.ttl?.ttl_minutes).toBe(30);
    // Without include, no ttl; a thread that never expires answers null.
    expect(await client.threads.get(thread.thread_id)).not.toHaveProperty('ttl');
    const forever = await client.threads.create();
    expect(((await client.threads.get(forever.thread_id, { include: ['ttl'] })) as { ttl?: unknown }).ttl).toBeNull();
    const refused = await sdkError(client.threads.get(forever.thread_id, { include: ['values'] }));
    expect([refused.status, (refused.detail as { loc: unknown[] }[])[0]!.loc]).toEqual([422, ['query', 'include', 0]]);
  });
});

describe('select of a thread search', () => {
  it('never answers values, selected or not, as the thread interface has search answers', async () => {
    const threadId = await talkedThread();
    const [found] = await client.threads.search({ ids: [threadId], select: ['thread_id', 'values', 'status'] });
    expect(lastWire().body.select).toEqual(['thread_id', 'values', 'status']);
    expect(found).not.toHaveProperty('values');
    expect(found).toMatchObject({ thread_id: threadId, status: 'idle' });
    // `extract` still reads them.
    const [extracted] = await client.threads.search({ ids: [threadId], extract: { topic: 'values.topic' } });
    expect(extracted?.extracted).toEqual({ topic: 'shipping' });
  });
});

describe('cancel reason and select of runs.list', () => {
  it('records reason taken as cancel_reason, naming the run that took the input, and answers it unless select leaves it out', async () => {
    const threadId = await newThread('slow');
    const running = await client.runs.create(threadId, 'slow', { input: ask('first') });
    const queued = await client.runs.create(threadId, 'slow', { input: ask('second'), multitaskStrategy: 'enqueue' });
    await client.runs.cancel(threadId, queued.run_id, false, 'interrupt', { reason: 'taken' });
    expect(lastWire()).toMatchObject({
      path: `/threads/${threadId}/runs/${queued.run_id}/cancel?wait=0&action=interrupt&reason=taken`,
      status: 202,
    });
    const taken = await client.runs.get(threadId, queued.run_id);
    expect(taken).toMatchObject({ status: 'interrupted', cancel_reason: `taken:${running.run_id}` });

    // A cancel without a reason records none; nor does one of the run the thread executes itself.
    await client.runs.cancel(threadId, running.run_id, true, 'interrupt', { reason: 'taken' });
    expect((await client.runs.get(threadId, running.run_id)).cancel_reason).toBe('taken:');
    const plain = await client.runs.create(threadId, 'slow', { input: ask('third') });
    await client.runs.cancel(threadId, plain.run_id, true);
    expect(await client.runs.get(threadId, plain.run_id)).not.toHaveProperty('cancel_reason');

    const listed = await client.runs.list(threadId, { limit: 10 });
    expect(listed.map((run) => [run.run_id, run.cancel_reason])).toEqual([
      [plain.run_id, undefined],
      [queued.run_id, `taken:${running.run_id}`],
      [running.run_id, 'taken:'],
    ]);
    // As the SDK's queue asks for its pending runs: the selected fields, and every required one.
    const selected = await client.runs.list(threadId, { select: ['run_id', 'kwargs', 'created_at', 'multitask_strategy'] });
    expect(lastWire().path).toBe(
      `/threads/${threadId}/runs?limit=10&offset=0&select=run_id&select=kwargs&select=created_at&select=multitask_strategy`,
    );
    expect(selected.map((run) => Object.keys(run).sort())).toEqual(listed.map(() => [...Object.keys(plain)].sort()));
    const withReason = await client.runs.list(threadId, { select: ['run_id', 'cancel_reason'] });
    expect(withReason[1]?.cancel_reason).toBe(`taken:${running.run_id}`);
  });

  it('refuses a reason with action rollback (a run rolled back is deleted) and records nothing', async () => {
    const threadId = await newThread('slow');
    const running = await client.runs.create(threadId, 'slow', { input: ask('first') });
    const refused = await sdkError(client.runs.cancel(threadId, running.run_id, false, 'rollback', { reason: 'taken' }));
    expect(refused).toEqual({
      status: 422,
      detail: [
        {
          loc: ['query', 'reason'],
          msg: "A reason is recorded only with action 'interrupt'; a run rolled back is deleted.",
          type: 'value_error',
        },
      ],
    });
    expect((await client.runs.get(threadId, running.run_id)).status).toBe('running');
    await client.runs.cancel(threadId, running.run_id, true);
  });
});

describe('strictResume', () => {
  /** A thread of `approvals` waiting at its two interrupts, and their IDs by question. */
  async function twoWaiting() {
    const threadId = await newThread('approvals');
    await client.runs.wait(threadId, 'approvals', { input: ask('ship it') });
    const state = await client.threads.getState(threadId);
    const ids = Object.fromEntries(state.tasks.map((task) => [task.name, task.interrupts[0]!.id as string]));
    return { threadId, ids, state };
  }

  it('refuses one answer while two interrupts wait (ambiguous), runs nothing, and leaves the thread waiting', async () => {
    const { threadId, ids, state } = await twoWaiting();
    const thread = await client.threads.get(threadId);
    const refused = (await client.runs.wait(threadId, 'approvals', {
      command: { resume: 'yes' },
      strictResume: true,
      raiseError: false,
    })) as Values;
    expect(lastWire().body).toMatchObject({ strict_resume: true, command: { resume: 'yes' } });
    const pending = [ids.legal, ids.finance].sort();
    expect(refused).toEqual({
      __error__: {
        error: 'UnknownInterruptError',
        message: 'When there are multiple pending interrupts, you must specify the interrupt id when resuming.',
        reason: 'ambiguous',
        interrupt_ids: [],
        pending_ids: pending,
      },
    });
    // The SDK raises it, by its name.
    await expect(client.runs.wait(threadId, 'approvals', { command: { resume: 'yes' }, strictResume: true })).rejects.toThrow(
      /^UnknownInterruptError: When there are multiple pending interrupts/,
    );
    const after = await client.threads.get(threadId);
    expect([after.status, after.interrupts]).toEqual(['interrupted', thread.interrupts]);
    expect(await client.threads.getState(threadId)).toEqual(state);
    const [last] = await client.runs.list(threadId, { limit: 1 });
    expect([last?.status, kwargsOf(last)?.strict_resume]).toEqual(['error', true]);
  });

  it('refuses answers by ID that name an interrupt not waiting (not_pending) or none (empty_map); the right ones resume each task', async () => {
    const { threadId, ids } = await twoWaiting();
    const stale = '0123456789abcdef0123456789abcdef';
    const notPending = (await client.runs.wait(threadId, 'approvals', {
      command: { resume: { [ids.legal!]: 'ok', [stale]: 'late' } },
      strictResume: true,
      raiseError: false,
    })) as Values;
    expect(notPending.__error__).toEqual({
      error: 'UnknownInterruptError',
      message: `Unknown or already-consumed interrupt: ${stale}`,
      reason: 'not_pending',
      interrupt_ids: [stale],
      pending_ids: [ids.legal, ids.finance].sort(),
    });
    const empty = (await client.runs.wait(threadId, 'approvals', {
      command: { resume: {}, keyedByInterruptId: true } as never,
      strictResume: true,
      raiseError: false,
    })) as Values;
    expect(empty.__error__).toMatchObject({ reason: 'empty_map', message: 'The resume map names no interrupt', interrupt_ids: [] });

    // One answer by ID: that task goes on, the other waits at the same interrupt, same ID.
    const half = (await client.runs.wait(threadId, 'approvals', {
      command: { resume: { [ids.legal!]: 'legal ok' } },
      strictResume: true,
    })) as Values;
    expect(half.__interrupt__).toEqual([{ value: { question: 'Budget OK?' }, id: ids.finance }]);
    const waiting = await client.threads.getState<Values>(threadId);
    const task = (name: string) => waiting.tasks.find((one) => one.name === name)!;
    expect([task('legal').result, task('finance').result ?? null]).toEqual([{ legal: 'legal ok' }, null]);
    expect(task('finance').interrupts.map((one) => one.id)).toEqual([ids.finance]);
    // The answered interrupt is no longer waiting: naming it again is refused.
    const again = (await client.runs.wait(threadId, 'approvals', {
      command: { resume: { [ids.legal!]: 'twice' } },
      strictResume: true,
      raiseError: false,
    })) as Values;
    expect(again.__error__).toMatchObject({ reason: 'not_pending', interrupt_ids: [ids.legal], pending_ids: [ids.finance] });
    // With one interrupt waiting, one answer is that interrupt's.
    const done = (await client.runs.wait(threadId, 'approvals', { command: { resume: 'budget ok' }, strictResume: true })) as Values;
    expect([done.legal, done.finance, done.messages.at(-1).content]).toEqual(['legal ok', 'budget ok', 'Approved.']);
  });

  it('lets one answer through when no interrupt waits, as LangGraph does, and reads keyedByInterruptId as the SDK means it', async () => {
    const threadId = await newThread('echo');
    await client.runs.wait(threadId, 'echo', { input: ask('hi') });
    const nothingWaits = (await client.runs.wait(threadId, 'echo', { command: { resume: 'x' }, strictResume: true })) as Values;
    expect(nothingWaits).not.toHaveProperty('__error__');

    // keyedByInterruptId: false, an answer keyed by tool call: one answer, whole, even with ID-like keys.
    const { threadId: approvals, ids } = await twoWaiting();
    const whole = { [ids.legal!]: 'yes' };
    const given = (await client.runs.wait(approvals, 'approvals', {
      command: { resume: whole, keyedByInterruptId: false } as never,
    })) as Values;
    expect(lastWire().body.command).toEqual({ resume: whole, keyedByInterruptId: false });
    expect([given.legal, given.finance]).toEqual([whole, whole]);
    const [run] = await client.runs.list(approvals, { limit: 1 });
    expect(kwargsOf(run)?.command).toEqual({ resume: whole, keyedByInterruptId: false });

    // keyedByInterruptId: true with an answer that is not an object is refused.
    const refused = await sdkError(
      client.runs.create(approvals, 'approvals', { command: { resume: 'yes', keyedByInterruptId: true } as never }),
    );
    expect(refused.status).toBe(422);
  });

  it('fails a streamed run with an error event, and accepts strictResume in a batch as the SDK sends it', async () => {
    const { threadId } = await twoWaiting();
    const events = await eventsOf(
      client.runs.stream(threadId, 'approvals', { command: { resume: 'yes' }, strictResume: true, streamMode: 'values' }),
    );
    expect(events.map((event) => event.event)).toEqual(['metadata', 'error']);
    expect(events[1]!.data).toMatchObject({ error: 'UnknownInterruptError', reason: 'ambiguous' });

    const [batched] = await client.runs.createBatch([{ assistantId: 'echo', input: ask('hi'), strictResume: true }]);
    expect(lastWire().body[0]).toMatchObject({ strictResume: true, assistant_id: 'echo' });
    expect(kwargsOf(batched)?.strict_resume).toBe(true);
  });
});

describe('streamNamespaces and checkpointId of streams', () => {
  /** The namespace an event belongs to: what its name carries after the mode, less a message's node task. */
  const namespaceOf = (event: string) => {
    const [mode, ...levels] = event.split('|');
    return (mode === 'messages' ? levels.slice(0, -1) : levels).join('|').replace(/[0-9a-f-]{36}/g, '<id>');
  };

  it('streams only the namespaces asked for: the root, a subgraph by its node, each without what runs inside it', async () => {
    const root = await eventsOf(
      client.runs.stream(await newThread('review'), 'review', {
        input: ask('announce'),
        streamMode: ['updates', 'messages-tuple'],
        streamSubgraphs: true,
        streamNamespaces: [''],
      }),
    );
    expect(wire.findLast((request) => request.path.includes('/runs/stream'))?.path).toMatch(/\/runs\/stream\?namespace=$/);
    expect(new Set(root.map((event) => namespaceOf(event.event)))).toEqual(new Set(['']));
    // A root node's message counts as the root graph's, though its event names the node's task.
    expect(root.map((event) => [event.event.split('|')[0], event.event === 'updates' ? Object.keys(event.data) : undefined])).toEqual([
      ['metadata', undefined],
      ['messages', undefined],
      ['updates', ['plan']],
      ['updates', ['__interrupt__']],
    ]);

    // A subgraph's namespace, named by its node: its events only, its subgraphs turned on for it.
    const review = await eventsOf(
      client.runs.stream(await newThread('review'), 'review', {
        input: ask('announce'),
        streamMode: ['updates'],
        streamNamespaces: ['review'],
      }),
    );
    expect(review.map((event) => [event.event.split('|')[0], namespaceOf(event.event)])).toEqual([
      ['metadata', ''],
      ['updates', 'review:<id>'],
      ['updates', 'review:<id>'],
    ]);
    expect(review.map((event) => event.data).slice(1)).toEqual([
      { write_draft: { draft: 'Draft: ships Friday.' } },
      { __interrupt__: [expect.any(Object)] },
    ]);
  });

  it('keeps the namespaces of a join, and starts a join after the checkpoint the client shows', async () => {
    const threadId = await newThread('review');
    await client.threads.updateState(threadId, { values: { draft: 'none yet' }, asNode: 'plan' });
    const run = await client.runs.create(threadId, 'review', {
      input: ask('announce'),
      streamMode: ['values'],
      streamSubgraphs: true,
      streamResumable: true,
    });
    await client.runs.join(threadId, run.run_id);
    const all = await eventsOf(client.runs.joinStream(threadId, run.run_id, { lastEventId: '-1' }));
    const subgraphOnly = await eventsOf(client.runs.joinStream(threadId, run.run_id, { lastEventId: '-1', streamNamespaces: ['review'] }));
    expect(subgraphOnly).toEqual(all.filter((event) => event.event === 'metadata' || namespaceOf(event.event) === 'review:<id>'));
    expect(subgraphOnly.length).toBeLessThan(all.length);

    // The checkpoint the `plan` step wrote: the events of the later steps only.
    const history = await client.threads.getHistory(threadId, { limit: 100 });
    const afterPlan = history.find((state) => state.next[0] === 'review')!;
    const joined = await eventsOf(
      client.runs.joinStream(threadId, run.run_id, { lastEventId: '-1', checkpointId: afterPlan.checkpoint.checkpoint_id! }),
    );
    expect(wire.findLast((request) => request.path.includes('/stream?'))?.path).toMatch(
      new RegExp(`checkpoint_id=${afterPlan.checkpoint.checkpoint_id}`),
    );
    const planValues = all.findIndex((event) => event.event === 'values' && event.data.messages?.at(-1)?.content === 'Plan.');
    expect(joined).toEqual(all.slice(planValues + 1));
    // A checkpoint the run did not write (the thread's from before it, or none): the whole run; a Last-Event-ID wins.
    const before = history.at(-1)!.checkpoint.checkpoint_id!;
    expect(history.at(-1)!.metadata?.source).toBe('update');
    expect(await eventsOf(client.runs.joinStream(threadId, run.run_id, { lastEventId: '-1', checkpointId: before }))).toEqual(all);
    const unknown = crypto.randomUUID();
    expect(await eventsOf(client.runs.joinStream(threadId, run.run_id, { lastEventId: '-1', checkpointId: unknown }))).toEqual(all);
    const fromEvent = await eventsOf(
      client.runs.joinStream(threadId, run.run_id, { lastEventId: '2', checkpointId: afterPlan.checkpoint.checkpoint_id! }),
    );
    expect(fromEvent).toEqual(all.slice(3));
  });
});

describe('the lifecycle stream mode', () => {
  const summary = (events: { event: string; data: any }[]) =>
    events
      .filter((event) => event.event.startsWith('lifecycle|'))
      .map((event) => [
        event.event.replace(/[0-9a-f-]{36}/g, '<id>'),
        event.data.event,
        event.data.namespace.length,
        event.data.error ?? null,
      ]);

  it('sends an event as each subgraph starts and ends: interrupted, then completed once resumed, or failed', async () => {
    const threadId = await newThread('review');
    const paused = await eventsOf(client.runs.stream(threadId, 'review', { input: ask('announce'), streamMode: ['lifecycle'] }));
    expect(paused.map((event) => event.event.split('|')[0])).toEqual(['metadata', 'lifecycle', 'lifecycle']);
    expect(summary(paused)).toEqual([
      ['lifecycle|review:<id>', 'started', 1, null],
      ['lifecycle|review:<id>', 'interrupted', 1, null],
    ]);
    const [, started] = paused;
    expect(started!.data.namespace).toEqual([started!.event.slice('lifecycle|'.length)]);
    const resumed = await eventsOf(
      client.runs.stream(threadId, 'review', { command: { resume: true }, streamMode: ['lifecycle', 'updates'] }),
    );
    expect(summary(resumed)).toEqual([
      ['lifecycle|review:<id>', 'started', 1, null],
      ['lifecycle|review:<id>', 'completed', 1, null],
    ]);
    const failed = await eventsOf(client.runs.stream(await newThread('audit'), 'audit', { input: ask('go'), streamMode: 'lifecycle' }));
    expect(summary(failed)).toEqual([
      ['lifecycle|audit:<id>', 'started', 1, null],
      ['lifecycle|audit:<id>', 'failed', 1, { error: 'AuditError', message: 'ledger mismatch' }],
    ]);
    expect(failed.at(-1)?.event).toBe('error');
  });
});

describe('the run options SDK 1.15 keeps from before, on the wire as it sends them', () => {
  it('records checkpointDuring, durability, feedbackKeys and a LangSmith tracer, and reports the run it created', async () => {
    const threadId = await newThread('echo');
    const created: { run_id: string; thread_id?: string }[] = [];
    const run = await client.runs.create(threadId, 'echo', {
      input: ask('hi'),
      checkpointDuring: true,
      durability: 'sync',
      feedbackKeys: ['helpful'],
      _langsmithTracer: { projectName: 'support-evals', exampleId: 'ex-7' } as never,
      onRunCreated: (params) => created.push(params),
    });
    expect(lastWire().body).toMatchObject({
      checkpoint_during: true,
      durability: 'sync',
      feedback_keys: ['helpful'],
      langsmith_tracer: { project_name: 'support-evals', example_id: 'ex-7' },
    });
    expect(created).toEqual([{ run_id: run.run_id, thread_id: threadId }]);
    expect(kwargsOf(run)).toMatchObject({ feedback_keys: ['helpful'] });
    expect((kwargsOf(run)!.config as Values).configurable).toMatchObject({
      langsmith_project: 'support-evals',
      langsmith_example_id: 'ex-7',
    });
    await client.runs.join(threadId, run.run_id);
  });

  it('cancels a run whose join (cancelOnDisconnect) the client leaves', async () => {
    const threadId = await newThread('slow');
    const run = await client.runs.create(threadId, 'slow', { input: ask('go') });
    const leave = new AbortController();
    const joined = client.runs.join(threadId, run.run_id, { cancelOnDisconnect: true, signal: leave.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    leave.abort();
    await expect(joined).rejects.toThrow();
    for (let waited = 0; waited < 5_000 && (await client.runs.get(threadId, run.run_id)).status !== 'interrupted'; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await client.runs.get(threadId, run.run_id)).status).toBe('interrupted');
  });
});

describe('/info', () => {
  it('says strict resume and stream namespaces are served', async () => {
    const info = (await (await fetch(`${emulator.agentServerUrl}/info`)).json()) as { flags: Record<string, boolean> };
    expect(info.flags).toMatchObject({ strict_resume: true, stream_namespaces: true });
  });
});
