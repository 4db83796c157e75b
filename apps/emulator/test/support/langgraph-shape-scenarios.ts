// Conversations with real LangGraph JS graphs of several shapes (reference-servers/langgraph-js/
// src/shapes: a supervisor with two workers, a subgraph with an interrupt inside it, parallel
// branches, custom events, a plain-function tool node, an error of a custom class, a default
// assistant with a config, a router on a state key into a subgraph with a breakpoint compiled into
// it, a subgraph inside a subgraph, and an agent asking a human first). The differential test holds each on the real server
// through `agentplane-emulator record`, then on the emulator replaying the recording, and compares
// what they observed: every stream mode (one stream asks for all of them; each mode's events
// compared in their order), with and without subgraphs, the answers of wait and join, the state
// and the whole history.
//
// APP_SUITE is a test suite of an app's own, written against the real server: it must pass
// against the replay unchanged.
import assert from 'node:assert/strict';
import type { Client } from '@langchain/langgraph-sdk';
import type { Scenario } from './langgraph-scenarios.js';

type Values = Record<string, any>;
type Turn = { input: Values } | { command: Values };

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

/** Every stream mode of the SDK but the legacy `messages`, which LangGraph's JS server does not send with subgraphs. */
const ALL_MODES = ['values', 'updates', 'messages-tuple', 'custom', 'tasks', 'checkpoints', 'debug', 'tools', 'events'];

/** The conversations, by graph: the turns each run takes, and whether the graph has subgraphs (streamed with and without them). */
export const SHAPE_CONVERSATIONS: Record<string, { turns: Turn[]; subgraphs?: boolean; config?: Values }> = {
  supervisor: { turns: [{ input: ask('Write a short report on the moon') }] },
  parallel: { turns: [{ input: ask('Compare the docs and the web') }] },
  subgraph_interrupt: { turns: [{ input: ask('Announce the new release') }, { command: { resume: 'yes' } }], subgraphs: true },
  custom_events: { turns: [{ input: ask('Process the files') }] },
  tool_function: { turns: [{ input: ask('Where are my orders?') }] },
  custom_error: { turns: [{ input: { delay_ms: 150 } }] },
  configured: { turns: [{ input: { question: 'What is the capital of France?' } }] },
  travel: {
    turns: [{ input: { messages: [{ type: 'human', content: "What's the weather in Oslo?" }] } }, { input: null as never }],
    subgraphs: true,
  },
  nested: { turns: [{ input: ask('My printer is on fire') }], subgraphs: true },
  helpdesk: { turns: [{ input: { ...ask('A refund, please'), ask_first: true } }, { command: { resume: 'approved' } }] },
};

type StreamEvent = { event: string; data: unknown };

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const { event, data } of stream) events.push({ event, data });
  return events;
}

/**
 * A stream's events by mode, each mode's in order; the chunks of parallel branches, which
 * interleave as their timing falls on either server, in order within each node.
 */
function byMode(events: StreamEvent[]): Record<string, StreamEvent[]> {
  const modes: Record<string, StreamEvent[]> = {};
  for (const event of events) {
    const mode = event.event.split('|')[0]!;
    modes[mode] = [...(modes[mode] ?? []), event];
  }
  const nodeOf = (event: StreamEvent) => {
    const data = event.data as any;
    return String((Array.isArray(data) ? data[1]?.langgraph_node : data?.metadata?.langgraph_node) ?? '');
  };
  for (const mode of ['messages', 'events']) {
    const list = modes[mode];
    if (!list) continue;
    // Stable: the order within a node is kept; nodes of one step (parallel) come by name.
    const stepOf = (event: StreamEvent) =>
      Number((Array.isArray(event.data) ? (event.data as any)[1]?.langgraph_step : (event.data as any)?.metadata?.langgraph_step) ?? -1);
    const inStep = list.map((event, i) => ({ event, i, step: stepOf(event), node: nodeOf(event) }));
    inStep.sort((a, b) =>
      a.step !== b.step || a.step < 0 || b.step < 0 ? a.i - b.i : a.node < b.node ? -1 : a.node > b.node ? 1 : a.i - b.i,
    );
    modes[mode] = inStep.map((entry) => entry.event);
  }
  return modes;
}

/** A graph's conversation, streamed in every mode on a thread of its own (and with subgraphs too), then waited and joined. */
export function shapeScenario(graphId: string): Scenario {
  const { turns, subgraphs } = SHAPE_CONVERSATIONS[graphId]!;
  return async (client, tag) => {
    const observed: Values = {};
    for (const withSubgraphs of subgraphs ? [false, true] : [false]) {
      const threadId = (await client.threads.create({ metadata: { graph_id: graphId, suite: tag } })).thread_id;
      const runs = [];
      for (const turn of turns)
        runs.push(
          byMode(
            await collect(
              client.runs.stream(threadId, graphId, { ...turn, streamMode: ALL_MODES as never, streamSubgraphs: withSubgraphs }),
            ),
          ),
        );
      const state = await client.threads.getState(threadId);
      const history = await client.threads.getHistory(threadId, { limit: 100 });
      observed[withSubgraphs ? 'streamedWithSubgraphs' : 'streamed'] = { runs, state, history };
    }
    // The same turns waited for, then one created and joined.
    const waitedOn = (await client.threads.create({ metadata: { graph_id: graphId, suite: tag } })).thread_id;
    const waited = [];
    for (const turn of turns) waited.push(await client.runs.wait(waitedOn, graphId, { ...turn, raiseError: false }));
    const joinedOn = (await client.threads.create({ metadata: { graph_id: graphId, suite: tag } })).thread_id;
    const joined = [];
    for (const turn of turns) {
      const run = await client.runs.create(joinedOn, graphId, turn);
      joined.push(await client.runs.join(joinedOn, run.run_id));
    }
    observed.waited = { answers: waited, state: await client.threads.getState(waitedOn), thread: await client.threads.get(waitedOn) };
    observed.joined = { answers: joined };
    return observed;
  };
}

