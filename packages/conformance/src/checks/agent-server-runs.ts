// Layer (b) for runs: what a run does to its thread, its status, its answers and the thread's
// checkpoints, on the run's own threads. Most checks work with any graph that answers a human
// message (the run's graph: see AgentServerSession.runGraph); the few that need a tool call, a node
// that raises or an interrupt run on a graph that follows the conformance script
// (conformance-graph.ts), and are skipped without one.
//
// A run that must stay pending while a check looks at it is created with `after_seconds`, so that
// no check depends on how fast a graph runs; each check cancels what it left pending.
import type { Run, RunCreate, ThreadState } from '@agentplane/agent-server';
import { SCRIPTED } from '../conformance-graph.js';
import type { Verify } from '../verify.js';
import { show } from '../verify.js';
import type { AgentServerSession } from './agent-server-session.js';
import { answer, checkpointIdOf, expectNotFound, short, UNKNOWN_CHECKPOINT, UNKNOWN_THREAD } from './agent-server-session.js';
import type { CheckDefinition } from './check.js';

type Check = CheckDefinition<AgentServerSession>;
const check = (definition: Omit<Check, 'api'>): Check => ({ api: 'agent-server', ...definition });

/** A run ID no server has. */
export const UNKNOWN_RUN = '1f0b0000-0000-7000-8000-000000000000';
/** Long enough that a pending run is still pending when the check looks at it. */
const HOLD_SECONDS = 60;
/** The longest a check waits for a cancelled run to end. */
const SETTLE_MS = 15_000;
/** The longest a check waits, once a run has ended, for what its end does (a stateless run's thread deleted). */
const ENDED_MS = 2_000;

export const say = (text: string): NonNullable<RunCreate['input']> => ({ messages: [{ type: 'human', content: text }] });
export const onThread = (thread_id: string) => ({ params: { path: { thread_id } } });
export const onRun = (thread_id: string, run_id: string) => ({ params: { path: { thread_id, run_id } } });

type Message = { type?: string; content?: unknown; name?: string; tool_call_id?: string; tool_calls?: unknown[]; metadata?: unknown };
export const messagesOf = (values: unknown): Message[] => {
  const messages = (values as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) ? messages : [];
};
const textOf = (message: Message | undefined) => (typeof message?.content === 'string' ? message.content : undefined);
export const humanTexts = (values: unknown) => messagesOf(values).flatMap((m) => (m.type === 'human' ? [textOf(m)] : []));

/**
 * The graph the run checks run: with `allowRuns`, `--graph-id`, else the conformance script's
 * graph, else the graph of the server's first default assistant; without it, the conformance
 * script's graph only (running a scripted graph costs nothing and acts on nothing).
 */
export async function runGraph(s: AgentServerSession, v: Verify): Promise<string> {
  const { allowRuns, scriptedGraphId } = s.runs;
  if (allowRuns) return s.graphId ?? scriptedGraphId ?? (await s.assistantGraph(v));
  if (scriptedGraphId) return scriptedGraphId;
  return v.skip('it runs a graph: pass --allow-runs, or --scripted-graph-id naming a graph that runs the conformance script');
}

/** The graph that follows the conformance script; without one, the check is skipped. */
export function scriptedGraph(v: Verify, s: AgentServerSession): string {
  return s.runs.scriptedGraphId ?? v.skip('it needs a graph that runs the conformance script: pass --scripted-graph-id');
}

/** A new thread of the run, of the conformance script's graph. */
export const scriptedThread = (s: AgentServerSession, v: Verify, graphId: string) =>
  s.create(v, { metadata: { graph_id: graphId } }, false);

/** The conformance script's graph and a new thread of it (the check is skipped without the script's graph). */
export async function newScriptedThread(s: AgentServerSession, v: Verify) {
  const graph = scriptedGraph(v, s);
  return { graph, thread: await scriptedThread(s, v, graph) };
}

/** Runs a graph (the run's unless `graph` names one) on a thread and answers the waitRun answer. */
async function waitOn(s: AgentServerSession, v: Verify, threadId: string, body: Partial<RunCreate>, graph?: string) {
  const assistantId = graph ?? (await runGraph(s, v));
  return answer(s.client.POST('/threads/{thread_id}/runs/wait', { ...onThread(threadId), body: { assistant_id: assistantId, ...body } }));
}

/** A run of the conformance script on a new thread, waited for (the check is skipped without the script's graph). */
async function scriptedRun(s: AgentServerSession, v: Verify, body: Partial<RunCreate>) {
  const { graph, thread } = await newScriptedThread(s, v);
  return { graph, thread, waited: await waitOn(s, v, thread.thread_id, body, graph) };
}

/** A background run of the run's graph on a thread; the check stops when it is refused. */
export async function createOn(s: AgentServerSession, v: Verify, threadId: string, body: Partial<RunCreate>): Promise<Run> {
  const graph = await runGraph(s, v);
  const created = await answer(
    s.client.POST('/threads/{thread_id}/runs', { ...onThread(threadId), body: { assistant_id: graph, ...body } }),
  );
  if (created.status !== 200 || !created.data) v.stop(`createRun answered ${created.status}: ${short(created.error)}`);
  return created.data;
}

/** A run held pending by `after_seconds`: the thread is busy until it is cancelled. */
const holdOn = (s: AgentServerSession, v: Verify, threadId: string, body: Partial<RunCreate> = {}) =>
  createOn(s, v, threadId, { input: say('hold'), after_seconds: HOLD_SECONDS, ...body });

