// Conversations an app has with a deployed agent through the LangGraph SDK's RunsClient, as
// scenarios that run the same on any server of the agent-server API running RUN_GRAPHS: each
// returns what it observed (the run objects, the answers, the thread's status after each step, its
// final state and its whole history), and a failed call is recorded as its HTTP status. The
// differential test runs them on the emulator and on the real LangGraph JS server (its reference
// server runs the same scripted graphs) and compares what they observed.
import type { Client } from '@langchain/langgraph-sdk';
import type { GraphDefinition } from '../../src/agent-server/graphs/graph-types.js';
import type { Scenario } from './langgraph-scenarios.js';

/** The scripted graphs both servers run. */
export const RUN_GRAPHS: Record<string, GraphDefinition & { replies: Record<string, unknown>[] }> = {
  echo: { replies: [{ text: '{{input}}' }] },
  support: {
    state: { topic: null },
    replies: [
      { match: '*refund*', interrupt: { question: 'Refund $20?' }, text: 'Refund sent ({{resume}}).', update: { topic: 'refund' } },
      { match: '*order*', text: 'Let me look up order 4512.', tool_calls: [{ name: 'lookup_order', args: { order_id: '4512' } }] },
      { match: '*order*', text: 'It shipped yesterday.', update: { topic: 'shipping' } },
      { match: '*fail*', error: 'Model provider rate limit' },
      { text: 'You said: {{input}}' },
    ],
    tools: { lookup_order: '{"status": "shipped"}' },
  },
  // Eight words, 400 ms before each: a run is running for about 3 s, time for a cancel or a second run.
  slow: { replies: [{ text: 'one two three four five six seven eight' }], stream: { chunk: 'word', delay_ms: 400 } },
  // One reply after 6 s of silence: longer than the emulator's 5 s between heartbeats.
  silent: { replies: [{ text: 'at last' }], stream: { chunk: 'whole', delay_ms: 6000 } },
};

const ask = (content: string) => ({ messages: [{ type: 'human', content }] });

/** What a call answered, or the HTTP status it failed with. */
async function attempt<T>(call: Promise<T>): Promise<{ answer: T } | { failedWith: number }> {
  try {
    return { answer: await call };
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (typeof status !== 'number') throw error;
    return { failedWith: status };
  }
}

const newThread = async (client: Client, tag: string, graphId: string) =>
  (await client.threads.create({ metadata: { graph_id: graphId, suite: tag } })).thread_id;

/** A thread as its readers see it: status, interrupts, and its state's values, next and tasks. */
async function snapshot(client: Client, threadId: string) {
  const thread = await client.threads.get(threadId);
  const state = await client.threads.getState(threadId);
  return { status: thread.status, interrupts: thread.interrupts, values: state.values, next: state.next, tasks: state.tasks };
}

/** The whole history, newest first, with each entry's parent as its position (which masking would hide). */
async function history(client: Client, threadId: string) {
  const entries = await client.threads.getHistory(threadId, { limit: 100 });
  const positionOf = (id: string | null | undefined) => entries.findIndex((entry) => entry.checkpoint.checkpoint_id === id);
  return { entries, parents: entries.map((entry) => positionOf(entry.parent_checkpoint?.checkpoint_id)) };
}

/** Polls until the run is running (the JS server's queue takes up to a second to start one). */
async function running(client: Client, threadId: string, runId: string): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    if ((await client.runs.get(threadId, runId)).status === 'running') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} did not start within 20 s`);
}

/** Polls until the run has ended, for the runs a scenario does not wait for itself. */
async function ended(client: Client, threadId: string, runId: string): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const { status } = await client.runs.get(threadId, runId);
    if (status !== 'pending' && status !== 'running') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} did not end within 30 s`);
}

/** A thread whose slow run is running, and that run. */
async function busy(client: Client, tag: string) {
  const threadId = await newThread(client, tag, 'slow');
  const first = await client.runs.create(threadId, 'slow', { input: ask('first') });
  await running(client, threadId, first.run_id);
  return { threadId, first };
}

