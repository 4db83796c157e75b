// Layer (b) for the agent server: behaviour a schema cannot express, as stateful scenarios on the
// run's own threads (and, in agent-server-assistants.ts, its own assistants). Each check names the
// rule it enforces (the operation and field, or the decision record entry, docs/decisions.md)
// and, where the spec declares the LangGraph JS server deliberately differs on that rule, the id
// of that difference.
import type { MessageInput, Thread, ThreadState } from '@agentplane/agent-server';
import type { Verify } from '../verify.js';
import { canonical, show } from '../verify.js';
import { ASSISTANT_CHECKS } from './agent-server-assistants.js';
import { CRON_CHECKS } from './agent-server-crons.js';
import { AGENT_SERVER_PROTOCOL_CHECKS } from './agent-server-protocol.js';
import { AGENT_SERVER_RUN_CHECKS } from './agent-server-runs.js';
import type { AgentServerSession } from './agent-server-session.js';
import {
  answer,
  CONVERSATION,
  CONVERSATION_MESSAGES,
  checkpointIdOf,
  expectNotFound,
  messageSummary,
  parentIdOf,
  short,
  UNKNOWN_CHECKPOINT,
  UNKNOWN_THREAD,
} from './agent-server-session.js';
import { STORE_CHECKS } from './agent-server-store.js';
import { AGENT_SERVER_STREAM_CHECKS } from './agent-server-streams.js';
import type { CheckDefinition } from './check.js';

type Check = CheckDefinition<AgentServerSession>;
const check = (definition: Omit<Check, 'api'>): Check => ({ api: 'agent-server', ...definition });

const path = (thread_id: string) => ({ params: { path: { thread_id } } });

/**
 * Creates a thread (of the run's graph, tagged as this run's) whose one superstep writes `messages`
 * as the node `agent`; the thread, when made, is deleted with the run's others.
 */
async function createWithMessages(s: AgentServerSession, messages: MessageInput[]) {
  const supersteps = [{ updates: [{ as_node: 'agent', values: { messages } }] }];
  const created = await answer(
    s.client.POST('/threads', { body: { metadata: { ...s.tag, ...(s.graphId ? { graph_id: s.graphId } : {}) }, supersteps } }),
  );
  if (created.data) s.track(created.data.thread_id);
  return created;
}

/** Three threads of the run with different metadata, the third with the conversation. */
async function threeThreads(s: AgentServerSession, v: Verify): Promise<Thread[]> {
  const group = crypto.randomUUID();
  return [
    await s.create(v, { metadata: { group, i: 0, kind: 'a' } }),
    await s.create(v, { metadata: { group, i: 1, kind: 'b' } }),
    await s.conversation(v, { group, i: 2, kind: 'a' }),
  ];
}
const order = (threads: Thread[] | undefined) => (threads ?? []).map((t) => t.metadata?.i);
const groupOf = (threads: Thread[]) => threads[0]!.metadata!.group;

/** A state's checkpoint ids, newest first. */
const ids = (history: ThreadState[]) => history.map(checkpointIdOf);