/** Cancels a run a check held, whatever its state: what the check left must not run on. */
async function release(s: AgentServerSession, run: Run): Promise<void> {
  await answer(
    s.client.POST('/threads/{thread_id}/runs/{run_id}/cancel', {
      params: { path: { thread_id: run.thread_id, run_id: run.run_id }, query: { wait: true, action: 'interrupt' } },
    }),
  );
}

export async function getRun(s: AgentServerSession, threadId: string, runId: string) {
  return answer(s.client.GET('/threads/{thread_id}/runs/{run_id}', onRun(threadId, runId)));
}

export async function threadStatus(s: AgentServerSession, threadId: string): Promise<string | undefined> {
  return (await answer(s.client.GET('/threads/{thread_id}', onThread(threadId)))).data?.status;
}

/** Polls until `probe` answers something `done` accepts, or the budget is spent; answers the last value. */
async function settle<T>(probe: () => Promise<T>, done: (value: T) => boolean, budgetMs = SETTLE_MS): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The run ID a waitRun answer's Content-Location names. */
export const runIdOf = (location: string | null) => /\/runs\/([0-9a-f-]{36})$/.exec(location ?? '')?.[1];

const historyOf = (s: AgentServerSession, v: Verify, threadId: string): Promise<ThreadState[]> => s.history(v, threadId, { limit: 100 });

