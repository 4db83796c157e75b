// A suite of an app's own, written against the real LangGraph JS server with its `helpdesk`
// reference graph (reference-servers/langgraph-js/src/shapes/helpdesk.js): one conversation held
// many ways, the ways a team tests its agent. The same question with and without a breakpoint,
// edited by a human and gone on with, cancelled, failed by its config, met by a second run under
// each multitask strategy, resumed with two values, updated by a command, run stateless, run again
// from an earlier checkpoint; and next after a state update on a thread built from supersteps. The
// differential test runs it through `agentplane-emulator record`, then unchanged against the
// emulator replaying the recording: it must pass there as it passes on the real server.
//
// Where the two differ by a declared difference (the spec's "Differs from the LangGraph JS server"),
// a test asserts what both answer: a second run refused by `reject` is a 4xx on both (422 there, 409
// here: run-reject-409); a run rolled back is an error there and gone here (rollback-deletes-the-run).
import assert from 'node:assert/strict';
import type { Client } from '@langchain/langgraph-sdk';
import type { Scenario } from './langgraph-scenarios.js';

type Values = Record<string, any>;

const QUESTION = 'Where is my order?';
const ask = (extra: Values = {}) => ({ messages: [{ role: 'user', content: QUESTION }], ...extra });
const contents = (values: Values) => values.messages.map((message: Values) => message.content);
const ANSWERED = [QUESTION, 'Let me check that.', 'Checked: Let me check that.', 'All done.'];