/** Each a Scenario as the thread scenarios are: the SDK client, a tag unique to this run, the server's URL for raw requests. */
export const RUN_SCENARIOS: Record<string, Scenario> = {
  'plain reply': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const answer = await client.runs.wait(threadId, 'support', { input: ask('hello'), metadata: { customer: 'acme' } });
    return {
      answer,
      runs: await client.runs.list(threadId),
      after: await snapshot(client, threadId),
      history: await history(client, threadId),
    };
  },

  // LangGraph's quickstarts write messages in the role form of chat-completion APIs; both servers
  // store them in the type form. A state update writes every role, tool calls in the OpenAI form.
  'messages in the role form': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const answer = await client.runs.wait(threadId, 'support', { input: { messages: [{ role: 'user', content: 'hello' }] } });
    await client.threads.updateState(threadId, {
      values: {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: 'Answer in English.' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id": "4512"}' } }],
          },
          { role: 'tool', content: '{"status": "shipped"}', tool_call_id: 'call_1' },
          { role: 'human', content: 'thanks' },
          { role: 'ai', content: 'You are welcome.' },
        ],
      },
      asNode: 'agent',
    });
    // Both forms on one message, as the AG-UI LangGraph adapter (CopilotKit) writes every new one.
    const bothForms = await client.runs.wait(threadId, 'support', {
      input: {
        messages: [
          { id: 'rt-1', role: 'user', type: 'human', content: [{ type: 'text', text: 'one more' }], name: 'alice' },
          {
            id: 'rt-2',
            role: 'assistant',
            type: 'ai',
            content: '',
            tool_calls: [{ id: 'call_2', name: 'lookup_order', args: { order_id: '7' }, type: 'tool_call' }],
            usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
          },
          { id: 'rt-3', role: 'tool', type: 'tool', content: 'no such order', tool_call_id: 'call_2', status: 'error', artifact: { n: 1 } },
          { id: 'rt-4', role: 'developer', type: 'system', content: 'Be brief.' },
          { id: 'rt-5', role: 'user', type: 'human', content: 'hello again' },
        ],
      },
    });
    return { answer, bothForms, after: await snapshot(client, threadId) };
  },

  'role-form messages refused or coerced differently': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const written = async (message: Record<string, unknown>) =>
      attempt(client.threads.updateState(threadId, { values: { messages: [message] }, asNode: 'agent' }));
    return {
      toolWithoutCallId: await written({ role: 'tool', content: 'shipped' }),
      argumentsNotJson: await written({
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{not json' } }],
      }),
      argumentsNotAnObject: await written({
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'lookup_order', arguments: '[1]' } }],
      }),
      roleNamingAnotherType: await written({ role: 'user', type: 'ai', content: 'hi' }),
      roleFormWithATypeFormField: await written({ role: 'tool', content: 'shipped', tool_call_id: 'call_1', status: 'error' }),
      after: await snapshot(client, threadId),
    };
  },

  'tool call and answer': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const answer = await client.runs.wait(threadId, 'support', { input: ask('where is my order?') });
    return { answer, after: await snapshot(client, threadId), history: await history(client, threadId) };
  },

  'interrupt and resume': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const paused = await client.runs.wait(threadId, 'support', { input: ask('I want a refund') });
    const whilePaused = await snapshot(client, threadId);
    const resumed = await client.runs.wait(threadId, 'support', { command: { resume: 'yes' } });
    return {
      paused,
      whilePaused,
      resumed,
      after: await snapshot(client, threadId),
      runs: (await client.runs.list(threadId)).map((run) => run.status),
      history: await history(client, threadId),
    };
  },

  breakpoint: async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const stopped = await client.runs.wait(threadId, 'support', { input: ask('my order?'), interruptBefore: ['tools'] });
    const atBreakpoint = await snapshot(client, threadId);
    const continued = await client.runs.wait(threadId, 'support', { input: null });
    return { stopped, atBreakpoint, continued, after: await snapshot(client, threadId), history: await history(client, threadId) };
  },

  'scripted error': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const answer = await client.runs.wait(threadId, 'support', { input: ask('please fail'), raiseError: false });
    return { answer, after: await snapshot(client, threadId), runs: (await client.runs.list(threadId)).map((run) => run.status) };
  },

  // The tool call's run takes four steps (__start__, agent, tools, agent): a limit of 2 stops it
  // before its last step, one of 3 when its last step is done, one of 4 not at all.
  ...Object.fromEntries(
    [2, 3, 4].map((limit): [string, Scenario] => [
      `recursion limit ${limit}`,
      async (client, tag) => {
        const threadId = await newThread(client, tag, 'support');
        const answer = await client.runs.wait(threadId, 'support', {
          input: ask('where is my order?'),
          config: { recursion_limit: limit },
          raiseError: false,
        });
        const state = await client.threads.getState(threadId);
        return {
          answer,
          after: { values: state.values, next: state.next },
          runs: (await client.runs.list(threadId)).map((run) => run.status),
        };
      },
    ]),
  ),

  'background run joined': async (client, tag) => {
    const threadId = await newThread(client, tag, 'echo');
    const created = await client.runs.create(threadId, 'echo', { input: ask('in the background') });
    const joined = await client.runs.join(threadId, created.run_id);
    return { created, joined, run: await client.runs.get(threadId, created.run_id), after: await snapshot(client, threadId) };
  },

  'two runs on one thread': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    await client.runs.wait(threadId, 'support', { input: ask('hello') });
    const second = await client.runs.wait(threadId, 'support', { input: ask('where is my order?') });
    return { second, history: await history(client, threadId) };
  },

  'regenerate from a checkpoint': async (client, tag) => {
    const threadId = await newThread(client, tag, 'echo');
    await client.runs.wait(threadId, 'echo', { input: ask('first') });
    const input = (await client.threads.getHistory(threadId)).find((entry) => entry.metadata?.source === 'input')!;
    const regenerated = await client.runs.wait(threadId, 'echo', { input: ask('edited'), checkpointId: input.checkpoint.checkpoint_id! });
    return { regenerated, history: await history(client, threadId) };
  },

  'a plain run after regenerating': async (client, tag) => {
    const threadId = await newThread(client, tag, 'echo');
    await client.runs.wait(threadId, 'echo', { input: ask('first') });
    const input = (await client.threads.getHistory(threadId)).find((entry) => entry.metadata?.source === 'input')!;
    await client.runs.wait(threadId, 'echo', { input: ask('edited'), checkpointId: input.checkpoint.checkpoint_id! });
    const next = await client.runs.wait(threadId, 'echo', { input: ask('then this') });
    return { next };
  },

  // Without as_node, LangGraph applies an update as the node that wrote last: after a run, the
  // agent, whose reply now calls a tool, so the tools node is next.
  'update state without as_node after a run': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    await client.runs.wait(threadId, 'support', { input: ask('hello') });
    const call = { name: 'lookup_order', args: { order_id: '7' }, id: 'call-7', type: 'tool_call' as const };
    await client.threads.updateState(threadId, { values: { messages: [{ type: 'ai', content: '', tool_calls: [call] }] } });
    return { state: await client.threads.getState(threadId) };
  },

  // A copy's checkpoints name the copy wherever a run wrote the original's ID (masking would hide which).
  'copy of a thread a run filled': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    await client.runs.wait(threadId, 'support', { input: ask('hello') });
    const copy = await client.threads.copy(threadId);
    const entries = await client.threads.getHistory(copy.thread_id, { limit: 20 });
    return {
      checkpoints: entries.length,
      namesTheCopy: entries.map((entry) => entry.metadata?.thread_id === copy.thread_id),
    };
  },

  'cancel with interrupt': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    await client.runs.cancel(threadId, first.run_id, true, 'interrupt');
    return { run: (await client.runs.get(threadId, first.run_id)).status, after: await snapshot(client, threadId) };
  },

  'cancel with rollback': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    await client.runs.cancel(threadId, first.run_id, true, 'rollback');
    return { run: await attempt(client.runs.get(threadId, first.run_id)), status: (await client.threads.get(threadId)).status };
  },

  'cancel without waiting': async (client, tag, url) => {
    const { threadId, first } = await busy(client, tag);
    const response = await fetch(`${url}/threads/${threadId}/runs/${first.run_id}/cancel?wait=0`, { method: 'POST' });
    await ended(client, threadId, first.run_id);
    return { status: response.status };
  },

  'cancel with reason taken': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    const queued = await client.runs.create(threadId, 'echo', { input: ask('queued'), multitaskStrategy: 'enqueue' });
    await client.runs.cancel(threadId, queued.run_id, true, 'interrupt', { reason: 'taken' });
    await client.runs.cancel(threadId, first.run_id, true);
    const reason = (await client.runs.get(threadId, queued.run_id)).cancel_reason;
    return {
      status: (await client.runs.get(threadId, queued.run_id)).status,
      takenByTheRunningRun: reason === `taken:${first.run_id}`,
      listed: (await client.runs.list(threadId, { select: ['run_id', 'status', 'cancel_reason'] })).map((run) => [
        run.status,
        run.cancel_reason,
      ]),
    };
  },

  'multitask reject': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    const second = await attempt(client.runs.create(threadId, 'echo', { input: ask('second') }));
    await client.runs.cancel(threadId, first.run_id, true);
    return { second };
  },

  'multitask interrupt': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    const second = await client.runs.create(threadId, 'echo', { input: ask('second'), multitaskStrategy: 'interrupt' });
    const joined = await client.runs.join(threadId, second.run_id);
    return { first: (await client.runs.get(threadId, first.run_id)).status, joined, after: await snapshot(client, threadId) };
  },

  'multitask rollback': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    const second = await client.runs.create(threadId, 'echo', { input: ask('second'), multitaskStrategy: 'rollback' });
    const joined = await client.runs.join(threadId, second.run_id);
    return { first: await attempt(client.runs.get(threadId, first.run_id)), joined };
  },

  'multitask enqueue': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    const second = await client.runs.create(threadId, 'echo', { input: ask('second'), multitaskStrategy: 'enqueue' });
    const pending = (await client.runs.get(threadId, second.run_id)).status;
    await ended(client, threadId, second.run_id);
    return {
      pending,
      first: (await client.runs.get(threadId, first.run_id)).status,
      second: (await client.runs.get(threadId, second.run_id)).status,
      after: await snapshot(client, threadId),
    };
  },

  'run on an unknown thread': async (client) => ({
    refused: await attempt(client.runs.wait('3b7e9f1a-2c4d-4e6f-8a0b-1c2d3e4f5a6b', 'echo', { input: ask('x') })),
  }),

  'run that creates its thread': async (client, tag) => {
    const threadId = crypto.randomUUID();
    const run = await client.runs.create(threadId, 'echo', { input: ask('x'), ifNotExists: 'create', metadata: { suite: tag } });
    await client.runs.join(threadId, run.run_id);
    return { run, thread: await client.threads.get(threadId) };
  },

  'unknown assistant': async (client, tag) => ({
    refused: await attempt(client.runs.wait(await newThread(client, tag, 'echo'), 'billing', { input: ask('x') })),
  }),

  'stateless run': async (client) => ({ answer: await client.runs.wait(null, 'echo', { input: ask('once') }) }),

  'runs listed': async (client, tag) => {
    const threadId = await newThread(client, tag, 'echo');
    for (const word of ['one', 'two', 'three']) await client.runs.wait(threadId, 'echo', { input: ask(word), metadata: { word } });
    const words = (runs: { metadata?: Record<string, unknown> | null }[]) => runs.map((run) => run.metadata?.word);
    return {
      all: words(await client.runs.list(threadId)),
      page: words(await client.runs.list(threadId, { limit: 1, offset: 1 })),
    };
  },

  'join of a run that ended before another': async (client, tag) => {
    const threadId = await newThread(client, tag, 'echo');
    const first = await client.runs.create(threadId, 'echo', { input: ask('one') });
    await ended(client, threadId, first.run_id);
    await client.runs.wait(threadId, 'echo', { input: ask('two') });
    return { joined: await client.runs.join(threadId, first.run_id) };
  },

  'join of an unknown run': async (client, tag) => {
    const threadId = await newThread(client, tag, 'echo');
    return { joined: await attempt(client.runs.join(threadId, '1f0b0000-0000-7000-8000-000000000000')) };
  },

  'delete a running run': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    const deleted = await attempt(client.runs.delete(threadId, first.run_id));
    await client.runs.cancel(threadId, first.run_id, true).catch(() => undefined);
    return { deleted };
  },

  'cancel many': async (client, tag) => {
    const { threadId, first } = await busy(client, tag);
    const cancelled = await attempt(client.runs.cancelMany({ threadId, runIds: [first.run_id] }));
    await client.runs.cancel(threadId, first.run_id, true).catch(() => undefined);
    return { cancelled };
  },

  'strict resume naming an interrupt that does not wait': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    await client.runs.wait(threadId, 'support', { input: ask('I want a refund') });
    const stale = { '0123456789abcdef0123456789abcdef': 'late' };
    const refused = await client.runs.wait(threadId, 'support', { command: { resume: stale }, strictResume: true, raiseError: false });
    const whileRefused = await snapshot(client, threadId);
    const resumed = await client.runs.wait(threadId, 'support', { command: { resume: 'yes' }, strictResume: true });
    return { refused, whileRefused, resumed, runs: (await client.runs.list(threadId)).map((run) => run.status) };
  },

  'resume keyed by tool call (keyedByInterruptId false)': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const paused = (await client.runs.wait(threadId, 'support', { input: ask('I want a refund') })) as { __interrupt__: { id: string }[] };
    const answer = { [paused.__interrupt__[0]!.id]: 'yes' };
    const resumed = await client.runs.wait(threadId, 'support', { command: { resume: answer, keyedByInterruptId: false } as never });
    return { answeredWhole: JSON.stringify(resumed).includes(JSON.stringify(JSON.stringify(answer)).slice(1, -1)), resumed };
  },

  // A resume as the AG-UI LangGraph adapter (CopilotKit) sends it, the thread's state as input
  // beside the command; and as agent-chat-ui sends it, `input: {}`.
  'input and command together': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    const paused = await client.runs.wait(threadId, 'support', { input: ask('I want a refund') });
    const { values } = await client.threads.getState(threadId);
    const input = {
      ...(values as Record<string, unknown>),
      messages: [...(values as { messages: unknown[] }).messages, ...ask('x').messages],
    };
    const resumed = await client.runs.wait(threadId, 'support', { input, command: { resume: 'yes' } });
    const echo = await newThread(client, tag, 'echo');
    const updated = await client.runs.wait(echo, 'echo', { input: {}, command: { update: ask('via command'), goto: 'agent' } });
    return {
      paused,
      resumed,
      updated,
      after: await snapshot(client, threadId),
      // The resuming run's (the list's order is a difference of its own: runs-list-newest-first).
      kwargs: (await client.runs.list(threadId))
        .map((run) => (run as unknown as { kwargs: { input?: unknown; command?: unknown } }).kwargs)
        .find((kwargs) => kwargs.command != null),
    };
  },

  'an ignored input that is not valid': async (client, tag) => {
    const threadId = await newThread(client, tag, 'support');
    await client.runs.wait(threadId, 'support', { input: ask('I want a refund') });
    const malformed = { messages: [{ type: 'human' }] } as never;
    return {
      resumed: await attempt(client.runs.wait(threadId, 'support', { input: malformed, command: { resume: 'yes' } })),
      after: await snapshot(client, threadId),
    };
  },

  // The LangGraph Python SDK's synchronous client sends `raise_error` in every runs.wait body (its
  // async client keeps it client-side); the bodies are the ones it sends, None fields left out.
  "the Python sync client's runs.wait bodies": async (_client, tag, url) => {
    const post = async (route: string, body: unknown) => {
      const response = await fetch(`${url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const thread = (await post('/threads', { metadata: { suite: tag } })).body as { thread_id: string };
    return {
      onThread: await post(`/threads/${thread.thread_id}/runs/wait`, { input: ask('hello'), assistant_id: 'echo', raise_error: true }),
      stateless: await post('/runs/wait', { input: ask('hello'), assistant_id: 'echo', raise_error: false }),
    };
  },

  'wait answer media type': async (_client, tag, url) => {
    const thread = await (
      await fetch(`${url}/threads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { suite: tag } }),
      })
    ).json();
    const response = await fetch(`${url}/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'echo', input: ask('x') }),
    });
    await response.text();
    return { contentType: response.headers.get('content-type') };
  },
};