export const AGENT_SERVER_RUN_CHECKS: Check[] = [
  check({
    id: 'runs:wait',
    area: 'runs',
    title: 'waitRun answers the thread’s values as JSON when the run has ended, and the thread is idle again',
    rule: 'waitRun: 200 RunWaitResult, Content-Location; Thread.status (decision A15)',
    operations: ['waitRun', 'createThread', 'getThread'],
    difference: 'wait-answers-json',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v);
      const waited = await waitOn(s, v, thread.thread_id, { input: say('hello') });
      v.equal(waited.status, 200, 'status');
      v.that(
        (waited.headers.get('content-type') ?? '').startsWith('application/json'),
        `content type: expected application/json, got ${waited.headers.get('content-type')}`,
        { differs: true },
      );
      v.equal(
        waited.headers.get('content-location'),
        `/threads/${thread.thread_id}/runs/${runIdOf(waited.headers.get('content-location'))}`,
        'Content-Location',
      );
      v.equal(humanTexts(waited.data)[0], 'hello', 'the first human message of the values');
      v.equal((waited.data as Record<string, unknown> | undefined)?.__error__, undefined, '__error__');
      v.equal(await threadStatus(s, thread.thread_id), 'idle', 'thread status after the run');
    },
  }),
  check({
    id: 'runs:create-join',
    area: 'runs',
    title: 'createRun answers the run at once; joinRun answers the thread’s values when it ends, and the run is success',
    rule: 'createRun: 200 Run, Content-Location; joinRun: 200 values; getRun: Run.status (decision A15)',
    operations: ['createRun', 'joinRun', 'getRun', 'getThreadState', 'createThread'],
    async run(s, v) {
      const thread = await s.create(v);
      const graph = await runGraph(s, v);
      const created = await answer(
        s.client.POST('/threads/{thread_id}/runs', { ...onThread(thread.thread_id), body: { assistant_id: graph, input: say('hello') } }),
      );
      const run = created.data;
      if (created.status !== 200 || !run) return v.stop(`createRun answered ${created.status}: ${short(created.error)}`);
      v.that(['pending', 'running'].includes(run.status), `status of the new run: expected pending or running, got ${run.status}`);
      v.equal([run.thread_id, run.multitask_strategy], [thread.thread_id, 'reject'], 'thread_id and the default multitask_strategy');
      v.equal(created.headers.get('content-location'), `/threads/${thread.thread_id}/runs/${run.run_id}`, 'Content-Location');
      const joined = await answer(s.client.GET('/threads/{thread_id}/runs/{run_id}/join', onRun(thread.thread_id, run.run_id)));
      v.equal(joined.status, 200, 'joinRun status');
      const state = await s.state(v, thread.thread_id);
      v.equal(joined.data, state.values, 'joinRun answer against the thread’s values');
      v.equal(humanTexts(state.values)[0], 'hello', 'the first human message of the state');
      v.equal((await getRun(s, thread.thread_id, run.run_id)).data?.status, 'success', 'status of the run after the join');
    },
  }),
  check({
    id: 'runs:checkpoints',
    area: 'runs',
    title: 'a run’s checkpoints record the run: its input checkpoint first, then one per step, each with its run_id',
    rule: 'CheckpointMetadata: source, step, run_id, thread_id, graph_id, assistant_id (decision A16)',
    operations: ['getThreadHistory', 'waitRun', 'createThread'],
    difference: 'run-metadata-platform',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v);
      const waited = await waitOn(s, v, thread.thread_id, { input: say('hello'), metadata: { origin: 'conformance' } });
      const runId = runIdOf(waited.headers.get('content-location'));
      const history = await historyOf(s, v, thread.thread_id);
      const oldest = history.at(-1);
      v.equal(
        [oldest?.metadata?.source, oldest?.metadata?.step, oldest?.next],
        ['input', -1, ['__start__']],
        'source, step and next of the first checkpoint',
      );
      v.equal(
        history.map((entry) => entry.metadata?.step),
        history.map((_, i) => history.length - 2 - i),
        'steps, newest first',
      );
      for (const entry of history) {
        const metadata = (entry.metadata ?? {}) as Record<string, unknown>;
        const at = `checkpoint at step ${metadata.step}`;
        v.equal(
          [metadata.run_id, metadata.thread_id, metadata.graph_id, metadata.origin],
          [runId, thread.thread_id, await runGraph(s, v), 'conformance'],
          `${at}: run_id, thread_id, graph_id and the run's metadata`,
        );
        v.that(typeof metadata.assistant_id === 'string', `${at}: assistant_id is recorded`);
        v.that(
          !('langgraph_version' in metadata) && !('langgraph_api_url' in metadata),
          `${at}: neither langgraph_version nor langgraph_api_url is recorded`,
          { differs: true },
        );
      }
      v.equal(history[0]?.next, [], 'next of the last checkpoint');
    },
  }),
  check({
    id: 'runs:list',
    area: 'runs',
    title: 'listRuns answers a thread’s runs newest first, limit runs from offset',
    rule: 'listRuns: 200 Run[], limit, offset (decision A15)',
    operations: ['listRuns', 'waitRun', 'createThread'],
    difference: 'runs-list-newest-first',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v);
      const first = runIdOf((await waitOn(s, v, thread.thread_id, { input: say('one') })).headers.get('content-location'));
      const second = runIdOf((await waitOn(s, v, thread.thread_id, { input: say('two') })).headers.get('content-location'));
      const list = async (query: { limit?: number; offset?: number }) =>
        (await answer(s.client.GET('/threads/{thread_id}/runs', { params: { path: { thread_id: thread.thread_id }, query } }))).data?.map(
          (run) => run.run_id,
        );
      v.equal(await list({}), [second, first], 'the runs', { differs: true });
      v.equal(await list({ limit: 1, offset: 1 }), [first], 'limit=1, offset=1', { differs: true });
      v.equal(await list({ offset: 2 }), [], 'offset past the end');
    },
  }),
  check({
    id: 'runs:delete',
    area: 'runs',
    title: 'a finished run can be deleted with the checkpoints it wrote; it is gone afterwards',
    rule: 'deleteRun: 204; getRun: 404 (decision A15)',
    operations: ['deleteRun', 'getRun', 'waitRun', 'getThreadHistory', 'createThread'],
    async run(s, v) {
      const thread = await s.create(v);
      await waitOn(s, v, thread.thread_id, { input: say('kept') });
      const runId = runIdOf((await waitOn(s, v, thread.thread_id, { input: say('deleted') })).headers.get('content-location'));
      if (!runId) return v.stop('waitRun answered no Content-Location naming its run');
      const before = await historyOf(s, v, thread.thread_id);
      const deleted = await answer(s.client.DELETE('/threads/{thread_id}/runs/{run_id}', onRun(thread.thread_id, runId)));
      v.equal(deleted.status, 204, 'deleteRun status');
      v.equal((await getRun(s, thread.thread_id, runId)).status, 404, 'getRun status after the delete');
      const after = await historyOf(s, v, thread.thread_id);
      v.equal(
        after.map(checkpointIdOf),
        before.filter((entry) => entry.metadata?.run_id !== runId).map(checkpointIdOf),
        'the history after the delete: the checkpoints of the other run',
      );
      v.equal(humanTexts((await s.state(v, thread.thread_id)).values), ['kept'], 'human messages of the state after the delete');
    },
  }),
  check({
    id: 'runs:unknown-run',
    area: 'runs',
    title: 'an unknown run of an existing thread is a 404 {detail}, to read, cancel or delete',
    rule: 'getRun, cancelRun, deleteRun: 404 ErrorDetail (decision A15)',
    operations: ['getRun', 'cancelRun', 'deleteRun', 'createThread'],
    difference: 'error-detail-body',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v);
      const p = onRun(thread.thread_id, UNKNOWN_RUN);
      await expectNotFound(v, [
        ['getRun', () => s.client.GET('/threads/{thread_id}/runs/{run_id}', p)],
        ['cancelRun', () => s.client.POST('/threads/{thread_id}/runs/{run_id}/cancel', p)],
        ['deleteRun', () => s.client.DELETE('/threads/{thread_id}/runs/{run_id}', p)],
      ]);
    },
  }),
  check({
    id: 'runs:join-unknown-run',
    area: 'runs',
    title: 'joining an unknown run of an existing thread is a 404, not a run that failed',
    rule: 'joinRun: 404 ErrorDetail (decision A16)',
    operations: ['joinRun', 'createThread'],
    difference: 'join-unknown-run-404',
    async run(s, v) {
      const thread = await s.create(v);
      const joined = await answer<unknown>(s.client.GET('/threads/{thread_id}/runs/{run_id}/join', onRun(thread.thread_id, UNKNOWN_RUN)));
      v.equal(joined.status, 404, 'status');
    },
  }),
  check({
    id: 'runs:unknown-thread',
    area: 'runs',
    title: 'a run on a thread that does not exist is a 404',
    rule: 'createRun, waitRun: 404 ErrorDetail (RunIfNotExists reject)',
    operations: ['createRun', 'waitRun'],
    difference: 'run-unknown-thread-404',
    async run(s, v) {
      const graph = await runGraph(s, v);
      const body = { assistant_id: graph, input: say('hello') };
      const created = await answer(s.client.POST('/threads/{thread_id}/runs', { ...onThread(UNKNOWN_THREAD), body }));
      v.equal(created.status, 404, 'createRun status');
      const waited = await answer(s.client.POST('/threads/{thread_id}/runs/wait', { ...onThread(UNKNOWN_THREAD), body }));
      v.equal(waited.status, 404, 'waitRun status');
    },
  }),
  check({
    id: 'runs:input-and-command',
    area: 'runs',
    title: 'a run with both input and command runs the command and ignores the input; the run records both (conformance script)',
    rule: 'RunCreate: command over input; Run.kwargs',
    operations: ['waitRun', 'listRuns', 'createThread'],
    async run(s, v) {
      // A resume as the AG-UI LangGraph adapter (CopilotKit) sends it: the thread's state as input beside the command.
      const { graph, thread } = await newScriptedThread(s, v);
      await waitOn(s, v, thread.thread_id, { input: say('ask: refund') }, graph);
      const input = say('not written');
      const resumed = await waitOn(s, v, thread.thread_id, { input, command: { resume: 'yes' } }, graph);
      v.equal(resumed.status, 200, `status (${short(resumed.error)})`);
      v.equal(textOf(messagesOf(resumed.data).at(-1)), SCRIPTED.resumed('yes'), 'the reply after the resume');
      v.equal(humanTexts(resumed.data), ['ask: refund'], 'human messages after it (the input not written)');
      const runs = (await answer(s.client.GET('/threads/{thread_id}/runs', onThread(thread.thread_id)))).data ?? [];
      const { kwargs } = runs.find((run) => run.kwargs.command != null) ?? {};
      v.equal([kwargs?.input, kwargs?.command], [input, { resume: 'yes' }], 'the resuming run’s kwargs: input and command, as sent');
    },
  }),
  check({
    id: 'runs:ignored-input-checked',
    area: 'runs',
    title: 'an input beside a command is still held to its schema: a malformed message in it is a 422 naming it, and nothing runs',
    rule: 'RunCreate.input (MessagesInput) beside RunCreate.command',
    operations: ['createRun', 'listRuns', 'createThread'],
    difference: 'ignored-input-checked',
    async run(s, v) {
      const thread = await s.create(v);
      const graph = await runGraph(s, v);
      const refused = await answer(
        s.client.POST('/threads/{thread_id}/runs', {
          ...onThread(thread.thread_id),
          body: { assistant_id: graph, input: { messages: [{ type: 'human' }] }, command: { resume: 'yes' } } as never,
        }),
      );
      if (refused.data) await release(s, refused.data as Run);
      const locs = ((refused.error as { detail?: { loc?: unknown[] }[] } | undefined)?.detail ?? []).map((item) => item.loc?.join('.'));
      v.equal([refused.status, locs], [422, ['body.input.messages.0.content']], 'status, and the issues’ loc');
      const runs = await answer(s.client.GET('/threads/{thread_id}/runs', onThread(thread.thread_id)));
      v.equal(runs.data?.length, 0, 'runs of the thread afterwards');
    },
  }),
  check({
    id: 'runs:busy-thread',
    area: 'runs',
    title: 'a second run on a busy thread is a 409 with multitask_strategy reject; the thread is busy meanwhile',
    rule: 'createRun: 409 ErrorDetail (MultitaskStrategy reject); Thread.status busy (decision A15)',
    operations: ['createRun', 'getThread', 'cancelRun', 'createThread'],
    difference: 'run-reject-409',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v);
      const held = await holdOn(s, v, thread.thread_id);
      try {
        v.equal(held.status, 'pending', 'status of a run created with after_seconds');
        v.equal(await threadStatus(s, thread.thread_id), 'busy', 'thread status while a run is pending');
        const graph = await runGraph(s, v);
        const second = await answer(
          s.client.POST('/threads/{thread_id}/runs', { ...onThread(thread.thread_id), body: { assistant_id: graph, input: say('again') } }),
        );
        if (second.data) await release(s, second.data);
        v.equal(second.status, 409, 'status of the second run', { differs: true });
        if (second.status === 409)
          v.equal(typeof (second.error as { detail?: unknown } | undefined)?.detail, 'string', 'type of detail', { differs: true });
      } finally {
        await release(s, held);
      }
    },
  }),
  check({
    id: 'runs:delete-active',
    area: 'runs',
    title: 'deleting a run that has not ended is a 409; the run stays',
    rule: 'deleteRun: 409 ErrorDetail (decision A15)',
    operations: ['deleteRun', 'getRun', 'createRun', 'createThread'],
    difference: 'delete-active-run',
    async run(s, v) {
      const thread = await s.create(v);
      const held = await holdOn(s, v, thread.thread_id);
      try {
        const deleted = await answer(s.client.DELETE('/threads/{thread_id}/runs/{run_id}', onRun(thread.thread_id, held.run_id)));
        v.equal(deleted.status, 409, 'deleteRun status');
        v.equal((await getRun(s, thread.thread_id, held.run_id)).data?.status, 'pending', 'status of the run afterwards');
      } finally {
        await release(s, held);
      }
    },
  }),
  check({
    id: 'runs:cancel-interrupt',
    area: 'runs',
    title: 'cancelling with action interrupt and wait ends the run interrupted, answers 204, and frees the thread',
    rule: 'cancelRun: CancelAction interrupt, CancelWait, 204 (decision A15)',
    operations: ['cancelRun', 'getRun', 'getThread', 'createRun', 'createThread'],
    async run(s, v) {
      const thread = await s.create(v);
      const held = await holdOn(s, v, thread.thread_id);
      const cancelled = await answer(
        s.client.POST('/threads/{thread_id}/runs/{run_id}/cancel', {
          params: { path: { thread_id: thread.thread_id, run_id: held.run_id }, query: { wait: true, action: 'interrupt' } },
        }),
      );
      v.equal(cancelled.status, 204, 'cancelRun status');
      v.equal((await getRun(s, thread.thread_id, held.run_id)).data?.status, 'interrupted', 'status of the run');
      v.equal(await threadStatus(s, thread.thread_id), 'idle', 'thread status');
    },
  }),
  check({
    id: 'runs:cancel-rollback',
    area: 'runs',
    title: 'cancelling with action rollback deletes the run, and the thread takes the next run',
    rule: 'cancelRun: CancelAction rollback (decision A15)',
    operations: ['cancelRun', 'getRun', 'getThread', 'waitRun', 'createRun', 'createThread'],
    difference: 'rollback-deletes-the-run',
    async run(s, v) {
      const thread = await s.create(v);
      const held = await holdOn(s, v, thread.thread_id);
      const cancelled = await answer(
        s.client.POST('/threads/{thread_id}/runs/{run_id}/cancel', {
          params: { path: { thread_id: thread.thread_id, run_id: held.run_id }, query: { wait: true, action: 'rollback' } },
        }),
      );
      v.equal(cancelled.status, 204, 'cancelRun status');
      v.equal((await getRun(s, thread.thread_id, held.run_id)).status, 404, 'getRun status of the rolled back run');
      v.equal(await threadStatus(s, thread.thread_id), 'idle', 'thread status');
      const next = await waitOn(s, v, thread.thread_id, { input: say('next') });
      v.equal([next.status, humanTexts(next.data)], [200, ['next']], 'the next run: status and human messages');
    },
  }),
  check({
    id: 'runs:cancel-without-waiting',
    area: 'runs',
    title: 'cancelling with wait=0 answers 202 at once; the run ends interrupted',
    rule: 'cancelRun: CancelWait (0 and false are false), 202 (decision A15)',
    operations: ['cancelRun', 'getRun', 'createRun', 'createThread'],
    difference: 'cancel-wait-false',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v);
      const held = await holdOn(s, v, thread.thread_id);
      try {
        const cancelled = await answer(
          s.client.POST('/threads/{thread_id}/runs/{run_id}/cancel', {
            // As the LangGraph SDK sends it.
            params: { path: { thread_id: thread.thread_id, run_id: held.run_id }, query: { wait: 0, action: 'interrupt' } as never },
          }),
        );
        v.equal(cancelled.status, 202, 'cancelRun status', { differs: true });
        const ended = await settle(
          () => getRun(s, thread.thread_id, held.run_id),
          (got) => got.data?.status === 'interrupted',
        );
        v.equal(ended.data?.status, 'interrupted', 'status of the run once cancelled');
      } finally {
        await release(s, held);
      }
    },
  }),
  check({
    id: 'runs:cancel-reason',
    area: 'runs',
    title: 'cancelling with reason taken records a cancel_reason starting with taken:, which listRuns answers unless select leaves it out',
    rule: 'cancelRun: CancelReason (with action interrupt only); Run.cancel_reason; listRuns: select (decision A21)',
    operations: ['cancelRun', 'getRun', 'listRuns', 'createRun', 'createThread'],
    difference: 'cancel-reason-recorded',
    async run(s, v) {
      const thread = await s.create(v);
      const held = await holdOn(s, v, thread.thread_id);
      const queued = await holdOn(s, v, thread.thread_id, { multitask_strategy: 'enqueue' });
      try {
        const path = { thread_id: thread.thread_id, run_id: queued.run_id };
        const rolledBack = await answer(
          s.client.POST('/threads/{thread_id}/runs/{run_id}/cancel', { params: { path, query: { action: 'rollback', reason: 'taken' } } }),
        );
        v.equal(rolledBack.status, 422, 'a reason with action rollback: status');
        const cancelled = await answer(
          s.client.POST('/threads/{thread_id}/runs/{run_id}/cancel', {
            params: { path, query: { wait: true, action: 'interrupt', reason: 'taken' } },
          }),
        );
        v.equal(cancelled.status, 204, 'cancelRun status');
        const reason = (await getRun(s, thread.thread_id, queued.run_id)).data?.cancel_reason;
        v.that(reason?.startsWith('taken:') === true, `cancel_reason: expected taken:…, got ${show(reason)}`);
        const list = async (select?: string[]) =>
          (
            await answer(
              s.client.GET('/threads/{thread_id}/runs', {
                params: { path: { thread_id: thread.thread_id }, query: select ? { select: select as never } : {} },
              }),
            )
          ).data?.find((run) => run.run_id === queued.run_id);
        v.equal((await list())?.cancel_reason, reason, 'listRuns: cancel_reason');
        v.equal((await list(['run_id', 'status']))?.cancel_reason, undefined, 'listRuns with select run_id, status: cancel_reason');
        v.equal((await list(['run_id', 'cancel_reason']))?.cancel_reason, reason, 'listRuns with select cancel_reason: cancel_reason');
      } finally {
        await release(s, queued);
        await release(s, held);
      }
    },
  }),
  check({
    id: 'runs:cancel-many',
    area: 'runs',
    title: 'cancelRuns stops the runs it names and answers 204',
    rule: 'cancelRuns: RunCancel run_ids, 204 (decision A15)',
    operations: ['cancelRuns', 'getRun', 'createRun', 'createThread'],
    async run(s, v) {
      const thread = await s.create(v);
      const held = await holdOn(s, v, thread.thread_id);
      try {
        const cancelled = await answer(
          s.client.POST('/runs/cancel', {
            body: { thread_id: thread.thread_id, run_ids: [held.run_id] },
            params: { query: { action: 'interrupt' } },
          }),
        );
        v.equal(cancelled.status, 204, 'cancelRuns status');
        v.equal((await getRun(s, thread.thread_id, held.run_id)).data?.status, 'interrupted', 'status of the run');
        const unknown = await answer(s.client.POST('/runs/cancel', { body: { thread_id: thread.thread_id, run_ids: [UNKNOWN_RUN] } }));
        v.equal(unknown.status, 404, 'cancelRuns status for an unknown run');
      } finally {
        await release(s, held);
      }
    },
  }),
  check({
    id: 'runs:multitask',
    area: 'runs',
    title: 'on a busy thread, enqueue adds a pending run; interrupt ends every run in flight interrupted and runs',
    rule: 'RunCreate.multitask_strategy enqueue, interrupt (decision A17)',
    operations: ['createRun', 'joinRun', 'getRun', 'createThread'],
    async run(s, v) {
      const thread = await s.create(v);
      const held = await holdOn(s, v, thread.thread_id);
      // Also held, so that neither runs before the interrupting run comes (runs start in created_at order).
      const queued = await holdOn(s, v, thread.thread_id, {
        input: say('queued'),
        multitask_strategy: 'enqueue',
        after_seconds: HOLD_SECONDS / 2,
      });
      try {
        v.equal(queued.status, 'pending', 'status of the enqueued run');
        v.equal((await getRun(s, thread.thread_id, held.run_id)).data?.status, 'pending', 'status of the held run after the enqueue');
        const interrupting = await createOn(s, v, thread.thread_id, { input: say('now'), multitask_strategy: 'interrupt' });
        await answer(s.client.GET('/threads/{thread_id}/runs/{run_id}/join', onRun(thread.thread_id, interrupting.run_id)));
        const statuses = await Promise.all(
          [held, queued, interrupting].map(async (run) => (await getRun(s, thread.thread_id, run.run_id)).data?.status),
        );
        v.equal(statuses, ['interrupted', 'interrupted', 'success'], 'statuses of the held, the enqueued and the interrupting run');
        v.equal(humanTexts((await s.state(v, thread.thread_id)).values), ['now'], 'human messages of the thread');
      } finally {
        await release(s, queued);
        await release(s, held);
      }
    },
  }),
  check({
    id: 'runs:breakpoint',
    area: 'runs',
    title: 'interrupt_before "*" stops the run before its first node, the thread interrupted; a run without input goes on',
    rule: 'RunCreate.interrupt_before (InterruptNodes), RunWaitResult __interrupt__; Thread.status interrupted (decision A15)',
    operations: ['waitRun', 'getThread', 'getThreadState', 'createThread'],
    async run(s, v) {
      const thread = await s.create(v);
      const stopped = await waitOn(s, v, thread.thread_id, { input: say('hello'), interrupt_before: '*' });
      v.equal(stopped.data, { __interrupt__: [] }, 'waitRun answer at a breakpoint');
      v.equal(await threadStatus(s, thread.thread_id), 'interrupted', 'thread status at the breakpoint');
      const state = await s.state(v, thread.thread_id);
      v.that(state.next.length > 0, `next at the breakpoint: expected a node, got ${JSON.stringify(state.next)}`);
      const resumed = await waitOn(s, v, thread.thread_id, { input: null });
      v.equal(
        [resumed.status, '__interrupt__' in (resumed.data ?? {})],
        [200, false],
        'the run without input: status, and no __interrupt__',
      );
      v.equal(humanTexts(resumed.data), ['hello'], 'human messages after it');
      v.equal(await threadStatus(s, thread.thread_id), 'idle', 'thread status after it');
    },
  }),
  check({
    id: 'runs:from-checkpoint',
    area: 'runs',
    title: 'a run from an earlier checkpoint branches there; the next run follows the branch; an unknown checkpoint is a 404',
    rule: 'RunCreate.checkpoint_id (RunCheckpointId; decision A15)',
    operations: ['waitRun', 'getThreadHistory', 'getThreadState', 'createThread'],
    difference: 'checkpoint-not-sticky',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v);
      await waitOn(s, v, thread.thread_id, { input: say('one') });
      const afterOne = checkpointIdOf(await s.state(v, thread.thread_id));
      await waitOn(s, v, thread.thread_id, { input: say('two') });
      const regenerated = await waitOn(s, v, thread.thread_id, { input: say('three'), checkpoint_id: afterOne! });
      v.equal(humanTexts(regenerated.data), ['one', 'three'], 'human messages of the run from the checkpoint after "one"');
      const followed = await waitOn(s, v, thread.thread_id, { input: say('four') });
      v.equal(humanTexts(followed.data), ['one', 'three', 'four'], 'human messages of the next run', { differs: true });
      const unknown = await waitOn(s, v, thread.thread_id, { input: say('five'), checkpoint_id: UNKNOWN_CHECKPOINT });
      v.equal(unknown.status, 404, 'waitRun status from an unknown checkpoint', { differs: true });
    },
  }),
  check({
    id: 'runs:stateless',
    area: 'runs',
    title: 'stateless runs and batches run on threads of their own, deleted when they end',
    rule: 'waitStatelessRun: 200 RunWaitResult; createStatelessRun, createRunBatch: 200 Run (RunOnCompletion delete)',
    operations: ['waitStatelessRun', 'createStatelessRun', 'createRunBatch', 'joinRun', 'getThread'],
    async run(s, v) {
      const graph = await runGraph(s, v);
      const waited = await answer(s.client.POST('/runs/wait', { body: { assistant_id: graph, input: say('hello') } }));
      v.equal([waited.status, humanTexts(waited.data)], [200, ['hello']], 'waitStatelessRun: status and human messages');
      const created = await answer(s.client.POST('/runs', { body: { assistant_id: graph, input: say('alone') } }));
      v.equal(created.status, 200, 'createStatelessRun status');
      const batch = await answer(
        s.client.POST('/runs/batch', { body: [0, 1].map((i) => ({ assistant_id: graph, input: say(`batch ${i}`), metadata: { i } })) }),
      );
      v.equal(batch.status, 200, 'createRunBatch status');
      v.equal(
        batch.data?.map((run) => run.metadata?.i),
        [0, 1],
        'createRunBatch: the runs, in the order given',
      );
      const runs = [...(created.data ? [created.data] : []), ...(batch.data ?? [])];
      v.equal(new Set(runs.map((run) => run.thread_id)).size, runs.length, 'each run has a thread of its own');
      for (const run of runs) {
        // The join answers once the run has ended (or 404, when its thread is already gone with it).
        await answer(s.client.GET('/threads/{thread_id}/runs/{run_id}/join', onRun(run.thread_id, run.run_id)));
        const gone = await settle(
          () => answer(s.client.GET('/threads/{thread_id}', onThread(run.thread_id))),
          (got) => got.status === 404,
          ENDED_MS,
        );
        v.equal(gone.status, 404, `the thread of run ${run.run_id} once it ended: getThread status`);
      }
    },
  }),

  // With the conformance script (conformance-graph.ts).
  check({
    id: 'runs:tool-call',
    area: 'runs',
    title: 'a reply with a tool call runs the tool, and the model answers after it (conformance script)',
    rule: 'AiMessage.tool_calls, ToolMessage (decision A16)',
    operations: ['waitRun', 'getThreadState', 'createThread'],
    difference: 'tool-message-metadata',
    differenceIn: 'marked findings',
    async run(s, v) {
      const { thread, waited } = await scriptedRun(s, v, { input: say('tool: order') });
      const messages = messagesOf(waited.data);
      v.equal(
        messages.map((m) => m.type),
        ['human', 'ai', 'tool', 'ai'],
        'message types',
      );
      const call = (messages[1]?.tool_calls?.[0] ?? {}) as { id?: string; name?: string; args?: unknown };
      v.equal(
        [textOf(messages[1]), call.name, call.args],
        [SCRIPTED.toolCall.text, SCRIPTED.toolCall.name, SCRIPTED.toolCall.args],
        'the tool call',
      );
      const tool = messages[2];
      v.equal([textOf(tool), tool?.name, tool?.tool_call_id], [SCRIPTED.toolAnswer, call.name, call.id], 'the tool message');
      v.equal(tool?.metadata ?? {}, {}, 'metadata of the tool message', { differs: true });
      v.equal(textOf(messages[3]), SCRIPTED.afterTool, 'the answer after the tool');
      const state = await s.state(v, thread.thread_id);
      v.equal([state.next, state.tasks], [[], []], 'next and tasks once it ended');
    },
  }),
  check({
    id: 'runs:node-error',
    area: 'runs',
    title: 'a node that raises fails the run: its task in the state holds the message (conformance script)',
    rule: 'ThreadTask.error; Run.status, Thread.status error (decision A16)',
    operations: ['waitRun', 'getThreadState', 'getThread', 'createThread'],
    difference: 'task-error-message',
    differenceIn: 'marked findings',
    async run(s, v) {
      const { thread, waited: failed } = await scriptedRun(s, v, { input: say('fail: now') });
      v.equal((failed.data as { __error__?: { error?: unknown } } | undefined)?.__error__?.error, 'Error', '__error__.error');
      v.equal(await threadStatus(s, thread.thread_id), 'error', 'thread status');
      const state = await s.state(v, thread.thread_id);
      v.equal(
        state.tasks.map((task) => task.name),
        ['agent'],
        'the tasks of the failed step',
      );
      v.equal(state.tasks[0]?.error, SCRIPTED.error, 'error of the failed task', { differs: true });
    },
  }),
  check({
    id: 'runs:recursion-limit',
    area: 'runs',
    title:
      'a run over its recursion limit fails: waitRun answers __error__ GraphRecursionError, the run and the thread are error (conformance script)',
    rule: 'RunConfig.recursion_limit; RunWaitResult __error__; Run.status, Thread.status error (decision A15)',
    operations: ['waitRun', 'getRun', 'getThread', 'createThread'],
    difference: 'run-error-message',
    differenceIn: 'marked findings',
    async run(s, v) {
      // A tool call takes four steps (__start__, agent, tools, agent): two are not enough.
      const { thread, waited: failed } = await scriptedRun(s, v, { input: say('tool: order'), config: { recursion_limit: 2 } });
      const error = (failed.data as { __error__?: { error?: unknown; message?: unknown } } | undefined)?.__error__;
      v.equal(failed.status, 200, 'status');
      v.equal(error?.error, 'GraphRecursionError', '__error__.error', { differs: true });
      v.that(
        typeof error?.message === 'string' && error.message.startsWith('Recursion limit of 2 reached'),
        `__error__.message: expected the error's own message, got ${JSON.stringify(error?.message)}`,
        { differs: true },
      );
      const runId = runIdOf(failed.headers.get('content-location'));
      if (runId) v.equal((await getRun(s, thread.thread_id, runId)).data?.status, 'error', 'status of the run');
      v.equal(await threadStatus(s, thread.thread_id), 'error', 'thread status');
    },
  }),
  check({
    id: 'runs:interrupt',
    area: 'runs',
    title: 'an interrupt stops the run with its value; a command resume answers it (conformance script)',
    rule: 'RunWaitResult __interrupt__; Thread.interrupts; RunCommand.resume (decision A16)',
    operations: ['waitRun', 'getThread', 'getThreadState', 'createThread'],
    async run(s, v) {
      const { graph, thread, waited: stopped } = await scriptedRun(s, v, { input: say('ask: refund') });
      const on = onThread(thread.thread_id);
      const interrupts = (stopped.data as { __interrupt__?: { value?: unknown }[] } | undefined)?.__interrupt__;
      v.equal(Object.keys(stopped.data ?? {}), ['__interrupt__'], 'keys of the waitRun answer');
      v.equal(
        interrupts?.map((i) => i.value),
        [SCRIPTED.interrupt],
        'the interrupt values',
      );
      const interrupted = (await answer(s.client.GET('/threads/{thread_id}', on))).data;
      v.equal(interrupted?.status, 'interrupted', 'thread status');
      v.equal(
        Object.values(interrupted?.interrupts ?? {}).flatMap((list) => (list as { value?: unknown }[]).map((i) => i.value)),
        [SCRIPTED.interrupt],
        'Thread.interrupts',
      );
      const state = await s.state(v, thread.thread_id);
      v.equal(
        state.tasks.flatMap((task) => (task.interrupts ?? []).map((i) => i.value)),
        [SCRIPTED.interrupt],
        'interrupts of the state’s tasks',
      );
      const resumed = await waitOn(s, v, thread.thread_id, { command: { resume: 'yes' } }, graph);
      v.equal(textOf(messagesOf(resumed.data).at(-1)), SCRIPTED.resumed('yes'), 'the reply after the resume');
      v.equal(await threadStatus(s, thread.thread_id), 'idle', 'thread status after the resume');
    },
  }),
  check({
    id: 'runs:strict-resume',
    area: 'runs',
    title:
      'with strict_resume, answers naming an interrupt that does not wait fail the run (UnknownInterruptError) and leave the thread waiting; the right one resumes it (conformance script)',
    rule: 'RunCreate.strict_resume; RunError reason, interrupt_ids, pending_ids (decision A22)',
    operations: ['waitRun', 'getThread', 'getThreadState', 'createThread'],
    difference: 'strict-resume',
    async run(s, v) {
      const { graph, thread } = await scriptedRun(s, v, { input: say('ask: refund') });
      const waiting = await s.state(v, thread.thread_id);
      const id = waiting.tasks.flatMap((task) => task.interrupts ?? []).map((one) => one.id)[0];
      if (!id) return v.stop('the thread waits at no interrupt with an id');
      const stale = '0123456789abcdef0123456789abcdef';
      const refused = await waitOn(s, v, thread.thread_id, { command: { resume: { [stale]: 'late' } }, strict_resume: true }, graph);
      v.equal(
        (refused.data as { __error__?: unknown } | undefined)?.__error__,
        {
          error: 'UnknownInterruptError',
          message: `Unknown or already-consumed interrupt: ${stale}`,
          reason: 'not_pending',
          interrupt_ids: [stale],
          pending_ids: [id],
        },
        'the answer to a resume naming an interrupt that does not wait',
      );
      v.equal(await threadStatus(s, thread.thread_id), 'interrupted', 'thread status after the refused resume');
      v.equal(await s.state(v, thread.thread_id), waiting, 'the thread’s state after the refused resume');
      const resumed = await waitOn(s, v, thread.thread_id, { command: { resume: { [id]: 'yes' } }, strict_resume: true }, graph);
      v.equal(textOf(messagesOf(resumed.data).at(-1)), SCRIPTED.resumed('yes'), 'the reply after the resume naming its interrupt');
    },
  }),
  check({
    id: 'runs:keyed-by-interrupt-id',
    area: 'runs',
    title: 'a resume with keyedByInterruptId false is one answer, whole, even when its keys look like interrupt IDs (conformance script)',
    rule: 'RunCommand.keyedByInterruptId, RunCommand.resume (decision A22)',
    operations: ['waitRun', 'getThreadState', 'createThread'],
    difference: 'keyed-by-interrupt-id',
    async run(s, v) {
      const { graph, thread } = await scriptedRun(s, v, { input: say('ask: refund') });
      const id = (await s.state(v, thread.thread_id)).tasks.flatMap((task) => task.interrupts ?? []).map((one) => one.id)[0];
      if (!id) return v.stop('the thread waits at no interrupt with an id');
      const answerGiven = { [id]: 'yes' };
      const resumed = await waitOn(s, v, thread.thread_id, { command: { resume: answerGiven, keyedByInterruptId: false } }, graph);
      v.equal(
        textOf(messagesOf(resumed.data).at(-1)),
        SCRIPTED.resumed(JSON.stringify(answerGiven)),
        'the reply: the node is given the answer whole',
      );
    },
  }),
];
