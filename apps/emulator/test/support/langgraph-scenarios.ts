// What app developers do with threads and assistants through the LangGraph SDK, as scenarios that
// run the same on any agent server: each returns what it observed (answers, and relations between
// them that masking would hide, such as "this parent is that checkpoint"), and a failed call
// becomes `{error: status}`. The differential test runs them against the emulator and the real
// LangGraph JS server and compares the two observations.
import type { Client } from '@langchain/langgraph-sdk';

/**
 * A scenario's view of one server: an SDK client, a tag unique to this run of the scenario, and
 * the server's URL (for the routes the SDK has no method for: GET /ok and /info).
 */
export type Scenario = (client: Client, tag: string, apiUrl: string) => Promise<unknown>;

const human = (content: string, id: string) => ({ type: 'human', content, id });

/**
 * A conversation with a tool call as an agent writes it: the input (written to `__start__`), the
 * `__start__` superstep applying it, the agent's tool call, the tool's answer, and the agent's
 * answer together with a RemoveMessage of the question.
 */
export const CONVERSATION = [
  { updates: [{ asNode: '__input__', values: { messages: [human('Weather in Paris?', 'h-1')], topic: 'weather' } }] },
  { updates: [{ asNode: '__start__', values: { messages: [human('Weather in Paris?', 'h-1')], topic: 'weather' } }] },
  {
    updates: [
      {
        asNode: 'agent',
        values: {
          messages: [{ type: 'ai', id: 'a-1', content: '', tool_calls: [{ id: 'call-1', name: 'get_weather', args: { city: 'Paris' } }] }],
        },
      },
    ],
  },
  {
    updates: [
      {
        asNode: 'tools',
        values: {
          messages: [{ type: 'tool', id: 't-1', content: 'sunny', tool_call_id: 'call-1', name: 'get_weather', status: 'success' }],
        },
      },
    ],
  },
  {
    updates: [
      {
        asNode: 'agent',
        values: {
          messages: [
            { type: 'ai', id: 'a-2', content: 'It is sunny.' },
            { type: 'remove', id: 'h-1' },
          ],
        },
      },
    ],
  },
];

/** UUIDs no server has. */
const UNKNOWN_THREAD = '3b7e9f1a-2c4d-4e6f-8a0b-1c2d3e4f5a6b';
const UNKNOWN_CHECKPOINT = '1f0a0000-0000-6000-8000-000000000000';

const conversation = (client: Client, tag: string, metadata: Record<string, unknown> = {}) =>
  client.threads.create({ graphId: 'agent', metadata: { suite: tag, ...metadata }, supersteps: CONVERSATION });

/** A history entry as its checkpoint's position in the history, so that references survive masking. */
function positionIn(history: { checkpoint: { checkpoint_id?: string | null } }[], checkpointId: string | null | undefined): number {
  return history.findIndex((entry) => entry.checkpoint.checkpoint_id === checkpointId);
}

/** Three threads with different metadata, one with a conversation: the ground for every filter. */
async function threeThreads(client: Client, tag: string): Promise<string[]> {
  const first = await client.threads.create({ graphId: 'agent', metadata: { suite: tag, i: 0, kind: 'a' } });
  const second = await client.threads.create({ graphId: 'agent', metadata: { suite: tag, i: 1, kind: 'b' } });
  const third = await conversation(client, tag, { i: 2, kind: 'a' });
  return [first.thread_id, second.thread_id, third.thread_id];
}

/** Which of the three threads (by `i`) a search answered, in its order. */
const order = (threads: { metadata?: Record<string, unknown> | null }[]) => threads.map((thread) => thread.metadata?.i);

/** Three assistants of the scenario's run, created in this order, with names and metadata to filter and sort by. */
async function threeAssistants(client: Client, tag: string): Promise<string[]> {
  const made = [];
  for (const [name, kind] of [
    ['Zeta', 'a'],
    ['alpha', 'b'],
    ['Beta refunds', 'a'],
  ] as const) {
    made.push(await client.assistants.create({ graphId: 'agent', name, metadata: { suite: tag, kind } }));
  }
  return made.map((assistant) => assistant.assistant_id);
}

