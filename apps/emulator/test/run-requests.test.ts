// Entries of `runs` told apart by the whole request, as a recording writes them (run-scripts.ts,
// run-requests.ts): the same input with and without a breakpoint, resumed with two values, under
// another config, stateless, cancelled; the thread's place (`continues`); holds of one request used
// in turn; and a request no entry answers refused with what differs from the nearest one.
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import { checkConfig } from '../src/config/config.js';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';
import { sdkClient } from './support/sdk-client.js';

type Values = Record<string, any>;

const ask = (content: string, extra: Values = {}) => ({ messages: [{ role: 'user', content }], ...extra });
const lookup = { name: 'lookup', args: { topic: 'orders' }, id: 'call_lookup' };

/** The helpdesk graph of the reference server, as a recording of a suite of runs writes it. */
const HELPDESK: GraphDefinition = {
  channels: { messages: { reducer: 'messages', default: [] }, ask_first: {}, sleep_ms: {} },
  nodes: ['agent', 'tool'],
  edges: [
    { from: '__start__', to: 'agent' },
    { from: 'agent', to: ['tool', '__end__'], routes: [{ tool_calls: true, to: 'tool' }, { to: '__end__' }] },
    { from: 'tool', to: 'agent' },
  ],
  runs: [
    {
      id: 'asked',
      match: 'where is my order?',
      request: {},
      steps: [
        { node: 'agent', message: { text: 'Let me check that.', tool_calls: [lookup] } },
        { node: 'tool', tools: ['Checked: {{last.ai.content}}'] },
        { node: 'agent', message: { text: 'All done.' } },
      ],
    },
    {
      id: 'stopped',
      match: 'where is my order?',
      request: { interrupt_before: ['tool'] },
      steps: [{ node: 'agent', message: { text: 'Let me check that.', tool_calls: [lookup] } }],
      next: ['tool'],
    },
    {
      continues: 'stopped',
      request: {},
      steps: [
        { node: 'tool', tools: ['Checked: {{last.ai.content}}'] },
        { node: 'agent', message: { text: 'All done.' } },
      ],
    },
    {
      id: 'refund',
      match: 'refund please',
      request: { input: ask('refund please', { ask_first: true }) },
      steps: [{ node: 'agent', interrupt: { question: 'May I go ahead?' } }],
    },
    ...['approved', 'denied'].map((decision) => ({
      continues: 'refund',
      request: { command: { resume: decision } },
      steps: [
        {
          node: 'agent',
          interrupt: { question: 'May I go ahead?' },
          update: { ask_first: false, messages: [{ type: 'ai', content: 'Decision: {{resume}}' }] },
        },
      ],
    })),
    {
      match: 'where is my order?',
      request: { config: { recursion_limit: 2 } },
      steps: [
        { node: 'agent', message: { text: 'Let me check that.', tool_calls: [lookup] } },
        { node: 'tool', tools: ['Checked: {{last.ai.content}}'] },
      ],
    },
    { match: 'where is my order?', request: { stateless: true }, steps: [{ node: 'agent', message: { text: 'Stateless.' } }] },
    // Run through an assistant whose secret the recording redacted: any value of it is that run.
    {
      match: 'with my key',
      request: { config: { configurable: { service_token: '<redacted>', tone: 'warm' } }, stateless: true },
      steps: [{ node: 'agent', message: { text: 'Keyed.' } }],
    },
    // The same request twice, cancelled the first time: the holds are used in turn.
    { match: 'slow', request: {}, steps: [], next: ['agent'], until_cancelled: true },
    { match: 'slow', request: {}, steps: [{ node: 'agent', message: { text: 'Slow done.' } }] },
  ],
};

let emulator: TestEmulator;
let client: Client;

beforeAll(async () => {
  emulator = await startTestEmulator({ graphs: { helpdesk: HELPDESK } });
  client = sdkClient(emulator.agentServerUrl);
});
afterAll(async () => {
  await emulator?.close();
});

const contents = (values: Values) => values.messages.map((message: Values) => message.content);
const newThread = async () => (await client.threads.create()).thread_id;