/** Polls until the run has left `pending` (the JS server's queue takes up to a second to start one). */
async function running(client: Client, threadId: string, runId: string): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    if ((await client.runs.get(threadId, runId)).status === 'running') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${runId} did not start within 20 s`);
}

/** A thread whose first run works a while (sleep_ms), running when this answers. */
async function busy(client: Client) {
  const { thread_id } = await client.threads.create();
  const first = await client.runs.create(thread_id, 'helpdesk', { input: ask({ sleep_ms: 1500 }) });
  await running(client, thread_id, first.run_id);
  return { threadId: thread_id, first };
}

/** What a call failed with (its HTTP status); fails the test when it does not fail. */
async function failure(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    return (error as { status: number }).status;
  }
  assert.fail('the call was expected to fail');
}

export const RECORD_SUITE: Record<string, (client: Client) => Promise<void>> = {
  'the question is answered through the tool, streamed node by node': async (client) => {
    const { thread_id } = await client.threads.create();
    const nodes: string[] = [];
    for await (const chunk of client.runs.stream(thread_id, 'helpdesk', { input: ask(), streamMode: 'updates' }))
      if (chunk.event === 'updates') nodes.push(...Object.keys(chunk.data as Values));
    assert.deepEqual(nodes, ['agent', 'tool', 'agent']);
    assert.deepEqual(contents((await client.threads.getState<Values>(thread_id)).values), ANSWERED);
  },

  'the same question with interrupt_before stops before the tool, and a human edit changes what the tool answers': async (client) => {
    const { thread_id } = await client.threads.create();
    assert.deepEqual(await client.runs.wait(thread_id, 'helpdesk', { input: ask(), interruptBefore: ['tool'] }), { __interrupt__: [] });
    assert.equal((await client.threads.get(thread_id)).status, 'interrupted');
    const state = await client.threads.getState<Values>(thread_id);
    assert.deepEqual(state.next, ['tool']);
    await client.threads.updateState(thread_id, {
      values: { messages: [{ ...state.values.messages.at(-1), content: 'modified' }] },
      asNode: 'agent',
    });
    // The router after agent still goes to the tool: the edited message calls it.
    assert.deepEqual((await client.threads.getState(thread_id)).next, ['tool']);
    const done = (await client.runs.wait(thread_id, 'helpdesk', { input: null })) as Values;
    assert.deepEqual(contents(done), [QUESTION, 'modified', 'Checked: modified', 'All done.']);
    assert.equal((await client.threads.get(thread_id)).status, 'idle');
  },

  'a human asked first decides the answer: resumed with two values, two answers': async (client) => {
    for (const decision of ['approved', 'denied']) {
      const { thread_id } = await client.threads.create();
      const paused = (await client.runs.wait(thread_id, 'helpdesk', { input: ask({ ask_first: true }) })) as Values;
      assert.deepEqual(paused.__interrupt__[0].value, { question: 'May I go ahead?' });
      const done = (await client.runs.wait(thread_id, 'helpdesk', { command: { resume: decision } })) as Values;
      assert.equal(contents(done).at(-1), `Decision: ${decision}`);
    }
  },

  'a run cancelled while it works stops there, and the thread goes on': async (client) => {
    const { threadId, first } = await busy(client);
    await client.runs.cancel(threadId, first.run_id, true);
    assert.equal((await client.runs.get(threadId, first.run_id)).status, 'interrupted');
    assert.deepEqual((await client.threads.getState(threadId)).next, ['agent']);
  },

  'a run whose config gives it too few steps fails, and says why': async (client) => {
    const { thread_id } = await client.threads.create();
    const answer = (await client.runs.wait(thread_id, 'helpdesk', {
      input: ask(),
      config: { recursion_limit: 2 },
      raiseError: false,
    })) as Values;
    assert.match(JSON.stringify(answer.__error__), /GraphRecursionError/);
    assert.equal((await client.threads.get(thread_id)).status, 'error');
  },

  'a second run meets the first under each multitask strategy': async (client) => {
    {
      const { threadId, first } = await busy(client);
      const status = await failure(client.runs.create(threadId, 'helpdesk', { input: ask(), multitaskStrategy: 'reject' }));
      assert.ok(status === 409 || status === 422, `reject answered ${status}`);
      assert.deepEqual(contents((await client.runs.join(threadId, first.run_id)) as Values), ANSWERED);
    }
    {
      const { threadId, first } = await busy(client);
      const second = await client.runs.create(threadId, 'helpdesk', { input: ask(), multitaskStrategy: 'interrupt' });
      const joined = (await client.runs.join(threadId, second.run_id)) as Values;
      assert.equal((await client.runs.get(threadId, first.run_id)).status, 'interrupted');
      // The first run's question stays; the second answers it all.
      assert.deepEqual(contents(joined), [QUESTION, ...ANSWERED]);
    }
    {
      const { threadId } = await busy(client);
      const second = await client.runs.create(threadId, 'helpdesk', { input: ask(), multitaskStrategy: 'rollback' });
      const joined = (await client.runs.join(threadId, second.run_id)) as Values;
      assert.deepEqual(contents(joined).slice(-3), ANSWERED.slice(1));
    }
    {
      const { threadId, first } = await busy(client);
      const second = await client.runs.create(threadId, 'helpdesk', { input: ask(), multitaskStrategy: 'enqueue' });
      const joined = (await client.runs.join(threadId, second.run_id)) as Values;
      assert.equal((await client.runs.get(threadId, first.run_id)).status, 'success');
      assert.deepEqual(contents(joined), [...ANSWERED, QUESTION, 'Let me check that.', 'Checked: Let me check that.', 'All done.']);
    }
  },

  'a command alone updates the state, and its stream shows the state it made': async (client) => {
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, 'helpdesk', { input: ask() });
    const values: Values[] = [];
    for await (const chunk of client.runs.stream(thread_id, 'helpdesk', { command: { update: { sleep_ms: 5 } }, streamMode: 'values' }))
      if (chunk.event === 'values') values.push(chunk.data as Values);
    assert.equal(values.length, 1);
    assert.equal(values[0]!.sleep_ms, 5);
    assert.deepEqual(contents(values[0]!), ANSWERED);
    assert.equal((await client.threads.getState<Values>(thread_id)).values.sleep_ms, 5);
  },

  'a run through an assistant the app made, with a config of its own, answers as the default one does': async (client) => {
    const assistant = await client.assistants.create({
      graphId: 'helpdesk',
      config: { configurable: { tone: 'warm' } },
      name: 'warm helpdesk',
    });
    const { thread_id } = await client.threads.create();
    assert.deepEqual(contents((await client.runs.wait(thread_id, assistant.assistant_id, { input: ask() })) as Values), ANSWERED);
    await client.assistants.delete(assistant.assistant_id);
  },

  'a stateless run answers as a thread does': async (client) => {
    assert.deepEqual(contents((await client.runs.wait(null, 'helpdesk', { input: ask() })) as Values), ANSWERED);
  },

  'a run from an earlier checkpoint goes on from there': async (client) => {
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, 'helpdesk', { input: ask() });
    const history = await client.threads.getHistory(thread_id, { limit: 20 });
    const beforeTool = history.find((state) => state.next.length === 1 && state.next[0] === 'tool')!;
    const again = (await client.runs.wait(thread_id, 'helpdesk', {
      input: null,
      checkpointId: beforeTool.checkpoint.checkpoint_id!,
    })) as Values;
    // The tool answers again, and the model (its replies taken in turn per thread) goes on from there.
    assert.deepEqual(contents(again).slice(0, 3), ANSWERED.slice(0, 3));
    assert.equal(contents(again).at(-1), 'All done.');
  },

  'next after a state update follows the router, on a thread built from supersteps': async (client) => {
    const { thread_id } = await client.threads.create({
      graphId: 'helpdesk',
      supersteps: [
        { updates: [{ values: { messages: [{ type: 'human', content: QUESTION, id: 'h1' }] }, asNode: '__input__' }] },
        { updates: [{ values: null, asNode: '__start__' }] },
        {
          updates: [
            {
              values: { messages: [{ type: 'ai', content: 'Looking.', id: 'a1', tool_calls: [{ name: 'lookup', args: {}, id: 'c1' }] }] },
              asNode: 'agent',
            },
          ],
        },
      ],
    });
    assert.deepEqual((await client.threads.getState(thread_id)).next, ['tool']);
    await client.threads.updateState(thread_id, { values: { messages: [{ type: 'ai', content: 'No need.', id: 'a1' }] }, asNode: 'agent' });
    assert.deepEqual((await client.threads.getState(thread_id)).next, []);
  },
};

/** What a thread shows once its runs have ended: its status, values and next, and its runs' statuses (oldest first). */
async function afterwards(client: Client, threadId: string) {
  const state = await client.threads.getState<Values>(threadId);
  const runs = await client.runs.list(threadId);
  return {
    status: (await client.threads.get(threadId)).status,
    values: state.values,
    next: state.next,
    runs: runs.map((run) => run.status).reverse(),
  };
}

/**
 * The same requests observed rather than asserted: the differential test compares what the real
 * server answered them with what the replay answers, declared differences aside.
 */
export const RECORDED_REQUESTS: Record<string, Scenario> = {
  'helpdesk cancelled while it works': async (client) => {
    const { threadId, first } = await busy(client);
    await client.runs.cancel(threadId, first.run_id, true);
    return afterwards(client, threadId);
  },
  'helpdesk rolled back by a second run': async (client) => {
    const { threadId, first } = await busy(client);
    const second = await client.runs.create(threadId, 'helpdesk', { input: ask(), multitaskStrategy: 'rollback' });
    const joined = await client.runs.join(threadId, second.run_id);
    const firstRun = await client.runs.get(threadId, first.run_id).then(
      (run) => run.status,
      (error: { status: number }) => error.status,
    );
    return { joined, firstRun, after: await afterwards(client, threadId) };
  },
  'helpdesk failed by its recursion limit': async (client) => {
    const { thread_id } = await client.threads.create();
    const answer = await client.runs.wait(thread_id, 'helpdesk', { input: ask(), config: { recursion_limit: 2 }, raiseError: false });
    return { answer, after: await afterwards(client, thread_id) };
  },
};