export const AGENT_SERVER_CHECKS: Check[] = [
  // Threads
  check({
    id: 'threads:create-supersteps',
    area: 'threads',
    title: 'a thread created with supersteps has their values, in its answer and its state',
    rule: 'createThread: ThreadCreate.supersteps, 200 Thread.values (decisions A4, A5, A10)',
    operations: ['createThread', 'getThreadState'],
    async run(s, v) {
      const thread = await s.conversation(v);
      v.equal(messageSummary(thread.values), CONVERSATION_MESSAGES, 'messages of the create answer');
      v.equal(thread.values?.topic, 'weather', 'topic of the create answer');
      const state = await s.state(v, thread.thread_id);
      v.equal(messageSummary(state.values), CONVERSATION_MESSAGES, 'messages of the state');
      v.equal(state.values.topic, 'weather', 'topic of the state');
    },
  }),
  check({
    id: 'threads:create-empty-values',
    area: 'threads',
    title: 'a new thread without supersteps answers values {}',
    rule: 'createThread: 200 Thread.values (decision A4)',
    operations: ['createThread'],
    difference: 'thread-values',
    async run(s, v) {
      const thread = await s.create(v);
      v.equal(thread.values, {}, 'values of the create answer');
    },
  }),
  check({
    id: 'threads:get',
    area: 'threads',
    title: 'get answers the thread with its metadata and config, without values',
    rule: 'getThread: 200 Thread, values absent, config present (decision A8)',
    operations: ['getThread', 'createThread'],
    difference: 'thread-values',
    async run(s, v) {
      const thread = await s.conversation(v, { kept: 'yes' });
      const got = await answer(s.client.GET('/threads/{thread_id}', path(thread.thread_id)));
      if (!v.that(got.status === 200 && got.data !== undefined, `getThread answered ${got.status}`)) return;
      v.equal(got.data!.thread_id, thread.thread_id, 'thread_id');
      v.equal(got.data!.metadata?.kept, 'yes', 'metadata.kept');
      v.that(got.data!.values === undefined, `values are answered (${short(got.data!.values)}); a get answer leaves them out`);
      v.that(got.data!.config !== undefined, 'config is absent');
    },
  }),
  check({
    id: 'threads:state-updated-at',
    area: 'threads',
    title: "a thread with state carries state_updated_at, its latest checkpoint's time",
    rule: 'Thread.state_updated_at (decision A11)',
    operations: ['getThread', 'createThread', 'getThreadState', 'searchThreads'],
    difference: 'thread-state-updated-at',
    async run(s, v) {
      const thread = await s.conversation(v);
      const got = await answer(s.client.GET('/threads/{thread_id}', path(thread.thread_id)));
      const state = await s.state(v, thread.thread_id);
      const at = got.data?.state_updated_at;
      if (!v.that(typeof at === 'string', 'getThread answers no state_updated_at')) return;
      v.equal(Date.parse(at!), Date.parse(state.created_at ?? ''), "state_updated_at against the latest checkpoint's created_at");
    },
  }),
  check({
    id: 'threads:copy',
    area: 'threads',
    title: "a copy is a new idle thread with the same metadata, and its history equals the original's",
    rule: 'copyThread: 200 Thread (decision A6)',
    operations: ['copyThread', 'getThreadHistory', 'createThread'],
    async run(s, v) {
      const original = await s.conversation(v, { kept: 'yes' });
      const copied = await answer(s.client.POST('/threads/{thread_id}/copy', path(original.thread_id)));
      if (copied.data) s.track(copied.data.thread_id);
      if (!copied.data) return v.stop(`copyThread answered ${copied.status}: ${short(copied.error)}`);
      const copy = copied.data;
      v.that(copy.thread_id !== original.thread_id, 'the copy has the original thread_id');
      v.equal(copy.metadata?.kept, 'yes', 'metadata.kept of the copy');
      v.equal(copy.status, 'idle', 'status of the copy');
      const shape = (history: ThreadState[]) =>
        history.map((entry) => [entry.metadata?.step, entry.metadata?.source, entry.values, entry.next]);
      v.equal(
        shape(await s.history(v, copy.thread_id)),
        shape(await s.history(v, original.thread_id)),
        "the copy's history (step, source, values, next per entry)",
      );
    },
  }),
  check({
    id: 'threads:update-metadata',
    area: 'threads',
    title: 'update merges the given metadata into the thread',
    rule: 'updateThread: ThreadPatch.metadata (decision A11)',
    operations: ['updateThread', 'getThread', 'createThread'],
    async run(s, v) {
      const thread = await s.create(v, { metadata: { kept: 1 } });
      const updated = await answer(s.client.PATCH('/threads/{thread_id}', { ...path(thread.thread_id), body: { metadata: { added: 2 } } }));
      v.equal(updated.status, 200, 'status');
      v.equal([updated.data?.metadata?.kept, updated.data?.metadata?.added], [1, 2], 'metadata kept and added, in the answer');
      const got = await answer(s.client.GET('/threads/{thread_id}', path(thread.thread_id)));
      v.equal([got.data?.metadata?.kept, got.data?.metadata?.added], [1, 2], 'metadata kept and added, read back');
    },
  }),
  check({
    id: 'threads:update-return-minimal',
    area: 'threads',
    title: 'update with Prefer: return=minimal answers 204 and still applies',
    rule: 'updateThread: Prefer header, 204 (decision A11)',
    operations: ['updateThread', 'getThread', 'createThread'],
    difference: 'prefer-return-minimal',
    async run(s, v) {
      const thread = await s.create(v);
      const updated = await answer(
        s.client.PATCH('/threads/{thread_id}', {
          params: { path: { thread_id: thread.thread_id }, header: { Prefer: 'return=minimal' } },
          body: { metadata: { added: 2 } },
        }),
      );
      v.equal(updated.status, 204, 'status');
      const got = await answer(s.client.GET('/threads/{thread_id}', path(thread.thread_id)));
      v.equal(got.data?.metadata?.added, 2, 'metadata.added read back');
    },
  }),
  check({
    id: 'threads:update-ttl-only',
    area: 'threads',
    title: 'update with only a ttl (no metadata) is accepted',
    rule: 'updateThread: ThreadPatch, every field optional (decision A11)',
    operations: ['updateThread', 'createThread'],
    difference: 'update-without-metadata',
    async run(s, v) {
      const thread = await s.create(v);
      const updated = await answer(s.client.PATCH('/threads/{thread_id}', { ...path(thread.thread_id), body: { ttl: 60 } }));
      v.equal(updated.status, 200, `status (${short(updated.error)})`);
    },
  }),
  check({
    id: 'threads:include-ttl',
    area: 'threads',
    title: 'getThread with include=ttl answers the thread’s time to live: the minutes last given, when it runs out; null for none',
    rule: 'getThread: include (ttl); Thread.ttl (decision A24)',
    operations: ['getThread', 'createThread'],
    difference: 'thread-include-ttl',
    async run(s, v) {
      const before = Date.now();
      const thread = await s.create(v, { ttl: 120 });
      const read = async (threadId: string) =>
        (await answer(s.client.GET('/threads/{thread_id}', { params: { path: { thread_id: threadId }, query: { include: ['ttl'] } } })))
          .data?.ttl;
      const ttl = await read(thread.thread_id);
      v.equal([ttl?.strategy, ttl?.ttl_minutes], ['delete', 120], 'ttl: strategy and ttl_minutes');
      const left = Date.parse(ttl?.expires_at ?? '') - before;
      v.that(
        left >= 120 * 60_000 && left < 125 * 60_000,
        `ttl.expires_at: expected 120 minutes from the create, got ${show(ttl?.expires_at)}`,
      );
      v.equal(await read((await s.create(v)).thread_id), null, 'ttl of a thread without one');
    },
  }),
  check({
    id: 'threads:delete',
    area: 'threads',
    title: 'a deleted thread is a 404 everywhere, search no longer finds it, and a second delete is a 404',
    rule: 'deleteThread: 204, then 404 on getThread, getThreadState, getThreadHistory, deleteThread (decision A11)',
    operations: ['deleteThread', 'getThread', 'getThreadState', 'getThreadHistory', 'searchThreads', 'createThread'],
    async run(s, v) {
      const thread = await s.conversation(v, { deleted: true });
      const deleted = await answer(s.client.DELETE('/threads/{thread_id}', path(thread.thread_id)));
      if (!v.equal(deleted.status, 204, 'status of the delete')) return;
      s.forget(thread.thread_id);
      const p = path(thread.thread_id);
      v.equal((await answer(s.client.GET('/threads/{thread_id}', p))).status, 404, 'getThread after delete');
      v.equal((await answer(s.client.GET('/threads/{thread_id}/state', p))).status, 404, 'getThreadState after delete');
      v.equal(
        (await answer(s.client.POST('/threads/{thread_id}/history', { ...p, body: {} }))).status,
        404,
        'getThreadHistory after delete',
      );
      const found = await s.search({ metadata: { deleted: true }, ids: [thread.thread_id] });
      v.equal(found.data?.length, 0, 'search results for the deleted thread');
      v.equal((await answer(s.client.DELETE('/threads/{thread_id}', p))).status, 404, 'second delete');
    },
  }),
  check({
    id: 'threads:prune',
    area: 'threads',
    title: 'prune deletes the given threads, or keeps only their latest checkpoint, without a parent',
    rule: 'pruneThreads: ThreadPrune.strategy delete | keep_latest, 200 ThreadPruneResult (decision A11)',
    operations: ['pruneThreads', 'getThread', 'getThreadHistory', 'createThread'],
    async run(s, v) {
      const [pruned, kept] = [await s.conversation(v), await s.conversation(v)];
      const deleted = await answer(s.client.POST('/threads/prune', { body: { thread_ids: [pruned.thread_id], strategy: 'delete' } }));
      v.equal([deleted.status, deleted.data?.pruned_count], [200, 1], 'status and pruned_count of a delete prune');
      if (deleted.status === 200) s.forget(pruned.thread_id);
      v.equal((await answer(s.client.GET('/threads/{thread_id}', path(pruned.thread_id)))).status, 404, 'getThread of a pruned thread');
      const trimmed = await answer(s.client.POST('/threads/prune', { body: { thread_ids: [kept.thread_id], strategy: 'keep_latest' } }));
      v.equal([trimmed.status, trimmed.data?.pruned_count], [200, 1], 'status and pruned_count of a keep_latest prune');
      const history = await s.history(v, kept.thread_id);
      v.equal(history.length, 1, 'history length after keep_latest');
      v.equal(parentIdOf(history[0]), undefined, 'parent of the checkpoint kept');
      v.equal(messageSummary(history[0]?.values), CONVERSATION_MESSAGES, 'messages of the checkpoint kept');
    },
  }),

  // State
  check({
    id: 'state:checkpoints',
    area: 'state',
    title: 'each superstep makes one checkpoint with its source, step and writes, and states carry checkpoint ids',
    rule: 'CheckpointMetadata.source, step, writes; ThreadState.checkpoint_id (decision A5)',
    operations: ['getThreadHistory', 'createThread'],
    difference: 'state-checkpoint-fields',
    async run(s, v) {
      const thread = await s.conversation(v);
      const history = (await s.history(v, thread.thread_id)).toReversed();
      v.equal(history.length, CONVERSATION.length, 'number of checkpoints');
      v.equal(
        history.map((entry) => entry.metadata?.source),
        ['input', 'update', 'update', 'update', 'update'],
        'metadata.source, oldest first',
      );
      v.equal(
        history.map((entry) => entry.metadata?.step),
        [-1, 0, 1, 2, 3],
        'metadata.step, oldest first',
      );
      v.equal(
        history.map((entry) => Object.keys(entry.metadata?.writes ?? {})),
        CONVERSATION.map((step) => step.updates.map((update) => update.as_node)),
        'metadata.writes names each superstep node, oldest first',
      );
      v.that(
        history.every(
          (entry) => entry.checkpoint_id === checkpointIdOf(entry) && entry.parent_checkpoint_id === (parentIdOf(entry) ?? null),
        ),
        'checkpoint_id and parent_checkpoint_id of each state equal its checkpoint and parent_checkpoint',
      );
    },
  }),
  check({
    id: 'state:input-checkpoint',
    area: 'state',
    title: 'the input checkpoint holds the state before the input (no message yet), with next ["__start__"]',
    rule: 'ThreadState of an __input__ superstep: values, next (decision A5)',
    operations: ['getThreadHistory', 'createThread'],
    async run(s, v) {
      const thread = await s.conversation(v);
      const input = (await s.history(v, thread.thread_id)).at(-1);
      v.equal(input?.next, ['__start__'], 'next of the input checkpoint');
      // A server that knows the graph holds every channel's default here (messages: []); one
      // that does not holds only what was written: nothing. Neither holds a message yet.
      v.equal(messageSummary(input?.values) ?? [], [], 'messages of the input checkpoint');
    },
  }),
  check({
    id: 'state:next-and-tasks',
    area: 'state',
    title: 'next and tasks name the same nodes, in the same order, in every state of the history',
    rule: 'ThreadState.next, ThreadState.tasks (decision A5)',
    operations: ['getThreadHistory', 'createThread'],
    async run(s, v) {
      const thread = await s.conversation(v);
      const history = await s.history(v, thread.thread_id);
      v.equal(
        history.map((entry) => entry.tasks.map((task) => task.name)),
        history.map((entry) => entry.next),
        'task names against next, newest state first',
      );
    },
  }),
  check({
    id: 'state:at-checkpoint',
    area: 'state',
    title: 'the current state, and the state at a checkpoint taken from the history (by id and as an object), equal those history entries',
    rule: 'getThreadState, getThreadStateAtCheckpoint, getThreadStateAtCheckpointObject: 200 ThreadState (decision A8)',
    operations: ['getThreadStateAtCheckpoint', 'getThreadStateAtCheckpointObject', 'getThreadState', 'getThreadHistory', 'createThread'],
    async run(s, v) {
      const thread = await s.conversation(v);
      const history = await s.history(v, thread.thread_id);
      v.equal(await s.state(v, thread.thread_id), history[0], 'current state against the newest history entry');
      const entry = history[2]!;
      const byId = await answer(
        s.client.GET('/threads/{thread_id}/state/{checkpoint_id}', {
          params: { path: { thread_id: thread.thread_id, checkpoint_id: checkpointIdOf(entry)! } },
        }),
      );
      v.equal(byId.data, entry, 'state at a checkpoint id against its history entry');
      const byObject = await answer(
        s.client.POST('/threads/{thread_id}/state/checkpoint', {
          ...path(thread.thread_id),
          body: { checkpoint: { checkpoint_id: checkpointIdOf(entry)!, checkpoint_ns: '' } },
        }),
      );
      v.equal(byObject.data, entry, 'state at a checkpoint object against its history entry');
    },
  }),
  check({
    id: 'state:update',
    area: 'state',
    title: 'update state makes one checkpoint whose parent is the one it was applied to, and answers it; so does a fork',
    rule: 'updateThreadState: ThreadStateUpdate.checkpoint_id, 200 ThreadStateUpdateResult (decision A11)',
    operations: ['updateThreadState', 'getThreadState', 'getThreadHistory', 'createThread'],
    async run(s, v) {
      const thread = await s.conversation(v);
      const before = await s.history(v, thread.thread_id);
      const updated = await answer(
        s.client.POST('/threads/{thread_id}/state', {
          ...path(thread.thread_id),
          body: { values: { topic: 'forecast' }, as_node: 'agent' },
        }),
      );
      if (!updated.data) return v.stop(`updateThreadState answered ${updated.status}: ${short(updated.error)}`);
      const after = await s.history(v, thread.thread_id);
      v.equal(after.length, before.length + 1, 'history length after one update');
      v.equal(ids(after.slice(1)), ids(before), 'the older checkpoints, unchanged');
      v.equal(parentIdOf(after[0]), checkpointIdOf(before[0]), 'parent of the new checkpoint');
      v.equal(updated.data.checkpoint.checkpoint_id, checkpointIdOf(after[0]), 'the checkpoint answered');
      v.equal(after[0]?.values.topic, 'forecast', 'topic after the update');
      // A fork: applied to an older checkpoint, the new one's parent is that one.
      const base = before[2]!;
      const forked = await answer(
        s.client.POST('/threads/{thread_id}/state', {
          ...path(thread.thread_id),
          body: { values: { topic: 'fork' }, as_node: 'agent', checkpoint_id: checkpointIdOf(base)! },
        }),
      );
      if (!forked.data) return v.stop(`updateThreadState with a checkpoint_id answered ${forked.status}: ${short(forked.error)}`);
      const state = await s.state(v, thread.thread_id);
      v.equal(parentIdOf(state), checkpointIdOf(base), 'parent of the forked checkpoint');
      v.equal(messageSummary(state.values), messageSummary(base.values), 'messages of the fork (those of its base)');
      v.equal(state.values.topic, 'fork', 'topic of the fork');
    },
  }),
  check({
    id: 'state:select',
    area: 'state',
    title: 'select keeps the selected keys of a state’s values (in getState, at a checkpoint and in history); the other fields stay',
    rule: 'getThreadState, getThreadStateAtCheckpoint, getThreadStateAtCheckpointObject, getThreadHistory: ThreadStateSelect (decision A20)',
    operations: ['getThreadState', 'getThreadStateAtCheckpoint', 'getThreadStateAtCheckpointObject', 'getThreadHistory', 'createThread'],
    difference: 'state-select',
    async run(s, v) {
      const thread = await s.conversation(v);
      const whole = await s.state(v, thread.thread_id);
      const id = checkpointIdOf(whole)!;
      const query = { select: ['values.messages'] };
      const reads = [
        ['getThreadState', s.client.GET('/threads/{thread_id}/state', { params: { path: { thread_id: thread.thread_id }, query } })],
        [
          'getThreadStateAtCheckpoint',
          s.client.GET('/threads/{thread_id}/state/{checkpoint_id}', {
            params: { path: { thread_id: thread.thread_id, checkpoint_id: id }, query },
          }),
        ],
        [
          'getThreadStateAtCheckpointObject',
          s.client.POST('/threads/{thread_id}/state/checkpoint', {
            ...path(thread.thread_id),
            body: { checkpoint: { checkpoint_id: id }, ...query },
          }),
        ],
      ] as const;
      for (const [operation, call] of reads) {
        const read = await answer<ThreadState>(call);
        v.equal(read.data, { ...whole, values: { messages: whole.values.messages } }, `${operation} with select values.messages`);
      }
      const history = await s.history(v, thread.thread_id, { limit: 100, select: ['values.topic'] });
      v.equal(
        history.map((state) => Object.keys(state.values)),
        (await s.history(v, thread.thread_id)).map((state) => ('topic' in state.values ? ['topic'] : [])),
        'keys of each history state’s values with select values.topic',
      );
      const none = await answer<ThreadState>(
        s.client.GET('/threads/{thread_id}/state', { params: { path: { thread_id: thread.thread_id }, query: { select: ['next'] } } }),
      );
      v.equal([none.data?.values, none.data?.checkpoint_id], [{}, id], 'select next: values and checkpoint_id');
    },
  }),
  check({
    id: 'state:update-without-graph-id',
    area: 'state',
    title: 'state can be written on a thread whose metadata has no graph_id',
    rule: 'updateThreadState: 200 on any thread (decision A11)',
    operations: ['updateThreadState', 'getThreadState', 'createThread'],
    difference: 'state-without-graph-id',
    async run(s, v) {
      const thread = await s.create(v, {}, false);
      const updated = await answer(
        s.client.POST('/threads/{thread_id}/state', { ...path(thread.thread_id), body: { values: { topic: 'x' } } }),
      );
      if (!v.equal(updated.status, 200, `status (${short(updated.error)})`)) return;
      v.equal((await s.state(v, thread.thread_id)).values, { topic: 'x' }, 'values read back');
    },
  }),
  check({
    id: 'state:patch',
    area: 'state',
    title: "patch state merges metadata into the current checkpoint's",
    rule: 'patchThreadState: ThreadStatePatch.metadata, 204 (decision A11)',
    operations: ['patchThreadState', 'getThreadState', 'createThread'],
    async run(s, v) {
      const thread = await s.conversation(v);
      const patched = await answer(
        s.client.PATCH('/threads/{thread_id}/state', { ...path(thread.thread_id), body: { metadata: { reviewed: true } } }),
      );
      v.equal(patched.status, 204, 'status');
      const state = await s.state(v, thread.thread_id);
      v.equal([state.metadata.reviewed, state.metadata.step], [true, 3], 'metadata.reviewed added, metadata.step kept');
    },
  }),
  check({
    id: 'state:remove-unknown-message',
    area: 'state',
    title: 'a RemoveMessage of an id the list does not have removes nothing, and the write succeeds',
    rule: 'RemoveMessage (decision A10)',
    operations: ['createThread'],
    difference: 'remove-unknown-message',
    async run(s, v) {
      const created = await createWithMessages(s, [{ type: 'remove', id: 'not-there' }]);
      v.equal(created.status, 200, `status (${short(created.error)})`);
    },
  }),

  check({
    id: 'state:role-form-messages',
    area: 'state',
    title: 'messages written in the role form of chat-completion APIs are stored, and answered, in the type form',
    rule: 'MessageInput: RoleMessageInput, OpenAiToolCall',
    operations: ['createThread', 'getThreadState'],
    async run(s, v) {
      const messages = [
        { role: 'developer' as const, content: 'Answer in English.' },
        { role: 'user' as const, content: 'Where is my order?' },
        {
          role: 'assistant' as const,
          content: '',
          tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'lookup_order', arguments: '{"order_id": "4512"}' } }],
        },
        { role: 'tool' as const, content: 'shipped', tool_call_id: 'call_1' },
      ];
      const created = await createWithMessages(s, messages);
      if (!created.data) return v.stop(`createThread answered ${created.status}: ${short(created.error)}`);
      const stored = ((await s.state(v, created.data.thread_id)).values?.messages ?? []) as Record<string, unknown>[];
      v.equal(
        stored.map((message) => [message.type, message.role, message.content]),
        [
          ['system', undefined, 'Answer in English.'],
          ['human', undefined, 'Where is my order?'],
          ['ai', undefined, ''],
          ['tool', undefined, 'shipped'],
        ],
        'stored messages: [type, role, content]',
      );
      v.equal(
        (stored[0]?.additional_kwargs as Record<string, unknown> | undefined)?.__openai_role__,
        'developer',
        'developer message: additional_kwargs.__openai_role__',
      );
      v.equal(
        stored[2]?.tool_calls,
        [{ id: 'call_1', name: 'lookup_order', args: { order_id: '4512' }, type: 'tool_call' }],
        'assistant message: tool_calls, from the OpenAI form',
      );
      v.equal(stored[3]?.tool_call_id, 'call_1', 'tool message: tool_call_id');
    },
  }),
  check({
    id: 'state:role-and-type-messages',
    area: 'state',
    title: 'messages with both role and type, as the AG-UI LangGraph adapter writes them, are the messages they name, every field kept',
    rule: 'MessageInput: a type form with the role that names it',
    operations: ['createThread', 'getThreadState'],
    async run(s, v) {
      const messages: MessageInput[] = [
        { id: 'rt-1', role: 'user', type: 'human', content: 'Where is my order?' },
        {
          id: 'rt-2',
          role: 'assistant',
          type: 'ai',
          content: '',
          tool_calls: [{ id: 'call_1', name: 'lookup_order', args: { order_id: '4512' }, type: 'tool_call' }],
        },
        { id: 'rt-3', role: 'tool', type: 'tool', content: 'no such order', tool_call_id: 'call_1', status: 'error' },
        { id: 'rt-4', role: 'developer', type: 'system', content: 'Answer in English.' },
      ];
      const created = await createWithMessages(s, messages);
      if (!created.data) return v.stop(`createThread answered ${created.status}: ${short(created.error)}`);
      const stored = ((await s.state(v, created.data.thread_id)).values?.messages ?? []) as Record<string, unknown>[];
      v.equal(
        stored.map((message) => [message.id, message.type, message.role, message.content]),
        [
          ['rt-1', 'human', undefined, 'Where is my order?'],
          ['rt-2', 'ai', undefined, ''],
          ['rt-3', 'tool', undefined, 'no such order'],
          ['rt-4', 'system', undefined, 'Answer in English.'],
        ],
        'stored messages: [id, type, role, content]',
      );
      v.equal(
        stored[1]?.tool_calls,
        [{ id: 'call_1', name: 'lookup_order', args: { order_id: '4512' }, type: 'tool_call' }],
        'assistant message: tool_calls',
      );
      v.equal([stored[2]?.tool_call_id, stored[2]?.status], ['call_1', 'error'], 'tool message: tool_call_id and status');
      v.equal(
        (stored[3]?.additional_kwargs as Record<string, unknown> | undefined)?.__openai_role__,
        'developer',
        'developer message: additional_kwargs.__openai_role__',
      );
    },
  }),
  check({
    id: 'state:role-form-refusals',
    area: 'state',
    title:
      'a role-form tool message without tool_call_id is a 422 naming it, a role that names another type than `type` a 422 at role; neither creates anything',
    rule: 'RoleMessageInput: a tool message requires tool_call_id; MessageInput: role and type name one type',
    operations: ['createThread'],
    difference: 'role-message-refusals',
    async run(s, v) {
      const refused = async (message: unknown) => {
        const created = await createWithMessages(s, [message as MessageInput]);
        const locs = ((created.error as { detail?: { loc?: unknown[] }[] } | undefined)?.detail ?? []).map((item) => item.loc?.at(-1));
        return [created.status, locs];
      };
      v.equal(
        await refused({ role: 'tool', content: 'shipped' }),
        [422, ['tool_call_id']],
        'a tool message without tool_call_id: status, issues at',
      );
      v.equal(await refused({ role: 'user', type: 'ai', content: 'hi' }), [422, ['role']], 'role user with type ai: status, issues at');
    },
  }),

  // History
  check({
    id: 'history:newest-first',
    area: 'history',
    title: 'history is newest first and complete, each entry the child of the next',
    rule: 'getThreadHistory: 200 ThreadState[] (decision A9)',
    operations: ['getThreadHistory', 'createThread'],
    async run(s, v) {
      const thread = await s.conversation(v);
      const history = await s.history(v, thread.thread_id);
      v.equal(history.length, CONVERSATION.length, 'entries (one per superstep)');
      v.equal(
        history.map((entry) => entry.metadata?.step),
        [3, 2, 1, 0, -1],
        'metadata.step, in the order answered',
      );
      v.equal(history.map(parentIdOf), [...ids(history).slice(1), undefined], 'each entry’s parent, against the next entry');
    },
  }),
  check({
    id: 'history:before-and-limit',
    area: 'history',
    title: 'pages of `limit` entries, each `before` the last one read, traverse the whole history exactly',
    rule: 'getThreadHistory: ThreadHistoryQuery.limit, ThreadHistoryQuery.before as a checkpoint id (decision A9)',
    operations: ['getThreadHistory', 'createThread'],
    async run(s, v) {
      const thread = await s.conversation(v);
      const all = ids(await s.history(v, thread.thread_id));
      const read: unknown[] = [];
      let before: string | undefined;
      for (let page = 0; page < 10; page++) {
        const entries = await s.history(v, thread.thread_id, { limit: 2, ...(before ? { before } : {}) });
        if (!v.that(entries.length <= 2, `a page of limit 2 has ${entries.length} entries`) || entries.length === 0) break;
        read.push(...ids(entries));
        before = checkpointIdOf(entries.at(-1));
      }
      v.equal(read, all, 'checkpoint ids read page by page, against the whole history');
    },
  }),
  check({
    id: 'history:before-forms',
    area: 'history',
    title: "`before` as a checkpoint object and as the LangGraph SDK's {configurable} pages as the id does",
    rule: 'getThreadHistory: ThreadHistoryQuery.before (string, CheckpointRef or CheckpointConfig) (decision A9)',
    operations: ['getThreadHistory', 'createThread'],
    difference: 'history-before-config',
    async run(s, v) {
      const thread = await s.conversation(v);
      const history = await s.history(v, thread.thread_id);
      const id = checkpointIdOf(history[1])!;
      const expected = ids(history.slice(2, 4));
      for (const [form, before] of [
        ['object', { checkpoint_id: id }],
        ['{configurable}', { configurable: { checkpoint_id: id } }],
      ] as const) {
        const page = await answer(
          s.client.POST('/threads/{thread_id}/history', { ...path(thread.thread_id), body: { limit: 2, before: before as never } }),
        );
        v.equal(
          page.status === 200 ? ids(page.data ?? []) : `status ${page.status}`,
          expected,
          `a page before the second entry, given as ${form}`,
        );
      }
    },
  }),

  // Search and count
  check({
    id: 'search:filters',
    area: 'search',
    title: 'search honours the metadata, ids and status filters',
    rule: 'searchThreads: ThreadSearch.metadata, ids, status (decision A7)',
    operations: ['searchThreads', 'createThread'],
    async run(s, v) {
      const threads = await threeThreads(s, v);
      const group = groupOf(threads);
      const asc = { sort_by: 'created_at', sort_order: 'asc' };
      v.equal(order((await s.search({ metadata: { group, kind: 'a' }, ...asc })).data), [0, 2], 'metadata {kind: a}');
      v.equal(order((await s.search({ ids: [threads[0]!.thread_id, threads[2]!.thread_id], ...asc })).data), [0, 2], 'ids');
      v.equal(order((await s.search({ metadata: { group }, status: 'idle', ...asc })).data), [0, 1, 2], 'status idle');
      v.equal(order((await s.search({ metadata: { group }, status: 'busy' })).data), [], 'status busy');
    },
  }),
  check({
    id: 'search:values-filter',
    area: 'search',
    title: 'the values filter matches threads whose state has those values, and no thread without state',
    rule: 'searchThreads, countThreads: ThreadSearch.values (decision A7)',
    operations: ['searchThreads', 'countThreads', 'createThread'],
    difference: 'values-filter-needs-values',
    async run(s, v) {
      const group = groupOf(await threeThreads(s, v));
      v.equal(
        order((await s.search({ metadata: { group }, values: { topic: 'weather' } })).data),
        [2],
        'search by values {topic: weather}',
      );
      v.equal((await s.count({ metadata: { group }, values: { topic: 'weather' } })).data, 1, 'count by values {topic: weather}');
    },
  }),
  check({
    id: 'search:sort',
    area: 'search',
    title: 'search sorts by each sort_by field, ascending and descending',
    rule: 'searchThreads: ThreadSearch.sort_by, sort_order (decision A7)',
    operations: ['searchThreads', 'createThread'],
    async run(s, v) {
      const group = groupOf(await threeThreads(s, v));
      for (const sortBy of ['thread_id', 'status', 'created_at', 'updated_at'] as const) {
        for (const sortOrder of ['asc', 'desc'] as const) {
          const found = (await s.search({ metadata: { group }, sort_by: sortBy, sort_order: sortOrder })).data ?? [];
          const keys = found.map((t) => (sortBy.endsWith('_at') ? Date.parse(t[sortBy]) : t[sortBy]));
          const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          if (sortOrder === 'desc') sorted.reverse();
          v.that(
            found.length === 3 && canonical(keys) === canonical(sorted),
            `sort_by ${sortBy} ${sortOrder}: ${found.length} threads in the order ${JSON.stringify(keys)}`,
          );
        }
      }
    },
  }),
  check({
    id: 'search:limit-offset',
    area: 'search',
    title: 'limit and offset page through the matches, and X-Pagination-Total counts them all',
    rule: 'searchThreads: ThreadSearch.limit, offset; 200 header X-Pagination-Total (decision A7)',
    operations: ['searchThreads', 'createThread'],
    difference: 'pagination-total-at-offset',
    differenceIn: 'marked findings',
    async run(s, v) {
      const group = groupOf(await threeThreads(s, v));
      const page = (offset: number) => s.search({ metadata: { group }, limit: 2, offset, sort_by: 'created_at', sort_order: 'asc' });
      const [first, second] = [await page(0), await page(2)];
      v.equal([order(first.data), order(second.data)], [[0, 1], [2]], 'pages of 2 at offsets 0 and 2');
      v.equal(
        [first.headers.get('x-pagination-total'), second.headers.get('x-pagination-total')],
        ['3', '3'],
        'X-Pagination-Total of each page',
        { differs: true },
      );
    },
  }),
  check({
    id: 'search:count-and-total',
    area: 'search',
    title: 'count and X-Pagination-Total agree with the number of matches, for every filter',
    rule: 'countThreads: 200 integer; searchThreads: X-Pagination-Total (decision A7, A11)',
    operations: ['countThreads', 'searchThreads', 'createThread'],
    async run(s, v) {
      const threads = await threeThreads(s, v);
      const group = groupOf(threads);
      const filters: [string, Record<string, unknown>][] = [
        ['metadata', { metadata: { group } }],
        ['metadata {kind: a}', { metadata: { group, kind: 'a' } }],
        ['status idle', { metadata: { group }, status: 'idle' }],
        ['status busy', { metadata: { group }, status: 'busy' }],
        ['values', { metadata: { group }, values: { topic: 'weather' } }],
      ];
      for (const [name, filter] of filters) {
        const [found, counted] = [await s.search({ ...filter, limit: 1000 }), await s.count(filter)];
        const matches = found.data?.length;
        v.equal(
          [counted.data, Number(found.headers.get('x-pagination-total'))],
          [matches, matches],
          `count and X-Pagination-Total for ${name}`,
        );
      }
    },
  }),
  check({
    id: 'search:without-values',
    area: 'search',
    title: 'search answers threads with config and without values, even when select names values',
    rule: 'searchThreads: 200 Thread[], values absent (select of values adds nothing), config present (decisions A7, A20)',
    operations: ['searchThreads', 'createThread'],
    difference: 'thread-values',
    async run(s, v) {
      const thread = await s.conversation(v);
      const found = (await s.search({ ids: [thread.thread_id] })).data ?? [];
      if (!v.equal(found.length, 1, 'threads found')) return;
      v.that(found[0]!.values === undefined, 'values are answered; a search answer leaves them out');
      v.that(found[0]!.config !== undefined, 'config is absent');
      const selected = (await s.search({ ids: [thread.thread_id], select: ['thread_id', 'values'] })).data ?? [];
      v.that(selected[0]?.values === undefined, 'values are answered when selected; a search answer leaves them out all the same');
    },
  }),
  check({
    id: 'search:select',
    area: 'search',
    title: 'select answers the selected optional fields, and every thread still has its required fields',
    rule: 'searchThreads: ThreadSearch.select (decision A11)',
    operations: ['searchThreads', 'createThread'],
    difference: 'select-keeps-identifying-fields',
    async run(s, v) {
      const thread = await s.conversation(v);
      const found = (await s.search({ ids: [thread.thread_id], select: ['thread_id', 'metadata', 'config'] })).data ?? [];
      if (!v.equal(found.length, 1, 'threads found')) return;
      v.that(found[0]!.config !== undefined, 'selected config is absent');
      v.equal(
        ['thread_id', 'created_at', 'updated_at', 'metadata', 'status'].filter((field) => !(field in found[0]!)),
        [],
        'required fields missing',
      );
      const none = (await s.search({ ids: [thread.thread_id], select: ['thread_id'] })).data ?? [];
      v.that(none[0] !== undefined && none[0].config === undefined, 'config is answered though not selected');
    },
  }),
  check({
    id: 'search:extract',
    area: 'search',
    title: 'extract answers the values picked by path in extracted',
    rule: 'searchThreads: ThreadSearch.extract, Thread.extracted (decision A11)',
    operations: ['searchThreads', 'createThread'],
    difference: 'extract-answered',
    async run(s, v) {
      const thread = await s.conversation(v);
      const found = (await s.search({ ids: [thread.thread_id], extract: { topic: 'values.topic' } })).data ?? [];
      v.equal(found[0]?.extracted, { topic: 'weather' }, 'extracted');
    },
  }),

  // Errors
  check({
    id: 'errors:malformed-id',
    area: 'errors',
    title: 'a malformed thread id is a 422 HTTPValidationError at path.thread_id',
    rule: 'HTTPValidationError; path parameter thread_id format uuid (decision A2)',
    operations: ['getThread', 'getThreadState', 'getThreadHistory'],
    difference: 'malformed-id-is-422',
    async run(s, v) {
      const p = path('not-a-uuid');
      for (const [operation, call] of [
        ['getThread', () => s.client.GET('/threads/{thread_id}', p)],
        ['getThreadState', () => s.client.GET('/threads/{thread_id}/state', p)],
        ['getThreadHistory', () => s.client.POST('/threads/{thread_id}/history', { ...p, body: {} })],
      ] as const) {
        const got = await answer<unknown>(call());
        const locs = ((got.error as { detail?: { loc?: unknown[] }[] } | undefined)?.detail ?? []).map((item) => item.loc?.join('.'));
        v.equal([got.status, locs.includes('path.thread_id')], [422, true], `${operation}: status, and an issue at path.thread_id`);
      }
    },
  }),
  check({
    id: 'errors:unknown-thread',
    area: 'errors',
    title: 'an unknown thread is a 404 {detail} for every operation on it',
    rule: 'ErrorDetail; 404 of getThread, getThreadState, getThreadHistory, updateThread, deleteThread (decision A3)',
    operations: ['getThread', 'getThreadState', 'getThreadHistory', 'updateThread', 'deleteThread'],
    difference: 'error-detail-body',
    differenceIn: 'marked findings',
    async run(s, v) {
      const p = path(UNKNOWN_THREAD);
      await expectNotFound(v, [
        ['getThread', () => s.client.GET('/threads/{thread_id}', p)],
        ['getThreadState', () => s.client.GET('/threads/{thread_id}/state', p)],
        ['getThreadHistory', () => s.client.POST('/threads/{thread_id}/history', { ...p, body: {} })],
        ['updateThread', () => s.client.PATCH('/threads/{thread_id}', { ...p, body: { metadata: {} } })],
        ['deleteThread', () => s.client.DELETE('/threads/{thread_id}', p)],
      ]);
    },
  }),
  check({
    id: 'errors:copy-unknown',
    area: 'errors',
    title: 'copying an unknown thread is a 404',
    rule: 'copyThread: 404 ErrorDetail (decision A6)',
    operations: ['copyThread'],
    difference: 'copy-of-unknown-thread',
    async run(s, v) {
      const copied = await answer(s.client.POST('/threads/{thread_id}/copy', path(UNKNOWN_THREAD)));
      if (copied.data) s.track(copied.data.thread_id);
      v.equal(copied.status, 404, 'status');
    },
  }),
  check({
    id: 'errors:unknown-checkpoint',
    area: 'errors',
    title: 'an unknown checkpoint of an existing thread is a 404, to read and to write',
    rule: 'getThreadStateAtCheckpoint: 404; updateThreadState: 404 (decisions A8, A11)',
    operations: ['getThreadStateAtCheckpoint', 'updateThreadState', 'createThread'],
    difference: 'unknown-checkpoint-is-404',
    async run(s, v) {
      const thread = await s.conversation(v);
      const read = await answer(
        s.client.GET('/threads/{thread_id}/state/{checkpoint_id}', {
          params: { path: { thread_id: thread.thread_id, checkpoint_id: UNKNOWN_CHECKPOINT } },
        }),
      );
      v.equal(read.status, 404, 'getThreadStateAtCheckpoint status');
      const write = await answer(
        s.client.POST('/threads/{thread_id}/state', {
          ...path(thread.thread_id),
          body: { values: { topic: 'x' }, as_node: 'agent', checkpoint_id: UNKNOWN_CHECKPOINT },
        }),
      );
      v.equal(write.status, 404, 'updateThreadState status');
    },
  }),
  check({
    id: 'errors:thread-id-taken',
    area: 'errors',
    title: 'creating a thread with a taken thread_id is a 409; with if_exists do_nothing, the existing thread unchanged',
    rule: 'createThread: ThreadCreate.if_exists, 409 ErrorDetail (decision A4)',
    operations: ['createThread'],
    difference: 'error-detail-body',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v, { metadata: { first: true } });
      const again = await answer(
        s.client.POST('/threads', { body: { thread_id: thread.thread_id, metadata: { ...s.tag, first: false } } }),
      );
      v.equal(again.status, 409, 'if_exists raise: status');
      if (again.status === 409)
        v.equal(typeof (again.error as { detail?: unknown } | undefined)?.detail, 'string', 'if_exists raise: type of detail', {
          differs: true,
        });
      const same = await answer(
        s.client.POST('/threads', { body: { thread_id: thread.thread_id, if_exists: 'do_nothing', metadata: { ...s.tag, first: false } } }),
      );
      v.equal([same.status, same.data?.metadata?.first], [200, true], 'if_exists do_nothing: status and the metadata kept');
    },
  }),
  check({
    id: 'errors:json-as-text-plain',
    area: 'errors',
    title: 'a JSON body sent as text/plain is read as JSON, as LangGraph Studio sends it',
    rule: 'x-json-media-types: text/plain; createThread and searchThreads read it as application/json (decision A19)',
    operations: ['createThread', 'searchThreads'],
    async run(s, v) {
      const plain = { 'content-type': 'text/plain;charset=UTF-8' };
      const created = await answer(s.client.POST('/threads', { body: { metadata: { ...s.tag, studio: true } }, headers: plain }));
      if (created.data) s.track(created.data.thread_id);
      if (!v.equal([created.status, created.data?.metadata?.studio], [200, true], 'createThread as text/plain: status and metadata'))
        return;
      const found = await answer(s.client.POST('/threads/search', { body: { ids: [created.data!.thread_id] }, headers: plain }));
      v.equal(
        [found.status, found.data?.map((thread) => thread.thread_id)],
        [200, [created.data!.thread_id]],
        'searchThreads as text/plain',
      );
    },
  }),
  check({
    id: 'errors:not-a-json-media-type',
    area: 'errors',
    title: 'a JSON body in a media type that is not read as JSON (a form) is a 415, and creates nothing',
    rule: '415 UnsupportedMediaType (decision A19)',
    operations: ['createThread'],
    difference: 'json-media-types',
    async run(s, v) {
      const sent = await answer(
        s.client.POST('/threads', {
          body: { metadata: { ...s.tag } },
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          bodySerializer: (body) => JSON.stringify(body),
        }),
      );
      if (sent.data) s.track(sent.data.thread_id);
      v.equal(sent.status, 415, 'status');
    },
  }),
  // Assistants and the system routes (agent-server-assistants.ts).
  ...ASSISTANT_CHECKS,
  // Runs (agent-server-runs.ts).
  ...AGENT_SERVER_RUN_CHECKS,
  ...AGENT_SERVER_STREAM_CHECKS,
  ...AGENT_SERVER_PROTOCOL_CHECKS,
  // The store and crons (agent-server-store.ts, agent-server-crons.ts).
  ...STORE_CHECKS,
  ...CRON_CHECKS,
];