describe('a recording answers each request as its upstream answered that request', () => {
  it('tells the same input with and without a breakpoint apart, and goes on from where each left the thread', async () => {
    const plain = await newThread();
    expect(contents((await client.runs.wait(plain, 'helpdesk', { input: ask('where is my order?') })) as Values)).toEqual([
      'where is my order?',
      'Let me check that.',
      'Checked: Let me check that.',
      'All done.',
    ]);
    const stopped = await newThread();
    expect(await client.runs.wait(stopped, 'helpdesk', { input: ask('where is my order?'), interruptBefore: ['tool'] })).toEqual({
      __interrupt__: [],
    });
    expect((await client.threads.getState(stopped)).next).toEqual(['tool']);
    // A human edits the AI message: the tool answers from the state it is given.
    const state = await client.threads.getState<Values>(stopped);
    const edited = { ...state.values.messages.at(-1), content: 'modified' };
    await client.threads.updateState(stopped, { values: { messages: [edited] }, asNode: 'agent' });
    expect((await client.threads.getState(stopped)).next).toEqual(['tool']);
    expect(contents((await client.runs.wait(stopped, 'helpdesk', { input: null })) as Values)).toEqual([
      'where is my order?',
      'modified',
      'Checked: modified',
      'All done.',
    ]);
  });

  it('answers a resume with the value it was given, and refuses one the recording does not hold, naming it', async () => {
    for (const decision of ['approved', 'denied']) {
      const thread = await newThread();
      const paused = (await client.runs.wait(thread, 'helpdesk', { input: ask('refund please', { ask_first: true }) })) as Values;
      expect(paused.__interrupt__[0].value).toEqual({ question: 'May I go ahead?' });
      const done = (await client.runs.wait(thread, 'helpdesk', { command: { resume: decision } })) as Values;
      expect(contents(done).at(-1)).toBe(`Decision: ${decision}`);
    }
    const thread = await newThread();
    await client.runs.wait(thread, 'helpdesk', { input: ask('refund please', { ask_first: true }) });
    const refused = (await client.runs.wait(thread, 'helpdesk', { command: { resume: 'maybe' }, raiseError: false })) as Values;
    expect(refused.__error__).toEqual({
      error: 'Error',
      message:
        'No recorded run of graph "helpdesk" answers this command: the nearest, runs[4], differs in command (recorded {"resume":"approved"}, this run {"resume":"maybe"})',
    });
  });

  it('tells runs apart by their config and by being stateless, and fails where the config makes the graph fail', async () => {
    const limited = (await client.runs.wait(await newThread(), 'helpdesk', {
      input: ask('where is my order?'),
      config: { recursion_limit: 2 },
      raiseError: false,
    })) as Values;
    expect(limited.__error__.error).toBe('GraphRecursionError');
    expect(contents((await client.runs.wait(null, 'helpdesk', { input: ask('where is my order?') })) as Values).at(-1)).toBe('Stateless.');
  });

  it('keeps a run cancelled upstream running until it is cancelled, then answers the same request as it was answered next', async () => {
    const thread = await newThread();
    const run = await client.runs.create(thread, 'helpdesk', { input: ask('slow') });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await client.runs.get(thread, run.run_id)).status).toBe('running');
    expect((await client.threads.getState(thread)).next).toEqual(['agent']);
    await client.runs.cancel(thread, run.run_id, true);
    expect((await client.runs.get(thread, run.run_id)).status).toBe('interrupted');
    const again = await newThread();
    expect(contents((await client.runs.wait(again, 'helpdesk', { input: ask('slow') })) as Values).at(-1)).toBe('Slow done.');
  });

  it('tells a hold that went on from one cancelled by what happens next, in whichever order they come', async () => {
    // Waited for (or joined, or queued behind): it goes on, as the hold that went on did.
    const waited = await newThread();
    expect(contents((await client.runs.wait(waited, 'helpdesk', { input: ask('slow') })) as Values).at(-1)).toBe('Slow done.');
    const joined = await newThread();
    const background = await client.runs.create(joined, 'helpdesk', { input: ask('slow') });
    expect(contents((await client.runs.join(joined, background.run_id)) as Values).at(-1)).toBe('Slow done.');
    const queued = await newThread();
    const first = await client.runs.create(queued, 'helpdesk', { input: ask('slow') });
    const second = await client.runs.create(queued, 'helpdesk', { input: null, multitaskStrategy: 'enqueue' });
    await client.runs.join(queued, second.run_id);
    expect((await client.runs.get(queued, first.run_id)).status).toBe('success');
    // Cancelled: it stops where the cancelled hold did.
    const cancelled = await newThread();
    const run = await client.runs.create(cancelled, 'helpdesk', { input: ask('slow') });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.runs.cancel(cancelled, run.run_id, true);
    expect((await client.runs.get(cancelled, run.run_id)).status).toBe('interrupted');
    expect((await client.threads.getState<Values>(cancelled)).values.messages).toHaveLength(1);
  });

  it('takes a redacted secret of the recorded request as any value, and the rest of the config as it is', async () => {
    const keyed = await client.assistants.create({
      graphId: 'helpdesk',
      config: { configurable: { service_token: 'another', tone: 'warm' } },
    });
    expect(contents((await client.runs.wait(null, keyed.assistant_id, { input: ask('with my key') })) as Values).at(-1)).toBe('Keyed.');
    const cold = await client.assistants.create({
      graphId: 'helpdesk',
      config: { configurable: { service_token: 'another', tone: 'cold' } },
    });
    const refused = (await client.runs.wait(null, cold.assistant_id, { input: ask('with my key'), raiseError: false })) as Values;
    expect(refused.__error__.message).toContain(
      'differs in config (recorded {"configurable":{"service_token":"<redacted>","tone":"warm"}}',
    );
  });

  it('refuses a request it does not hold with what differs from the nearest entry', async () => {
    const refused = (await client.runs.wait(await newThread(), 'helpdesk', {
      input: ask('where is my order?'),
      interruptAfter: ['agent'],
      raiseError: false,
    })) as Values;
    expect(refused.__error__.message).toBe(
      'No recorded run of graph "helpdesk" answers this input: the nearest, runs[0] (asked) "where is my order?", differs in interrupt_after (recorded none, this run ["agent"])',
    );
    // A thread whose state the client wrote: no recorded run left it there.
    const written = await client.threads.create({
      graphId: 'helpdesk',
      supersteps: [{ updates: [{ values: { messages: [{ type: 'human', content: 'hi' }] }, asNode: '__start__' }] }],
    });
    const elsewhere = (await client.runs.wait(written.thread_id, 'helpdesk', { input: null, raiseError: false })) as Values;
    expect(elsewhere.__error__.message).toBe(
      'No recorded run of graph "helpdesk" answers this run that goes on (input null): the nearest, runs[2], differs in where the thread stands (recorded: where runs[1] (stopped) "where is my order?" left it, this run: where no recorded run left it)',
    );
    expect(emulator.errors).toEqual([]);
  });
});

describe('the entries of runs, at start-up', () => {
  it('refuses what ties entries wrongly, one line each', () => {
    expect(() =>
      checkConfig({
        graphs: {
          g: {
            nodes: ['a'],
            runs: [
              { id: 'one', steps: [{ node: 'a' }], next: ['b'] },
              { id: 'one', continues: 'two', steps: [] },
              { continues: { run: 'one', step: 3 }, steps: [] },
              { match: 'x', request: { command: { resume: 1 } }, steps: [] },
            ],
          },
        },
      }),
    ).toThrow(
      [
        'config is invalid:',
        '  graphs.g.runs[1].id: one names runs[0] already',
        '  graphs.g.runs[0].next: b is not a node of this graph (nodes)',
        '  graphs.g.runs[1].continues: no entry of runs is named two (id)',
        '  graphs.g.runs[2].continues.step: runs[0] has 1 step(s)',
        '  graphs.g.runs[3].request.command: a run gives a command or an input, not both (match)',
      ].join('\n'),
    );
  });
});
