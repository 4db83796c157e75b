// Graphs of any shape (`nodes`, `edges`, `runs` of steps), through the real LangGraph SDK: which
// run a thread's input picks, what each kind of step does and streams (state writes through their
// reducers, model replies in chunks, custom events, tool answers that read the call's arguments,
// Commands, interrupts, errors of a class of their own, delays), parallel tasks, subgraphs with their
// namespaces and their own checkpoints, breakpoints compiled into a graph, a default assistant's
// settings, the drawing, and the store a step reads and writes. The real server's behaviour for the
// same shapes is held by the record-and-replay differential test; this file holds the format.
import fs from 'node:fs';
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import { checkConfig } from '../src/config/config.js';
import { createEmulator } from '../src/emulator.js';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';
import { expectResumedToolAnswerNamedAsLangGraph } from './support/resumed-tool-answer.js';
import { REVIEW_GRAPH } from './support/run-graphs.js';
import { inProcessClient, sdkClient } from './support/sdk-client.js';

type Values = Record<string, any>;

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

const GRAPHS: Record<string, GraphDefinition> = {
  supervisor: {
    nodes: ['supervisor', 'researcher', 'writer'],
    edges: [
      { from: '__start__', to: 'supervisor' },
      { from: 'supervisor', to: ['researcher', 'writer', '__end__'], conditional: true },
      { from: 'researcher', to: 'supervisor', conditional: true },
      { from: 'writer', to: 'supervisor', conditional: true },
    ],
    runs: [
      {
        match: '*report*',
        steps: [
          { node: 'supervisor', goto: 'researcher' },
          { node: 'researcher', message: { text: 'Notes: tides, salt, gulls.', name: 'researcher' }, goto: 'supervisor' },
          { node: 'supervisor', goto: 'writer' },
          { node: 'writer', message: { text: 'The report.', chunks: ['The', ' report.'] }, goto: 'supervisor' },
          { node: 'supervisor', goto: '__end__' },
        ],
      },
    ],
  },
  parallel: {
    channels: { messages: { reducer: 'messages', default: [] }, results: { reducer: 'append', default: [] }, summary: {} },
    runs: [
      {
        steps: [
          { node: 'plan', update: { messages: [{ type: 'ai', content: 'Searching both.' }] } },
          {
            parallel: [
              { node: 'search_web', delay_ms: 5, update: { results: ['web'] } },
              { node: 'search_docs', delay_ms: 60, update: { results: ['docs'] } },
            ],
          },
          { node: 'summarize', update: { summary: '{{input}}: both' } },
        ],
      },
    ],
  },
  // Two branches whose scripted times are 6 ms apart: one pauses ten times, the other once.
  racing: {
    channels: { results: { reducer: 'append', default: [] } },
    runs: [
      {
        steps: [
          {
            parallel: [
              { node: 'many_pauses', do: Array.from({ length: 10 }, () => ({ delay_ms: 5 })), update: { results: ['many'] } },
              { node: 'one_pause', delay_ms: 56, update: { results: ['one'] } },
            ],
          },
        ],
      },
    ],
  },
  review: REVIEW_GRAPH,
  progress: {
    channels: { work: {} },
    runs: [
      {
        match_input: '*"files":*',
        steps: [{ node: 'work', do: [{ custom: { step: 1 } }, { delay_ms: 5 }, { custom: { step: 2 } }], update: { work: { done: 2 } } }],
      },
    ],
  },
  tool_function: {
    runs: [
      {
        steps: [
          { node: 'agent', message: { text: 'Looking up.', tool_calls: [{ name: 'lookup', args: { order_id: '4512' }, id: 'call_1' }] } },
          { node: 'tool', tools: { lookup: 'Order {{args.order_id}}: shipped' }, tool_events: false },
          { node: 'agent', message: { text: 'It shipped.' } },
        ],
      },
    ],
  },
  failing: {
    channels: { attempts: {} },
    runs: [
      {
        steps: [
          { node: 'prepare', update: { attempts: 1 } },
          { node: 'call_api', delay_ms: 20, error: { name: 'CustomError', message: 'refused' } },
        ],
      },
    ],
  },
  configured: {
    assistant: {
      config: { configurable: { system_prompt: 'Be brief.' }, tags: ['shape'] },
      context: { tier: 'pro' },
      metadata: { team: 'docs' },
    },
    channels: { answer: {} },
    runs: [{ steps: [{ node: 'respond', update: { answer: 'ok' } }] }],
  },
  breakpoint: {
    interrupt_before: ['act'],
    runs: [
      {
        steps: [
          { node: 'decide', message: { text: 'I will act.' } },
          { node: 'act', message: { text: 'Done.' } },
        ],
      },
    ],
  },
  memory: {
    channels: { messages: { reducer: 'messages', default: [] }, remembered: {} },
    runs: [
      {
        match: 'I like *',
        steps: [
          {
            node: 'remember',
            store_put: [{ namespace: ['users', 'alice'], key: 'likes', value: { text: '{{input}}' } }],
            message: { text: 'Noted.' },
          },
        ],
      },
      {
        match: 'What do I like?',
        steps: [
          {
            node: 'recall',
            store_get: [{ namespace: ['users', 'alice'], key: 'likes', as: 'likes' }],
            message: { text: 'You said: {{store.likes.text}}' },
            update: { remembered: '{{store.likes}}' },
          },
        ],
      },
    ],
  },
  // A tool that asks a human first, in a tool node of the root graph (the reference server's `approval`).
  refund_approval: {
    runs: [
      {
        steps: [
          {
            node: 'agent',
            message: { text: 'I will ask for approval.', tool_calls: [{ name: 'refund', args: { order_id: '4512' }, id: 'call_refund' }] },
          },
          {
            node: 'tools',
            interrupt: { question: 'Approve this refund?' },
            tools: { refund: 'Refund of order {{args.order_id}}: approved' },
          },
          { node: 'agent', message: { text: 'The refund request is settled.' } },
        ],
      },
    ],
  },
  approvals: {
    runs: [
      {
        steps: [
          { node: 'plan', update: { messages: [{ type: 'ai', content: 'Plan.' }] } },
          { node: 'confirm', interrupt: { question: 'Go on?' }, update: { messages: [{ type: 'ai', content: 'Confirmed: {{resume}}.' }] } },
          {
            node: 'review',
            subgraph: [
              {
                node: 'check',
                interrupt: { question: 'Publish?' },
                update: { messages: [{ type: 'ai', content: 'Checked: {{resume}}.' }] },
              },
            ],
          },
        ],
      },
    ],
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

async function stream(graphId: string, payload: Values, threadId?: string) {
  const thread = threadId ?? (await client.threads.create({ graphId })).thread_id;
  const events: { event: string; data: any }[] = [];
  for await (const { event, data } of client.runs.stream(thread, graphId, payload as never)) events.push({ event, data });
  return { threadId: thread, events, of: (name: string) => events.filter((event) => event.event === name).map((event) => event.data) };
}

describe('the config of a graph of any shape', () => {
  it('refuses what a graph could not run, one readable line per problem', () => {
    expect(() =>
      checkConfig({
        graphs: {
          both: { replies: [{ text: 'x' }], runs: [] },
          neither: {},
          shaped: {
            nodes: ['a'],
            edges: [{ from: 'a', to: 'b' }],
            channels: { messages: { reducer: 'append' }, list: { reducer: 'append', default: 3 } },
            runs: [
              {
                steps: [
                  { node: 'c', update: { unknown: 1 } },
                  { parallel: [{ node: 'a', update: { one: 1 } }, { node: 'a' }] },
                  { node: 'a', error: 'boom', update: { list: [1] } },
                  { node: 'a', do: [{ delay_ms: 1 }], message: { text: 'x' } },
                  { node: 'a', tool_events: false },
                ],
              },
            ],
          },
        },
      }),
    ).toThrow(
      [
        'config is invalid:',
        '  graphs.both: a graph has replies (the ReAct shorthand) or runs (steps of nodes of any shape), not both',
        '  graphs.neither: a graph has replies (the ReAct shorthand) or runs (steps of nodes of any shape), and this one has neither',
        '  graphs.shaped.channels.list.default: the append reducer needs a list',
        '  graphs.shaped.channels.messages.reducer: append is not allowed; messages is the conversation, which the API types as messages: its reducer is messages (keep other values under another key)',
        '  graphs.shaped.edges[0].to: b is not a node of this graph (nodes)',
        '  graphs.shaped.runs[0].steps[1].parallel: a runs twice in one superstep',
        '  graphs.shaped.runs[0].steps[0].node: c is not a node of this graph (nodes)',
        "  graphs.shaped.runs[0].steps[0].update.unknown: not a key of this graph's state (declare it under state or channels)",
        "  graphs.shaped.runs[0].steps[1].parallel[0].update.one: not a key of this graph's state (declare it under state or channels)",
        '  graphs.shaped.runs[0].steps[2]: error cannot be combined with update: a node that raises writes nothing',
        '  graphs.shaped.runs[0].steps[3]: do cannot be combined with message: write them as do actions, in their order',
        '  graphs.shaped.runs[0].steps[4].tool_events: goes with tools (the tool calls the node answers)',
      ].join('\n'),
    );
  });

  it('refuses a template that names nothing where it is, for a config and for createEmulator alike', async () => {
    const graphs = {
      support: {
        state: { topic: null },
        replies: [
          { text: 'You said {{inptu}}' },
          { text: 'Approved ({{resume}})' },
          { interrupt: { q: 1 }, text: '{{resume}} and {{state.topic}}' },
        ],
        tools: { lookup: '{{args.id}} about {{state.mood}}' },
      },
      shaped: {
        channels: { messages: { reducer: 'messages' }, notes: { reducer: 'append', default: [] } },
        runs: [
          {
            steps: [
              { node: 'a', message: { text: '{{args.id}} {{last.bot.content}}' }, update: { notes: ['{{resume}}'] } },
              { node: 'b', do: [{ custom: '{{resume}}' }, { interrupt: 'ok?' }, { message: { text: '{{ resume }}, {{store.prefs}}' } }] },
              { node: 'c', tools: ['{{args.id}}: {{state.notes.-1}} {{last.ai.tool_calls.0.name}}', '\\{{literal}}'] },
              {
                node: 'd',
                store_get: [{ namespace: ['u'], key: 'k', as: 'prefs' }],
                update: { notes: ['{{store.prefs.lang}}', '{{store.other}}'] },
              },
            ],
          },
        ],
      },
    };
    const problems = [
      '  graphs.support.replies[0].text: {{inptu}} names nothing: a template reads {{input}}, {{resume}}, {{state.<key>}}, {{last.<type>}}, {{args.<name>}} (in a tool answer) or {{store.<as>}} (after store_get); \\{{ is a literal {{',
      '  graphs.support.replies[1].text: {{resume}}: nothing is resumed here (resume is read after an interrupt of the same step)',
      "  graphs.support.tools.lookup: {{state.mood}}: mood is not a key of this graph's state (messages, topic)",
      '  graphs.shaped.runs[0].steps[0].message: {{args.id}}: args are read in a tool answer only (the arguments of the call it answers)',
      '  graphs.shaped.runs[0].steps[0].message: {{last.bot.content}}: last reads the last message of a type: last.message, last.human, last.ai, last.tool, last.system',
      '  graphs.shaped.runs[0].steps[0].update: {{resume}}: nothing is resumed here (resume is read after an interrupt of the same step)',
      '  graphs.shaped.runs[0].steps[1].do[0].custom: {{resume}}: nothing is resumed here (resume is read after an interrupt of the same step)',
      '  graphs.shaped.runs[0].steps[1].do[2].message: {{store.prefs}}: no store_get of this step reads an item as prefs',
      '  graphs.shaped.runs[0].steps[3].update: {{store.other}}: no store_get of this step reads an item as other (it reads prefs)',
    ];
    expect(() => checkConfig({ graphs })).toThrow(['config is invalid:', ...problems].join('\n'));
    await expect(startTestEmulator({ graphs: graphs as never })).rejects.toThrow(['the graphs option is invalid:', ...problems].join('\n'));
  });

  it('fills templates from the state the node is given: a key, the last message of a type, a part by its path', async () => {
    const emulator = await startTestEmulator({
      graphs: {
        echo: {
          channels: { messages: { reducer: 'messages', default: [] }, tags: { reducer: 'append', default: ['a', 'b'] } },
          runs: [
            {
              steps: [
                { node: 'agent', message: { text: 'Calling.', tool_calls: [{ name: 'lookup', args: { topic: '{{input}}' } }] } },
                { node: 'tool', tools: ['{{last.ai.content}} about {{args.topic}}, last tag {{state.tags.-1}}'] },
                {
                  node: 'agent',
                  message: { text: '{{last.tool.content}} / {{last.message.type}} / \\{{input}} / {{state.tags}}' },
                  update: { tags: '{{state.tags}}' },
                },
              ],
            },
          ],
        },
      },
    });
    try {
      const values = (await sdkClient(emulator.agentServerUrl).runs.wait(null, 'echo', { input: ask('orders') })) as Values;
      expect(values.messages.map((message: Values) => message.content)).toEqual([
        'orders',
        'Calling.',
        'Calling. about orders, last tag b',
        'Calling. about orders, last tag b / tool / {{input}} / ["a","b"]',
      ]);
      expect(values.tags).toEqual(['a', 'b', 'a', 'b']);
    } finally {
      await emulator.close();
    }
  });

  it('writes a copy of what a whole template reads: naming its messages leaves the state as stored', async () => {
    const emulator = await startTestEmulator({
      graphs: {
        drafts: {
          channels: { messages: { reducer: 'messages', default: [] }, draft: {} },
          runs: [{ steps: [{ node: 'publish', update: { messages: '{{state.draft}}' } }] }],
        },
      },
    });
    try {
      const client = sdkClient(emulator.agentServerUrl);
      const thread = await client.threads.create();
      // The draft is set once; each run after reads it from the thread's state (the cached latest checkpoint).
      await client.runs.wait(thread.thread_id, 'drafts', { input: { draft: { type: 'ai', content: 'Published.' } } });
      const values = (await client.runs.wait(thread.thread_id, 'drafts', { input: {} })) as Values;
      // A message without an ID gets a new one each time it is written, as LangGraph's reducer gives it.
      const ids = values.messages.map((message: Values) => message.id);
      expect(values.messages.map((message: Values) => message.content)).toEqual(['Published.', 'Published.']);
      expect(new Set(ids).size).toBe(2);
      expect((await client.threads.getState<Values>(thread.thread_id)).values.draft).toEqual({ type: 'ai', content: 'Published.' });
    } finally {
      await emulator.close();
    }
  });

  it('refuses routes that could not pick, naming the branch', () => {
    const edge = (routes: unknown[], extra: Record<string, unknown> = {}) => ({
      graphs: {
        g: { channels: { messages: { reducer: 'messages' } }, edges: [{ from: 'a', to: ['b', '__end__'], routes, ...extra }], runs: [] },
      },
    });
    const refusal = (config: unknown) => {
      try {
        checkConfig(config);
        return '';
      } catch (error) {
        return (error as Error).message.split('\n').slice(1).join('\n');
      }
    };
    expect(refusal(edge([{ tool_calls: true, to: 'c' }, { to: '__end__' }]))).toBe(
      "  graphs.g.edges[0].routes[0].to: c is not one of this edge's targets (b, __end__)",
    );
    expect(refusal(edge([{ to: 'b' }, { tool_calls: false, to: '__end__' }]))).toBe(
      [
        '  graphs.g.edges[0].routes[0]: a branch without a condition is the default, and comes last (the branches after it never hold)',
        '  graphs.g.edges[0].routes: the last branch is the default, without a condition (where the graph goes when no other holds)',
      ].join('\n'),
    );
    expect(
      refusal(
        edge([
          { value: '{{state.mood}}', to: 'b' },
          { equals: 1, to: '__end__' },
        ]),
      ),
    ).toBe(
      [
        '  graphs.g.edges[0].routes[0]: value goes with one test: equals, in, matches or empty',
        "  graphs.g.edges[0].routes[0].value: {{state.mood}}: mood is not a key of this graph's state (messages)",
        '  graphs.g.edges[0].routes[1]: equals tests a value: add value (a template)',
        '  graphs.g.edges[0].routes: the last branch is the default, without a condition (where the graph goes when no other holds)',
      ].join('\n'),
    );
    expect(refusal(edge([{ tool_calls: true, value: '{{input}}', equals: 'x', to: 'b' }, { to: '__end__' }], { conditional: false }))).toBe(
      [
        '  graphs.g.edges[0].routes: routes go with a conditional edge (remove conditional: false)',
        '  graphs.g.edges[0].routes[0]: tool_calls is a condition of its own (not with value, equals)',
      ].join('\n'),
    );
  });

  it('names the field of a schema problem in a step', () => {
    expect(() => checkConfig({ graphs: { g: { runs: [{ steps: [{ node: 'a', mesage: { text: 'x' } }] }] } } })).toThrow(
      /graphs\.g\.runs\[0\]\.steps\[0\]\.mesage: unknown key/,
    );
    expect(() => checkConfig({ graphs: { g: { runs: [{ steps: [{ node: '__end__' }] }] } } })).toThrow(
      /graphs\.g\.runs\[0\]\.steps\[0\]\.node/,
    );
  });
});

describe('runs of a graph of any shape', () => {
  it('routes with Commands: each node in turn, its update, no router, the replies in their chunks', async () => {
    const { threadId, of } = await stream('supervisor', {
      input: ask('Write a report'),
      streamMode: ['updates', 'events', 'messages-tuple'],
    });
    expect(of('updates').map((update) => Object.keys(update)[0])).toEqual([
      'supervisor',
      'researcher',
      'supervisor',
      'writer',
      'supervisor',
    ]);
    expect(of('updates')[0]).toEqual({ supervisor: {} });
    const events = of('events');
    expect(events.some((event) => event.name === 'RunnableLambda')).toBe(false);
    expect(events.find((event) => event.event === 'on_chain_end' && event.name === 'supervisor').data.output).toEqual({
      lg_name: 'Command',
      goto: ['researcher'],
    });
    expect(of('messages').map(([chunk]) => chunk.content)).toEqual(['Notes:', ' tides,', ' salt,', ' gulls.', 'The', ' report.']);
    const state = await client.threads.getState<Values>(threadId);
    expect(state.values.messages.map((message: Values) => [message.type, message.name ?? null])).toEqual([
      ['human', null],
      ['ai', 'researcher'],
      ['ai', null],
    ]);
    // A node that only routed records no result, as LangGraph's history keeps it.
    const history = await client.threads.getHistory(threadId, { limit: 20 });
    const routed = history.flatMap((entry) => entry.tasks).filter((task) => task.name === 'supervisor');
    expect(routed.map((task) => task.result)).toEqual([null, null, null]);
  });

  it('runs parallel tasks side by side: updates as they end, writes in the order of their names, one checkpoint', async () => {
    const { threadId, of } = await stream('parallel', { input: ask('compare'), streamMode: ['updates', 'values', 'tasks'] });
    expect(of('updates').map((update) => Object.keys(update)[0])).toEqual(['plan', 'search_web', 'search_docs', 'summarize']);
    expect(
      of('tasks')
        .filter((task) => 'input' in task)
        .map((task) => task.name),
    ).toEqual(['plan', 'search_docs', 'search_web', 'summarize']);
    const state = await client.threads.getState<Values>(threadId);
    expect(state.values.results).toEqual(['docs', 'web']);
    expect(state.values.summary).toBe('compare: both');
    const history = await client.threads.getHistory(threadId, { limit: 20 });
    const fanOut = history.find((entry) => entry.next.length === 2)!;
    // The state lists the two tasks in the order they ended, each with what it wrote.
    expect(fanOut.next).toEqual(['search_web', 'search_docs']);
    expect(fanOut.tasks.map((task) => task.result)).toEqual([{ results: ['web'] }, { results: ['docs'] }]);
    // The input, `__start__`, plan, the two searches at once, summarize.
    expect(history).toHaveLength(5);
  });

  it('ends parallel tasks in the order of their scripted time, though timers fire late on a loaded machine', async () => {
    // The event loop held 4 ms of every 5: each of many_pauses' ten timers fires late, one_pause's
    // one timer once, so by the clock many_pauses (50 ms scripted) finishes after one_pause (56 ms).
    const busy = setInterval(() => {
      const until = performance.now() + 4;
      while (performance.now() < until);
    }, 1);
    try {
      const { threadId, of } = await stream('racing', { input: {}, streamMode: ['updates', 'tasks'] });
      expect(of('updates').map((update) => Object.keys(update)[0])).toEqual(['many_pauses', 'one_pause']);
      expect(
        of('tasks')
          .filter((task) => 'result' in task)
          .map((task) => task.name),
      ).toEqual(['many_pauses', 'one_pause']);
      const history = await client.threads.getHistory(threadId, { limit: 5 });
      expect(history.find((entry) => entry.next.length === 2)!.next).toEqual(['many_pauses', 'one_pause']);
    } finally {
      clearInterval(busy);
    }
  });

  it('pauses inside a subgraph, streams its namespace, keeps its checkpoints, and goes on when resumed', async () => {
    const { threadId, events } = await stream('review', {
      input: ask('announce'),
      streamMode: ['values', 'updates'],
      streamSubgraphs: true,
    });
    const namespaces = [...new Set(events.map((event) => event.event).filter((name) => name.includes('|')))];
    expect(namespaces.map((name) => name.replace(/[0-9a-f-]{36}/g, '<id>')).sort()).toEqual([
      'checkpoints|review:<id>',
      'updates|review:<id>',
      'values|review:<id>',
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'values', data: { __interrupt__: [{ value: { question: 'Publish?' } }] } });
    expect((await client.threads.get(threadId)).status).toBe('interrupted');

    const waiting = await client.threads.getState(threadId);
    const task = waiting.tasks[0]!;
    expect(task.name).toBe('review');
    expect(task.interrupts[0]?.value).toEqual({ question: 'Publish?' });
    const namespace = (task.checkpoint as { checkpoint_ns: string }).checkpoint_ns;
    expect(namespace).toBe(`review:${task.id}`);
    const inside = await client.threads.getState<Values>(threadId, undefined, { subgraphs: true });
    const subgraph = inside.tasks[0]!.state as { values: Values; next: string[] };
    expect(subgraph.values.draft).toBe('Draft: ships Friday.');
    expect(subgraph.next).toEqual(['human_review']);
    const subgraphHistory = await client.threads.getHistory(threadId, { checkpoint: { checkpoint_ns: namespace } as never, limit: 10 });
    expect(subgraphHistory.map((entry) => entry.metadata?.step)).toEqual([1, 0, -1]);

    const done = (await client.runs.wait(threadId, 'review', { command: { resume: true } })) as Values;
    expect(done.approved).toBe(true);
    expect(done.messages.at(-1).content).toBe('Published (announce).');
    expect((await client.threads.get(threadId)).status).toBe('idle');
  });

  it("names the messages a node returns without an ID as LangGraph JS does: the stream handler's name while a messages mode streams, but not in a root task resumed after an interrupt", async () => {
    const idsAfter = async (streamMode: string[]) => {
      const { threadId } = await stream('approvals', { input: ask('go'), streamMode });
      await stream('approvals', { command: { resume: 'yes' }, streamMode }, threadId);
      await stream('approvals', { command: { resume: 'ok' }, streamMode }, threadId);
      const state = await client.threads.getState<Values>(threadId);
      const made = state.values.messages.filter((message: Values) => message.type === 'ai');
      return Object.fromEntries(made.map((message: Values) => [message.content, message.id]));
    };
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    // The differential suite holds each against the LangGraph JS server: a root task (helpdesk),
    // a subgraph's task resumed (subgraph_interrupt), a root task resumed (helpdesk, ask_first).
    expect(await idsAfter(['values', 'messages-tuple'])).toEqual({
      'Plan.': expect.stringMatching(/^run-[0-9a-f-]{36}$/),
      'Checked: ok.': expect.stringMatching(/^run-[0-9a-f-]{36}$/),
      'Confirmed: yes.': expect.stringMatching(uuid),
    });
    // Without a messages mode, the reducer names them all.
    expect(await idsAfter(['values'])).toEqual({
      'Plan.': expect.stringMatching(uuid),
      'Checked: ok.': expect.stringMatching(uuid),
      'Confirmed: yes.': expect.stringMatching(uuid),
    });
  });

  it("names a tool node's answer resumed after its interrupt as LangGraph JS does: in the thread and the messages mode while one streams, never in on_tool_end", async () => {
    // The reference-shape suite holds the same against the LangGraph JS server (its `approval` graph).
    await expectResumedToolAnswerNamedAsLangGraph(client, 'refund_approval');
  });

  it('sends custom events as the node writes them, and picks a run by its input as JSON', async () => {
    const { of } = await stream('progress', { input: { files: 3 }, streamMode: ['custom', 'values'] });
    expect(of('custom')).toEqual([{ step: 1 }, { step: 2 }]);
    expect(of('values').at(-1)).toEqual({ work: { done: 2 } });
    // Unwritten keys are absent from values until written, as LangGraph leaves a channel out.
    expect(of('values')[0]).toEqual({});
    const refused = (await client.runs.wait(null, 'progress', { input: { other: 1 }, raiseError: false })) as Values;
    expect(refused.__error__).toEqual({ error: 'Error', message: 'No scripted run of graph "progress" matches the input {"other":1}' });
  });

  it('answers tool calls by their arguments, as a plain function (no tool events)', async () => {
    const { threadId, of } = await stream('tool_function', { input: ask('where is it?'), streamMode: ['tools', 'values'] });
    expect(of('tools')).toEqual([]);
    const state = await client.threads.getState<Values>(threadId);
    expect(state.values.messages.map((message: Values) => message.content)).toEqual([
      'where is it?',
      'Looking up.',
      'Order 4512: shipped',
      'It shipped.',
    ]);
    expect(state.values.messages[2]).toMatchObject({ type: 'tool', tool_call_id: 'call_1', name: 'lookup' });
  });

  it('fails with the error class and message the step names, once its node has worked', async () => {
    const { threadId, events } = await stream('failing', { input: {}, streamMode: ['values'] });
    expect(events.at(-1)).toEqual({ event: 'error', data: { error: 'CustomError', message: 'refused' } });
    const state = await client.threads.getState<Values>(threadId);
    expect(state.next).toEqual(['call_api']);
    expect(state.tasks[0]!.error).toBe('refused');
    expect(state.values).toEqual({ attempts: 1 });
  });

  it("gives the default assistant the graph's config, context and metadata, and every run its config", async () => {
    const assistant = await client.assistants.get('configured');
    expect(assistant.config).toEqual({ configurable: { system_prompt: 'Be brief.' }, tags: ['shape'] });
    expect(assistant.context).toEqual({ tier: 'pro' });
    expect(assistant.metadata).toEqual({ team: 'docs', created_by: 'system' });
    const { threadId, of } = await stream('configured', { input: {}, streamMode: ['events'] });
    expect(of('events')[0].tags).toEqual(['shape']);
    const state = await client.threads.getState(threadId);
    expect(state.metadata?.system_prompt).toBe('Be brief.');
  });

  it('stops at a breakpoint compiled into the graph, and input null goes on', async () => {
    const { threadId } = await stream('breakpoint', { input: ask('go') });
    expect((await client.threads.getState(threadId)).next).toEqual(['act']);
    const done = (await client.runs.wait(threadId, 'breakpoint', { input: null })) as Values;
    expect(done.messages.at(-1).content).toBe('Done.');
  });

  it('writes to the store with its step, and a later run reads it back', async () => {
    const { threadId } = await stream('memory', { input: ask('I like tea') });
    expect(await client.store.getItem(['users', 'alice'], 'likes')).toMatchObject({ value: { text: 'I like tea' } });
    const recalled = (await client.runs.wait(threadId, 'memory', { input: ask('What do I like?') })) as Values;
    expect(recalled.messages.at(-1).content).toBe('You said: I like tea');
    expect(recalled.remembered).toEqual({ text: 'I like tea' });
  });

  it('computes next from the routers the config writes, after supersteps and state updates, as LangGraph runs them', async () => {
    const emulator = await startTestEmulator({
      graphs: {
        helpdesk: {
          channels: { messages: { reducer: 'messages', default: [] }, mood: {} },
          nodes: ['agent', 'tool', 'escalate'],
          edges: [
            { from: '__start__', to: 'agent' },
            {
              from: 'agent',
              to: ['tool', 'escalate', '__end__'],
              routes: [
                { tool_calls: true, to: 'tool' },
                { value: '{{state.mood}}', in: ['angry', 'upset'], to: 'escalate' },
                { value: '{{last.message.content}}', matches: '*human*', to: 'escalate' },
                { to: '__end__' },
              ],
            },
            { from: 'tool', to: 'agent' },
            { from: 'escalate', to: '__end__' },
          ],
          runs: [],
        },
      },
    });
    try {
      const client = sdkClient(emulator.agentServerUrl);
      const { thread_id } = await client.threads.create({
        graphId: 'helpdesk',
        supersteps: [
          { updates: [{ values: { messages: [{ type: 'human', content: 'hi', id: 'h1' }] }, asNode: '__input__' }] },
          { updates: [{ values: null, asNode: '__start__' }] },
          {
            updates: [
              {
                values: { messages: [{ type: 'ai', content: 'calling', id: 'a1', tool_calls: [{ name: 'lookup', args: {}, id: 'c1' }] }] },
                asNode: 'agent',
              },
            ],
          },
        ],
      });
      const next = async () => (await client.threads.getState(thread_id)).next;
      expect(await next()).toEqual(['tool']);
      await client.threads.updateState(thread_id, {
        values: { messages: [{ type: 'ai', content: 'no tools', id: 'a1' }] },
        asNode: 'agent',
      });
      expect(await next()).toEqual([]);
      await client.threads.updateState(thread_id, { values: { mood: 'upset' }, asNode: 'agent' });
      expect(await next()).toEqual(['escalate']);
      await client.threads.updateState(thread_id, {
        values: { mood: 'calm', messages: [{ type: 'ai', content: 'a human will call', id: 'a2' }] },
      });
      expect(await next()).toEqual(['escalate']);
      await client.threads.updateState(thread_id, {
        values: { messages: [{ type: 'tool', content: 'x', tool_call_id: 'c1', id: 't1' }] },
        asNode: 'tool',
      });
      expect(await next()).toEqual(['agent']);
      const history = await client.threads.getHistory(thread_id);
      expect(history.map((state) => state.next)).toEqual([['agent'], ['escalate'], ['escalate'], [], ['tool'], ['agent'], ['__start__']]);
    } finally {
      await emulator.close();
    }
  });

  it('applies an update as a node: next by its fixed edges, or where the script goes after a router', async () => {
    const threadId = (await client.threads.create({ graphId: 'parallel' })).thread_id;
    await client.threads.updateState(threadId, { values: { summary: 'x' }, asNode: 'plan' });
    // `plan` fans out by fixed edges (read from the runs): both searches run next.
    expect((await client.threads.getState(threadId)).next.sort()).toEqual(['search_docs', 'search_web']);
  });
});

describe('what an assistant says of a graph of any shape', () => {
  it('draws the declared nodes and edges, and with xray the subgraph nodes in their place', async () => {
    const drawing = await client.assistants.getGraph('supervisor');
    expect(drawing.nodes.map((node) => node.id)).toEqual(['__start__', 'supervisor', 'researcher', 'writer', '__end__']);
    expect(drawing.edges).toContainEqual({ source: 'supervisor', target: '__end__', conditional: true });
    const xray = await client.assistants.getGraph('review', { xray: true });
    expect(xray.nodes.map((node) => node.id)).toEqual([
      '__start__',
      'plan',
      'review:write_draft',
      'review:human_review',
      'publish',
      '__end__',
    ]);
    expect(await client.assistants.getSubgraphs('review')).toHaveProperty('review');
  });

  it('lists the channels as the state schema, with their defaults', async () => {
    const schemas = await client.assistants.getSchemas('parallel');
    expect(schemas.state_schema).toMatchObject({
      properties: { messages: { type: 'array', default: [] }, results: { default: [] }, summary: {} },
    });
  });
});

describe('timing', () => {
  it('scales every pause of a graph with timeScale', async () => {
    const slow: Record<string, GraphDefinition> = {
      slow: { runs: [{ steps: [{ node: 'work', delay_ms: 600_000, message: { text: 'done' } }] }] },
    };
    const fast = createEmulator({ graphs: slow, timeScale: 0 });
    const fastClient = inProcessClient(fast);
    const done = (await fastClient.runs.wait(null, 'slow', { input: {} })) as Values;
    expect(done.messages.at(-1).content).toBe('done');
    fast.close();
  });

  it('sets no timer for a pause scaled to nothing: the run goes on in the same turn', async () => {
    // A replay at --time-scale 0 must cost what the same graph without pauses costs: a pause that
    // went through setTimeout(0) would leave the turn, and the commit, its steps share (E16).
    const steps = (pauses: boolean) => [
      { node: 'plan', do: [...(pauses ? [{ delay_ms: 120 }] : []), { custom: { stage: 'planning' } }] },
      {
        node: 'answer',
        message: { text: 'Three words here.', chunks: ['Three', ' words', ' here.'], ...(pauses ? { delay_ms: 40 } : {}) },
      },
    ];
    const graphs: Record<string, GraphDefinition> = {
      paused: { runs: [{ steps: steps(true) }] },
      unpaused: { runs: [{ steps: steps(false) }] },
    };
    const fast = createEmulator({ graphs, timeScale: 0 });
    const fastClient = inProcessClient(fast);
    const timersOf = async (graphId: string) => {
      const timers = vi.spyOn(globalThis, 'setTimeout');
      try {
        for await (const _ of fastClient.runs.stream(null, graphId, { input: {}, streamMode: ['messages-tuple', 'custom'] }));
        return timers.mock.calls.length;
      } finally {
        timers.mockRestore();
      }
    };
    try {
      await timersOf('unpaused');
      expect(await timersOf('paused')).toBe(await timersOf('unpaused'));
    } finally {
      fast.close();
    }
  });
});

describe("the README's graph of any shape", () => {
  it('holds the conversation the README describes, as its steps say', async () => {
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const at = readme.indexOf('\n## Graphs of any shape\n');
    expect(at, 'the README has a "## Graphs of any shape" section').toBeGreaterThan(0);
    const example = readme.slice(at).match(/```yaml\n([\s\S]*?)```/)?.[1];
    expect(example, 'its first YAML block').toBeDefined();
    const config = checkConfig(YAML.parse(example!));
    const emulator = createEmulator({ config, timeScale: 0 });
    const readmeClient = inProcessClient(emulator);
    try {
      const { thread_id } = await readmeClient.threads.create();
      const seen: [string, unknown][] = [];
      for await (const { event, data } of readmeClient.runs.stream(thread_id, 'research', {
        input: ask('write a report'),
        streamMode: ['custom', 'updates'],
      }))
        if (event !== 'metadata') seen.push([event, event === 'updates' ? Object.keys(data as Values) : data]);
      // The supervisor's Command, the researcher's custom event and reply, the parallel step (its
      // updates as each ends: with no pauses, in the order the tasks started), then the subgraph's interrupt.
      expect(seen).toEqual([
        ['updates', ['supervisor']],
        ['custom', { stage: 'searching' }],
        ['updates', ['researcher']],
        ['updates', ['supervisor']],
        ['updates', ['writer']],
        ['updates', ['__interrupt__']],
      ]);
      const paused = await readmeClient.threads.getState<Values>(thread_id);
      expect(paused.next).toEqual(['review']);
      expect(paused.tasks[0]?.interrupts[0]?.value).toEqual({ question: 'Publish this draft?' });
      expect(paused.values.notes).toEqual(['three sources', 'outlined']);

      const done = (await readmeClient.runs.wait(thread_id, 'research', { command: { resume: true } })) as Values;
      expect(done).toMatchObject({ approved: true, draft: 'The moon raises the tides.', notes: ['three sources', 'outlined'] });
      expect(done.messages.map((message: Values) => [message.type, message.content])).toEqual([
        ['human', 'write a report'],
        ['ai', 'Found three sources.'],
        ['ai', 'Published (write a report).'],
      ]);

      const order = (await readmeClient.runs.wait(null, 'research', { input: ask('where is my order?'), raiseError: false })) as Values;
      expect(order.__error__).toEqual({ error: 'QuotaError', message: 'No more orders today' });
    } finally {
      emulator.close();
    }
  });
});
