// The reference graphs of several shapes (reference-servers/langgraph-js/src/shapes/) on the real
// LangGraph JS server: each does what its module says, so that what is recorded from them (and
// compared with the emulator's replay) is the shape it claims to be.
import { freePort } from '@agentplane/openapi-toolkit';
import type { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { SHAPE_ASSISTANT_CONFIGS, SHAPE_GRAPHS, startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { expectResumedToolAnswerNamedAsLangGraph } from './support/resumed-tool-answer.js';
import { sdkClient } from './support/sdk-client.js';

const human = (content: string) => ({ messages: [{ role: 'user', content }] });

/** Every event of one streamed run, in order. */
async function streamed(client: Client, threadId: string, graphId: string, payload: Record<string, unknown>) {
  const events: { event: string; data: any }[] = [];
  for await (const { event, data } of client.runs.stream(threadId, graphId, payload)) events.push({ event, data });
  return events;
}

describe('the reference shape graphs on the LangGraph JS server', () => {
  let server: LangGraphServer;
  let client: Client;
  beforeAll(async () => {
    server = await startLangGraphServer({ port: await freePort(), rawGraphs: SHAPE_GRAPHS, assistantConfigs: SHAPE_ASSISTANT_CONFIGS });
    client = sdkClient(server.url);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('serves every graph, and gives the default assistants their configs and contexts', async () => {
    const assistants = await client.assistants.search({ limit: 100 });
    expect(assistants.map((assistant) => assistant.graph_id).sort()).toEqual([...new Set(['agent', ...Object.keys(SHAPE_GRAPHS)])].sort());
    const { context, ...config } = SHAPE_ASSISTANT_CONFIGS.configured!;
    expect(await client.assistants.get('configured')).toMatchObject({ config, context, metadata: { created_by: 'system' } });
  });

  it('supervisor: routes to the researcher, then the writer, then ends; each worker streams its reply', async () => {
    const thread = await client.threads.create();
    const events = await streamed(client, thread.thread_id, 'supervisor', {
      input: human('Sea'),
      streamMode: ['updates', 'messages-tuple'],
    });
    const updates = events.filter((e) => e.event === 'updates').map((e) => Object.keys(e.data)[0]);
    expect(updates).toEqual(['supervisor', 'researcher', 'supervisor', 'writer', 'supervisor']);
    const streamingNodes = new Set(events.filter((e) => e.event === 'messages').map((e) => e.data[1].langgraph_node));
    expect([...streamingNodes]).toEqual(['researcher', 'writer']);
  });

  it('subgraph_interrupt: pauses inside the subgraph, and a resume completes it', async () => {
    const thread = await client.threads.create();
    const paused = await streamed(client, thread.thread_id, 'subgraph_interrupt', {
      input: human('Announce it'),
      streamMode: ['updates'],
      streamSubgraphs: true,
    });
    const interrupt = paused.find((e) => e.event.startsWith('updates|review:') && '__interrupt__' in e.data);
    expect(interrupt?.data.__interrupt__[0].value).toMatchObject({ question: 'Publish this draft?' });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(['review']);
    const resumed = await client.runs.wait(thread.thread_id, 'subgraph_interrupt', { command: { resume: 'yes' } });
    expect(resumed).toMatchObject({ approved: true });
    expect((resumed as any).messages.at(-1).content).toMatch(/^Published: Draft: Announce it/);
  });

  it('approval: the tool pauses in the root tool node; resumed, its answer is named as the handler names it, in the thread and the messages mode while one streams, never in on_tool_end', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'approval', { input: human('A refund please') });
    const paused = await client.threads.getState(thread.thread_id);
    expect(paused.next).toEqual(['tools']);
    expect(paused.tasks[0]?.interrupts[0]?.value).toEqual({ question: 'Approve this refund?', order_id: '4512' });
    // The emulator's graph-shapes suite holds the same of its `refund_approval` graph.
    await expectResumedToolAnswerNamedAsLangGraph(client, 'approval');
  });

  it('parallel: both branches run in one superstep and both writes reach the join', async () => {
    const thread = await client.threads.create();
    const values: any = await client.runs.wait(thread.thread_id, 'parallel', { input: human('Tides') });
    expect([...values.results].sort()).toEqual(['docs: The docs say: two tides a day.', 'web: The web says: tides follow the moon.']);
    expect(values.summary).toMatch(/^2 sources: /);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    const fanOut = history.find((state) => state.next.includes('search_web'));
    expect([...fanOut!.next].sort()).toEqual(['search_docs', 'search_web']);
  });

  it('custom_events: the node writes its progress to the custom stream, then its state', async () => {
    const thread = await client.threads.create();
    const events = await streamed(client, thread.thread_id, 'custom_events', { input: human('Go'), streamMode: ['custom', 'values'] });
    expect(events.filter((e) => e.event === 'custom').map((e) => e.data)).toEqual([
      { type: 'progress', step: 1, total: 3, label: 'fetching' },
      { type: 'progress', step: 2, total: 3, label: 'parsing' },
      { type: 'progress', step: 3, total: 3, label: 'indexing' },
      'work done',
    ]);
    expect(events.filter((e) => e.event === 'values').at(-1)?.data).toMatchObject({ processed: 3 });
  });

  it('tool_function: a plain function node answers each call from its arguments, and no tool runs', async () => {
    const thread = await client.threads.create();
    const events = await streamed(client, thread.thread_id, 'tool_function', {
      input: human('Where are my orders?'),
      streamMode: ['values', 'events'],
    });
    const messages = events.filter((e) => e.event === 'values').at(-1)?.data.messages;
    expect(messages.filter((m: any) => m.type === 'tool').map((m: any) => [m.tool_call_id, m.content])).toEqual([
      ['call_lookup_4512', 'Order 4512: shipped on Monday'],
      ['call_lookup_7781', 'Order 7781: waiting for stock'],
    ]);
    expect(events.filter((e) => e.event === 'events' && e.data.event.startsWith('on_tool_'))).toEqual([]);
  });

  it('custom_error: the run fails with the graph’s own error class and message', async () => {
    const thread = await client.threads.create();
    const events = await streamed(client, thread.thread_id, 'custom_error', { input: { delay_ms: 50 }, streamMode: ['updates'] });
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: { error: 'CustomError', message: 'The upstream API refused the request after 50 ms' },
    });
  });

  it('configured: a run uses the default assistant’s context and config, and a run’s own override them', async () => {
    const thread = await client.threads.create();
    expect(await client.runs.wait(thread.thread_id, 'configured', { input: { question: 'Why?' } })).toMatchObject({
      answer: '[scripted-large, pro] Answer in one sentence. You asked: Why?',
    });
    const overridden = await client.runs.wait(thread.thread_id, 'configured', {
      input: { question: 'Why?' },
      context: { model: 'scripted-mini' },
      config: { configurable: { system_prompt: 'Be terse.' } },
    });
    expect(overridden).toMatchObject({ answer: '[scripted-mini, pro] Be terse. You asked: Why?' });
  });

  it('helpdesk: the tool answers from the AI message as the state holds it; a resume decides the answer; a run sleeps as asked', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'helpdesk', { input: human('Where is my order?'), interruptBefore: ['tool'] });
    const state = await client.threads.getState<any>(thread.thread_id);
    expect(state.next).toEqual(['tool']);
    await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ ...state.values.messages.at(-1), content: 'edited' }] },
      asNode: 'agent',
    });
    const done: any = await client.runs.wait(thread.thread_id, 'helpdesk', { input: null });
    expect(done.messages.map((m: any) => m.content)).toEqual(['Where is my order?', 'edited', 'Checked: edited', 'All done.']);
    const asking = await client.threads.create();
    const paused: any = await client.runs.wait(asking.thread_id, 'helpdesk', { input: { ...human('Refund?'), ask_first: true } });
    expect(paused.__interrupt__[0].value).toEqual({ question: 'May I go ahead?' });
    const resumed: any = await client.runs.wait(asking.thread_id, 'helpdesk', { command: { resume: 'denied' } });
    expect(resumed.messages.at(-1).content).toBe('Decision: denied');
    const started = Date.now();
    await client.runs.wait(null, 'helpdesk', { input: { ...human('Slowly'), sleep_ms: 300 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('travel: routes on its topic, and stops inside the forecast subgraph before report until input null goes on', async () => {
    const other: any = await client.runs.wait(null, 'travel', { input: human('Tell me a joke') });
    expect(other.messages.at(-1).content).toBe('I only know about the weather.');
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'travel', { input: human("What's the weather in Oslo?") });
    expect((await client.threads.getState(thread.thread_id)).next).toEqual(['forecast']);
    const state = await client.threads.getState(thread.thread_id, undefined, { subgraphs: true });
    expect((state.tasks[0]?.state as any)?.next).toEqual(['report']);
    const done: any = await client.runs.wait(thread.thread_id, 'travel', { input: null });
    expect(done.messages.at(-1).content).toBe('Sunny spells in Oslo all week.');
  });

  it('nested: runs a subgraph inside a subgraph, each level in its own namespace', async () => {
    const thread = await client.threads.create();
    const namespaces = new Set<string>();
    for await (const { event } of client.runs.stream(thread.thread_id, 'nested', {
      input: human('Help'),
      streamMode: 'updates',
      streamSubgraphs: true,
    }))
      if (event.includes('|'))
        namespaces.add(
          event
            .split('|')
            .slice(1)
            .map((part) => part.split(':')[0])
            .join('|'),
        );
    expect([...namespaces].sort()).toEqual(['department', 'department|team']);
    const { values } = await client.threads.getState<any>(thread.thread_id);
    expect(values.messages.map((m: any) => m.content)).toEqual([
      'Help',
      'intake took it',
      'department: triage took it',
      'team: assign took it',
      'team: resolve took it',
    ]);
  });

  // An Annotation's schema is read from the module's TypeScript types by a worker the server gives
  // 30 s, which a 2-core machine does not finish in (a 500 after 30 s): that graph runs, and its
  // schemas are not asked for here.
  it('schemas: one state declared each way runs, and each the server reads at run time answers its schemas', async () => {
    for (const graphId of ['schemas_annotation', 'schemas_state_schema', 'schemas_zod', 'schemas_zod_with_langgraph']) {
      const values: any = await client.runs.wait(null, graphId, { input: { count: 1 } });
      expect(values.count, graphId).toBe(2);
      expect(values.messages.at(-1).content, graphId).toBe('Counted 2.');
      if (graphId === 'schemas_annotation') continue;
      const schemas = await client.assistants.getSchemas(graphId);
      expect(Object.keys((schemas.state_schema as any)?.properties ?? {}).sort(), graphId).toEqual(['count', 'messages']);
    }
  });
});