const names = (assistants: { name: string }[]) => assistants.map((assistant) => assistant.name);

/** What a call answered, or the status it failed with (the SDK throws its HTTP errors). */
const outcome = (call: Promise<unknown>) =>
  call.then(
    (answer) => ({ answer: answer ?? null }),
    (error: { status?: number }) => ({ failedWith: error.status }),
  );

export const SCENARIOS: Record<string, Scenario> = {
  // Creating and reading threads
  'create with supersteps': (client, tag) => conversation(client, tag),
  'create empty': (client, tag) => client.threads.create({ graphId: 'agent', metadata: { suite: tag } }),
  'create with ttl': (client, tag) =>
    client.threads.create({ graphId: 'agent', metadata: { suite: tag }, ttl: { ttl: 60, strategy: 'delete' } }),
  'create with a RemoveMessage of an unknown id': (client, tag) =>
    client.threads.create({
      graphId: 'agent',
      metadata: { suite: tag },
      supersteps: [{ updates: [{ asNode: 'agent', values: { messages: [{ type: 'remove', id: 'not-there' }] } }] }],
    }),
  get: async (client, tag) => client.threads.get((await conversation(client, tag)).thread_id),
  'get with include ttl': async (client, tag) => {
    const thread = await client.threads.create({ graphId: 'agent', metadata: { suite: tag }, ttl: 60 });
    const read = (await client.threads.get(thread.thread_id, { include: ['ttl'] })) as { ttl?: { ttl_minutes?: number } | null };
    return { hasTtl: 'ttl' in read, ttlMinutes: read.ttl?.ttl_minutes ?? null };
  },
  'get unknown': (client) => client.threads.get(UNKNOWN_THREAD),
  'get malformed id': (client) => client.threads.get('not-a-uuid'),

  // State and history
  state: async (client, tag) => client.threads.getState((await conversation(client, tag)).thread_id),
  'state at a checkpoint (string)': async (client, tag) => {
    const thread = await conversation(client, tag);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
    const state = await client.threads.getState(thread.thread_id, history[2]!.checkpoint.checkpoint_id!);
    return { state, equalsHistoryEntry: JSON.stringify(state) === JSON.stringify(history[2]) };
  },
  'state at a checkpoint (object)': async (client, tag) => {
    const thread = await conversation(client, tag);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
    const state = await client.threads.getState(thread.thread_id, history[2]!.checkpoint);
    return { state, equalsHistoryEntry: JSON.stringify(state) === JSON.stringify(history[2]) };
  },
  'state and history with select': async (client, tag) => {
    const thread = await conversation(client, tag);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
    return {
      state: await client.threads.getState(thread.thread_id, undefined, { select: ['values.messages'] }),
      atCheckpoint: await client.threads.getState(thread.thread_id, history[2]!.checkpoint, { select: ['values.topic'] }),
      history: await client.threads.getHistory(thread.thread_id, { limit: 10, select: ['values.topic'] }),
    };
  },
  'state at an unknown checkpoint': async (client, tag) => {
    const thread = await conversation(client, tag);
    return client.threads.getState(thread.thread_id, UNKNOWN_CHECKPOINT);
  },
  history: async (client, tag) => {
    const thread = await conversation(client, tag);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
    return {
      history,
      parents: history.map((entry) => positionIn(history, entry.parent_checkpoint?.checkpoint_id)),
    };
  },
  'history with limit': async (client, tag) => {
    const thread = await conversation(client, tag);
    return (await client.threads.getHistory(thread.thread_id, { limit: 2 })).map((entry) => entry.metadata?.step);
  },
  'history with before': async (client, tag) => {
    const thread = await conversation(client, tag);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
    const page = await client.threads.getHistory(thread.thread_id, { limit: 2, before: { configurable: { ...history[1]!.checkpoint } } });
    return page.map((entry) => entry.metadata?.step);
  },
  'history of an unknown thread': (client) => client.threads.getHistory(UNKNOWN_THREAD),

  // Copies
  copy: async (client, tag) => {
    const original = await conversation(client, tag);
    const copy = await client.threads.copy(original.thread_id);
    const [before, after] = [await client.threads.getHistory(original.thread_id), await client.threads.getHistory(copy.thread_id)];
    const steps = (history: typeof before) => history.map((entry) => [entry.metadata?.step, entry.values, entry.next]);
    return { copy, sameHistory: JSON.stringify(steps(before)) === JSON.stringify(steps(after)), length: after.length };
  },
  'copy of an unknown thread': (client) => client.threads.copy(UNKNOWN_THREAD),

  // Search and count
  'search by metadata': async (client, tag) => {
    await threeThreads(client, tag);
    return order(await client.threads.search({ metadata: { suite: tag, kind: 'a' }, sortBy: 'created_at', sortOrder: 'asc' }));
  },
  'search by ids': async (client, tag) => {
    const ids = await threeThreads(client, tag);
    return order(await client.threads.search({ ids: [ids[0]!, ids[2]!], sortBy: 'created_at', sortOrder: 'asc' }));
  },
  'search by status': async (client, tag) => {
    await threeThreads(client, tag);
    return {
      idle: order(await client.threads.search({ metadata: { suite: tag }, status: 'idle', sortBy: 'created_at', sortOrder: 'asc' })),
      busy: order(await client.threads.search({ metadata: { suite: tag }, status: 'busy' })),
    };
  },
  'search by values': async (client, tag) => {
    await threeThreads(client, tag);
    return order(await client.threads.search({ metadata: { suite: tag }, values: { topic: 'weather' } }));
  },
  'search sorted': async (client, tag) => {
    await threeThreads(client, tag);
    const sorted = async (sortBy: 'created_at' | 'updated_at', sortOrder: 'asc' | 'desc') =>
      order(await client.threads.search({ metadata: { suite: tag }, sortBy, sortOrder }));
    return {
      createdAsc: await sorted('created_at', 'asc'),
      createdDesc: await sorted('created_at', 'desc'),
      updatedDesc: await sorted('updated_at', 'desc'),
    };
  },
  'search with limit and offset': async (client, tag) => {
    await threeThreads(client, tag);
    const page = (offset: number) =>
      client.threads.search({ metadata: { suite: tag }, limit: 2, offset, sortBy: 'created_at', sortOrder: 'asc' });
    return { first: order(await page(0)), second: order(await page(2)) };
  },
  'search with select': async (client, tag) => {
    await threeThreads(client, tag);
    const threads = await client.threads.search({ metadata: { suite: tag, i: 2 }, select: ['thread_id', 'metadata', 'values'] });
    return threads;
  },
  'search with extract': async (client, tag) => {
    await threeThreads(client, tag);
    return client.threads.search({ metadata: { suite: tag, i: 2 }, extract: { topic: 'values.topic' } });
  },
  count: async (client, tag) => {
    await threeThreads(client, tag);
    return {
      all: await client.threads.count({ metadata: { suite: tag } }),
      kindA: await client.threads.count({ metadata: { suite: tag, kind: 'a' } }),
      idle: await client.threads.count({ metadata: { suite: tag }, status: 'idle' }),
      busy: await client.threads.count({ metadata: { suite: tag }, status: 'busy' }),
      byValues: await client.threads.count({ metadata: { suite: tag }, values: { topic: 'weather' } }),
    };
  },

  // Writing state
  'update state': async (client, tag) => {
    const thread = await conversation(client, tag);
    const before = await client.threads.getState(thread.thread_id);
    const answer = await client.threads.updateState(thread.thread_id, { values: { topic: 'forecast' }, asNode: 'agent' });
    const state = await client.threads.getState(thread.thread_id);
    return {
      answer,
      state,
      // The SDK types the answer as a run configuration; both servers answer `{checkpoint}`.
      answeredTheNewCheckpoint:
        (answer as { checkpoint?: { checkpoint_id?: string } }).checkpoint?.checkpoint_id === state.checkpoint.checkpoint_id,
      parentIsPrevious: state.parent_checkpoint?.checkpoint_id === before.checkpoint.checkpoint_id,
      historyLength: (await client.threads.getHistory(thread.thread_id)).length,
    };
  },
  fork: async (client, tag) => {
    const thread = await conversation(client, tag);
    const history = await client.threads.getHistory(thread.thread_id);
    const base = history[2]!.checkpoint;
    await client.threads.updateState(thread.thread_id, { values: { topic: 'fork' }, checkpointId: base.checkpoint_id!, asNode: 'agent' });
    const state = await client.threads.getState(thread.thread_id);
    return {
      values: state.values,
      step: state.metadata?.step,
      parentIsBase: state.parent_checkpoint?.checkpoint_id === base.checkpoint_id,
    };
  },
  'update state at an unknown checkpoint': async (client, tag) => {
    const thread = await conversation(client, tag);
    return client.threads.updateState(thread.thread_id, { values: { topic: 'x' }, checkpointId: UNKNOWN_CHECKPOINT, asNode: 'agent' });
  },
  'update state of a thread without graph_id': async (client, tag) => {
    const thread = await client.threads.create({ metadata: { suite: tag } });
    await client.threads.updateState(thread.thread_id, { values: { topic: 'x' } });
    return (await client.threads.getState(thread.thread_id)).values;
  },
  'patch state': async (client, tag) => {
    const thread = await conversation(client, tag);
    await client.threads.patchState(thread.thread_id, { reviewed: true });
    return (await client.threads.getState(thread.thread_id)).metadata;
  },

  // Updating and deleting threads
  update: async (client, tag) => {
    const thread = await client.threads.create({ graphId: 'agent', metadata: { suite: tag, kept: 1 } });
    return client.threads.update(thread.thread_id, { metadata: { added: 2 } });
  },
  'update with Prefer: return=minimal': async (client, tag) => {
    const thread = await client.threads.create({ graphId: 'agent', metadata: { suite: tag } });
    const answer = await client.threads.update(thread.thread_id, { metadata: { added: 2 }, returnMinimal: true });
    return { answer: answer ?? null, metadata: (await client.threads.get(thread.thread_id)).metadata };
  },
  'update ttl only': async (client, tag) => {
    const thread = await client.threads.create({ graphId: 'agent', metadata: { suite: tag } });
    return client.threads.update(thread.thread_id, { ttl: 60 });
  },
  delete: async (client, tag) => {
    const thread = await conversation(client, tag);
    await client.threads.delete(thread.thread_id);
    const gone = async (call: () => Promise<unknown>) =>
      call().then(
        () => 'still there',
        (error: { status?: number }) => error.status,
      );
    return {
      get: await gone(() => client.threads.get(thread.thread_id)),
      state: await gone(() => client.threads.getState(thread.thread_id)),
      history: await gone(() => client.threads.getHistory(thread.thread_id)),
      search: (await client.threads.search({ metadata: { suite: tag } })).length,
      secondDelete: await gone(() => client.threads.delete(thread.thread_id)),
    };
  },
  prune: async (client, tag) => {
    const [kept, pruned] = [await conversation(client, tag), await conversation(client, tag)];
    const deleted = await client.threads.prune([pruned.thread_id], { strategy: 'delete' });
    const trimmed = await client.threads.prune([kept.thread_id], { strategy: 'keep_latest' });
    return { deleted, trimmed, keptHistory: (await client.threads.getHistory(kept.thread_id)).length };
  },
  // The server
  ok: async (_client, _tag, apiUrl) => (await fetch(`${apiUrl}/ok`)).json(),
  info: async (_client, _tag, apiUrl) => (await fetch(`${apiUrl}/info`)).json(),

  // Assistants
  'default assistant': async (client) => ({
    defaults: await client.assistants.search({ metadata: { created_by: 'system' } }),
    byGraphId: await client.assistants.get('agent'),
    sameByGraphIdAndId:
      JSON.stringify(await client.assistants.get('agent')) ===
      JSON.stringify(await client.assistants.get('fe096781-5601-53d2-b2f6-0d3403f7e9ca')),
    versions: await client.assistants.getVersions('agent'),
  }),
  'create assistant': (client, tag) =>
    client.assistants.create({
      graphId: 'agent',
      name: 'Refunds (EU)',
      description: 'Refund questions of EU customers',
      config: { tags: ['eu'], recursion_limit: 40, configurable: { model: 'gpt-4o-mini' } },
      context: { region: 'eu-west-1' },
      metadata: { suite: tag, team: 'billing' },
    }),
  'create assistant with defaults': (client, tag) => client.assistants.create({ graphId: 'agent', metadata: { suite: tag } }),
  'create assistant with a taken id': async (client, tag) => {
    const created = await client.assistants.create({ graphId: 'agent', metadata: { suite: tag }, name: 'First' });
    const again = { graphId: 'agent', assistantId: created.assistant_id, name: 'Second' };
    return {
      raise: await outcome(client.assistants.create(again)),
      doNothing: await client.assistants.create({ ...again, ifExists: 'do_nothing' }),
    };
  },
  'create assistant of an unknown graph': (client, tag) => client.assistants.create({ graphId: 'not-served', metadata: { suite: tag } }),
  'update assistant': async (client, tag) => {
    const created = await client.assistants.create({ graphId: 'agent', name: 'One', metadata: { suite: tag, kept: 1 }, context: { n: 1 } });
    const updated = await client.assistants.update(created.assistant_id, { name: 'Two', metadata: { added: 2 }, config: { tags: ['b'] } });
    return { updated, read: await client.assistants.get(created.assistant_id) };
  },
  'assistant versions': async (client, tag) => {
    const created = await client.assistants.create({ graphId: 'agent', name: 'v1', metadata: { suite: tag } });
    await client.assistants.update(created.assistant_id, { name: 'v2', metadata: { reviewed: true } });
    await client.assistants.update(created.assistant_id, { name: 'v3' });
    return {
      all: await client.assistants.getVersions(created.assistant_id),
      reviewed: names(await client.assistants.getVersions(created.assistant_id, { metadata: { reviewed: true } })),
      page: names(await client.assistants.getVersions(created.assistant_id, { limit: 1, offset: 1 })),
    };
  },
  'assistant versions, an empty page': async (client, tag) => {
    const created = await client.assistants.create({ graphId: 'agent', metadata: { suite: tag } });
    return client.assistants.getVersions(created.assistant_id, { metadata: { reviewed: true } });
  },
  'set latest assistant version': async (client, tag) => {
    const created = await client.assistants.create({
      graphId: 'agent',
      name: 'One',
      description: 'first',
      context: { n: 1 },
      metadata: { suite: tag },
    });
    await client.assistants.update(created.assistant_id, {
      name: 'Two',
      description: 'second',
      context: { n: 2 },
      config: { tags: ['two'] },
    });
    const back = await client.assistants.setLatest(created.assistant_id, 1);
    const next = await client.assistants.update(created.assistant_id, { metadata: { after: true } });
    return { back, next: [next.version, next.name], unknownVersion: await outcome(client.assistants.setLatest(created.assistant_id, 9)) };
  },
  'delete assistant': async (client, tag) => {
    const [doomed, kept] = [
      await client.assistants.create({ graphId: 'agent', metadata: { suite: tag } }),
      await client.assistants.create({ graphId: 'agent', metadata: { suite: tag } }),
    ];
    const own = await client.threads.create({ metadata: { suite: tag, assistant_id: doomed.assistant_id } });
    const keptThread = await client.threads.create({ metadata: { suite: tag, assistant_id: kept.assistant_id } });
    const answer = await client.assistants.delete(doomed.assistant_id, { deleteThreads: true });
    return {
      answer: answer ?? null,
      get: await outcome(client.assistants.get(doomed.assistant_id)),
      versions: await outcome(client.assistants.getVersions(doomed.assistant_id)),
      secondDelete: await outcome(client.assistants.delete(doomed.assistant_id)),
      ownThread: await outcome(client.threads.get(own.thread_id)),
      otherThread: (await client.threads.get(keptThread.thread_id)).thread_id === keptThread.thread_id,
      left: (await client.assistants.search({ metadata: { suite: tag } })).length,
    };
  },
  'search assistants': async (client, tag) => {
    await threeAssistants(client, tag);
    return {
      all: names(await client.assistants.search({ metadata: { suite: tag } })),
      kindA: names(await client.assistants.search({ metadata: { suite: tag, kind: 'a' } })),
      byGraph: names(await client.assistants.search({ metadata: { suite: tag }, graphId: 'agent' })),
      byOtherGraph: names(await client.assistants.search({ metadata: { suite: tag }, graphId: 'not-served' })),
      byName: names(await client.assistants.search({ metadata: { suite: tag }, name: 'ETA' })),
      page: names(await client.assistants.search({ metadata: { suite: tag }, limit: 1, offset: 1 })),
    };
  },
  'search assistants sorted': async (client, tag) => {
    await threeAssistants(client, tag);
    const sorted = async (sortBy: 'name' | 'created_at', sortOrder: 'asc' | 'desc') =>
      names(await client.assistants.search({ metadata: { suite: tag }, sortBy, sortOrder }));
    return {
      createdDesc: await sorted('created_at', 'desc'),
      createdAsc: await sorted('created_at', 'asc'),
      nameAsc: await sorted('name', 'asc'),
    };
  },
  'search assistants with pagination': async (client, tag) => {
    await threeAssistants(client, tag);
    const page = async (limit: number, offset: number) => {
      const { assistants, next } = await client.assistants.search({ metadata: { suite: tag }, limit, offset, includePagination: true });
      return { names: names(assistants), next };
    };
    return { first: await page(2, 0), last: await page(2, 2), whole: await page(3, 0) };
  },
  'search assistants with select': async (client, tag) => {
    await threeAssistants(client, tag);
    return client.assistants.search({ metadata: { suite: tag, kind: 'b' }, select: ['assistant_id', 'name'] });
  },
  'count assistants': async (client, tag) => {
    await threeAssistants(client, tag);
    return {
      all: await client.assistants.count({ metadata: { suite: tag } }),
      kindA: await client.assistants.count({ metadata: { suite: tag, kind: 'a' } }),
      byGraph: await client.assistants.count({ metadata: { suite: tag }, graphId: 'agent' }),
      byName: await client.assistants.count({ metadata: { suite: tag }, name: 'eta' }),
    };
  },
  'assistant graph': async (client) => ({
    plain: await client.assistants.getGraph('agent'),
    xray: await client.assistants.getGraph('fe096781-5601-53d2-b2f6-0d3403f7e9ca', { xray: true }),
  }),
  'assistant schemas': (client) => client.assistants.getSchemas('agent'),
  'assistant subgraphs': async (client) => ({
    all: await client.assistants.getSubgraphs('agent'),
    recursing: await client.assistants.getSubgraphs('agent', { recurse: true }),
    inNamespace: await client.assistants.getSubgraphs('agent', { namespace: 'researcher' }),
  }),
  'get unknown assistant': (client) => client.assistants.get(UNKNOWN_THREAD),
  'get malformed assistant id': (client) => client.assistants.get('not an assistant!'),
};