export const SHAPE_SCENARIOS: Record<string, Scenario> = Object.fromEntries(
  Object.keys(SHAPE_CONVERSATIONS).map((graphId) => [`shape ${graphId}`, shapeScenario(graphId)]),
);

/**
 * An app's own test suite, written against the real server (in the manner of the LangGraph JS
 * server's api.test.mts): each test talks to the graphs through the SDK and asserts what the app
 * relies on. It must pass against the upstream through the recorder, and unchanged against the
 * emulator replaying what the recorder wrote.
 */
export const APP_SUITE: Record<string, (client: Client) => Promise<void>> = {
  'the supervisor routes to the researcher, then the writer, and the writer answers': async (client) => {
    const { thread_id } = await client.threads.create();
    const nodes: string[] = [];
    for await (const chunk of client.runs.stream(thread_id, 'supervisor', {
      input: ask('Write a short report on the moon'),
      streamMode: 'updates',
    }))
      if (chunk.event === 'updates') nodes.push(...Object.keys(chunk.data as Values));
    assert.deepEqual(nodes, ['supervisor', 'researcher', 'supervisor', 'writer', 'supervisor']);
    const state = await client.threads.getState<Values>(thread_id);
    assert.equal(state.values.messages.length, 3);
    assert.equal(state.next.length, 0);
  },
  'parallel branches both write results, and the summary reads both': async (client) => {
    const values = (await client.runs.wait(null, 'parallel', { input: ask('Compare the docs and the web') })) as Values;
    assert.equal(values.results.length, 2);
    assert.match(values.summary, /^2 sources: /);
  },
  'a subgraph pauses for review, names its namespace in the stream, and publishes once resumed': async (client) => {
    const { thread_id } = await client.threads.create();
    const namespaces = new Set<string>();
    for await (const chunk of client.runs.stream(thread_id, 'subgraph_interrupt', {
      input: ask('Announce the new release'),
      streamMode: ['values'],
      streamSubgraphs: true,
    }))
      if (chunk.event.includes('|')) namespaces.add(chunk.event.split('|')[1]!.split(':')[0]!);
    assert.deepEqual([...namespaces], ['review']);
    const thread = await client.threads.get(thread_id);
    assert.equal(thread.status, 'interrupted');
    const state = await client.threads.getState(thread_id);
    assert.deepEqual(state.next, ['review']);
    assert.equal(state.tasks[0]?.interrupts[0]?.value && typeof state.tasks[0].interrupts[0].value, 'object');
    const after = (await client.runs.wait(thread_id, 'subgraph_interrupt', { command: { resume: 'yes' } })) as Values;
    assert.equal(after.approved, true);
    assert.equal((await client.threads.get(thread_id)).status, 'idle');
  },
  'custom progress events arrive in order before the work is written': async (client) => {
    const { thread_id } = await client.threads.create();
    const progress: unknown[] = [];
    for await (const chunk of client.runs.stream(thread_id, 'custom_events', {
      input: ask('Process the files'),
      streamMode: ['custom', 'updates'],
    }))
      if (chunk.event === 'custom') progress.push(chunk.data);
    assert.ok(progress.length >= 3);
    assert.deepEqual(
      progress.filter((event): event is Values => typeof event === 'object').map((event) => event.step),
      [1, 2, 3],
    );
  },
  'the tool answers each call by its arguments': async (client) => {
    const values = (await client.runs.wait(null, 'tool_function', { input: ask('Where are my orders?') })) as Values;
    const tools = values.messages.filter((message: Values) => message.type === 'tool').map((message: Values) => message.content);
    assert.deepEqual(tools, ['Order 4512: shipped on Monday', 'Order 7781: waiting for stock']);
  },
  'a failing call names its own error class, after working a while': async (client) => {
    const { thread_id } = await client.threads.create();
    const started = Date.now();
    let error: Values | undefined;
    for await (const chunk of client.runs.stream(thread_id, 'custom_error', { input: { delay_ms: 150 } }))
      if (chunk.event === 'error') error = chunk.data as Values;
    assert.equal(error?.error, 'CustomError');
    assert.ok(Date.now() - started >= 100, 'the run failed before its node had worked');
    assert.equal((await client.threads.get(thread_id)).status, 'error');
  },
  "the default assistant's config and context reach the graph": async (client) => {
    const assistant = await client.assistants.get('configured');
    assert.equal((assistant.config as Values).configurable.system_prompt, 'Answer in one sentence.');
    const values = (await client.runs.wait(null, 'configured', { input: { question: 'What is the capital of France?' } })) as Values;
    assert.match(values.answer, /^\[scripted-large, pro\] Answer in one sentence\./);
  },
  'a breakpoint inside a subgraph stops the run, and input null goes on': async (client) => {
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, 'travel', { input: { messages: [{ type: 'human', content: "What's the weather in Oslo?" }] } });
    assert.equal((await client.threads.get(thread_id)).status, 'interrupted');
    const done = (await client.runs.wait(thread_id, 'travel', { input: null })) as Values;
    assert.equal(done.messages.at(-1).content, 'Sunny spells in Oslo all week.');
    assert.equal((await client.threads.get(thread_id)).status, 'idle');
  },
};
