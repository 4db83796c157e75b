// Layer (b) for the thread-centric protocol (decision A26): commands over HTTP, a thread's events
// over SSE and over a WebSocket, as `@langchain/react`'s useStream and the LangGraph SDK's
// threads.stream() use them. Every answer and every event goes through the recording fetch, so the
// schema checks hold them to ProtocolAnswer and ProtocolStreamEvent. The checks that start runs
// take the same leave as the run checks (`--allow-runs` or `--scripted-graph-id`); those that
// only send what a server must refuse run always.
import type { ProtocolEvent } from '@agentplane/agent-server';
import { connectThread, streamThreadEvents } from '@agentplane/agent-server';
import WebSocket from 'ws';
import { SCRIPTED } from '../conformance-graph.js';
import type { Verify } from '../verify.js';
import { show } from '../verify.js';
import { createOn, newScriptedThread, onRun, runGraph, say, threadStatus } from './agent-server-runs.js';
import type { AgentServerSession } from './agent-server-session.js';
import { answer, UNKNOWN_THREAD } from './agent-server-session.js';
import type { CheckDefinition } from './check.js';

type Check = CheckDefinition<AgentServerSession>;
const check = (definition: Omit<Check, 'api'>): Check => ({ api: 'agent-server', ...definition });

/** The longest a check follows a thread's events waiting for what it expects. */
const EVENTS_BUDGET_MS = 30_000;
/**
 * The longest a WebSocket's handshake, or the answer to a command sent over it, may take: a server
 * that takes the upgrade and then says nothing would otherwise hold the whole run.
 */
const SOCKET_ANSWER_MS = 10_000;

/** `promise`, or a rejection saying that `what` got no answer, once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} got no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
const ALL_CHANNELS = ['lifecycle', 'values', 'updates', 'messages', 'tools', 'input', 'checkpoints', 'tasks', 'custom'] as const;

let nextCommandId = 1;

/** A command's answer: the HTTP status and the frame (or the error body). */
async function command(s: AgentServerSession, threadId: string, method: string, params: Record<string, unknown>) {
  return answer(
    s.client.POST('/threads/{thread_id}/commands', {
      params: { path: { thread_id: threadId } },
      body: { id: nextCommandId++, method, params },
    }),
  );
}

/** A command that must succeed: its result; anything else stops the check. */
async function succeeded(s: AgentServerSession, v: Verify, threadId: string, method: string, params: Record<string, unknown>) {
  const answered = await command(s, threadId, method, params);
  if (answered.status !== 200 || answered.data?.type !== 'success')
    v.stop(`${method} answered ${answered.status}: ${show(answered.data ?? answered.error)}`);
  v.equal(answered.data.meta?.thread_id, threadId, `${method}: meta.thread_id`);
  return answered.data.result;
}

const eventOf = (event: ProtocolEvent) => (event.params.data as { event?: string }).event;
const rootEnded = (event: ProtocolEvent) =>
  event.method === 'lifecycle' && event.params.namespace.length === 0 && eventOf(event) !== 'running';

/**
 * The thread's events (after `since`) until `done` holds for one, read over SSE through the
 * recording fetch; a stream that ends, fails or goes past the budget stops the check.
 */
async function eventsUntil(
  s: AgentServerSession,
  v: Verify,
  threadId: string,
  done: (event: ProtocolEvent, read: ProtocolEvent[]) => boolean,
  options: { since?: number; channels?: readonly string[]; budgetMs?: number } = {},
): Promise<ProtocolEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.budgetMs ?? EVENTS_BUDGET_MS);
  const read: ProtocolEvent[] = [];
  try {
    for await (const event of streamThreadEvents(
      s.client,
      threadId,
      { channels: [...(options.channels ?? ALL_CHANNELS)] as never },
      { signal: controller.signal, reconnects: 0, ...(options.since === undefined ? {} : { since: options.since }) },
    )) {
      read.push(event);
      if (done(event, read)) return read;
    }
  } catch (error) {
    if (!controller.signal.aborted) v.stop(`the thread's event stream failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return v.stop(`the thread's event stream ended or stayed silent before what was awaited (${read.length} events read)`);
}

/** A run started with run.start on a new thread of the run, read to its end over SSE. */
async function startedRun(s: AgentServerSession, v: Verify, graph: string, input: unknown) {
  const thread = await s.create(v);
  const result = await succeeded(s, v, thread.thread_id, 'run.start', { assistant_id: graph, input });
  const runId = (result as { run_id?: unknown }).run_id;
  v.that(typeof runId === 'string', `run.start's result: expected a run_id, got ${show(result)}`);
  const events = await eventsUntil(s, v, thread.thread_id, rootEnded);
  return { threadId: thread.thread_id, runId: runId as string, events };
}

/** The frame of every event: the thread's seq, one more each, its event_id; the root's first event its run starting. */
function expectTape(v: Verify, events: readonly ProtocolEvent[], what: string): void {
  v.equal(
    events.map((event) => event.seq),
    events.map((_, i) => (events[0]?.seq ?? 1) + i),
    `${what}: seq of the events, one more each`,
  );
  v.equal(events[0]?.method, 'lifecycle', `${what}: the first event's method`);
  v.equal(eventOf(events[0]!), 'running', `${what}: the first lifecycle event`);
}

export const AGENT_SERVER_PROTOCOL_CHECKS: Check[] = [
  check({
    id: 'protocol:run',
    area: 'protocol',
    title: 'run.start makes a run the runs API lists; the thread’s event stream tells it from lifecycle running to its end, in seq order',
    rule: 'sendThreadCommand run.start (ProtocolRunResult); streamThreadEvents (ProtocolStreamEvent; decision A26)',
    operations: ['sendThreadCommand', 'streamThreadEvents', 'listRuns', 'createThread'],
    async run(s, v) {
      const graph = await runGraph(s, v);
      const { threadId, runId, events } = await startedRun(s, v, graph, say('hello'));
      expectTape(v, events, 'the run’s events');
      v.that(
        events.some((event) => event.method === 'values'),
        `values events: expected some, got methods ${show(events.map((event) => event.method))}`,
      );
      const runs = await answer(s.client.GET('/threads/{thread_id}/runs', { params: { path: { thread_id: threadId } } }));
      v.equal(
        runs.data?.map((run) => run.run_id),
        [runId],
        'the runs of the thread',
      );
      const { tree } = (await succeeded(s, v, threadId, 'agent.getTree', {})) as { tree?: { namespace?: unknown; status?: unknown } };
      v.equal([tree?.namespace, tree?.status], [[], 'completed'], 'agent.getTree: the root’s namespace and status');
    },
  }),
  check({
    id: 'protocol:since',
    area: 'protocol',
    title: 'a stream opened with since n sends exactly the events after n: the same ids and data, none repeated, none missing',
    rule: 'streamThreadEvents: since (ProtocolEventFilter; decision A26)',
    operations: ['streamThreadEvents', 'sendThreadCommand', 'createThread'],
    async run(s, v) {
      const graph = await runGraph(s, v);
      const { threadId, events } = await startedRun(s, v, graph, say('hello'));
      const middle = events[Math.floor(events.length / 2)]!;
      const last = events.at(-1)!;
      const rest = await eventsUntil(s, v, threadId, (event) => event.seq === last.seq, { since: middle.seq });
      const summary = (list: readonly ProtocolEvent[]) => list.map((event) => [event.event_id, event.method, event.params.data]);
      v.equal(summary(rest), summary(events.filter((event) => event.seq > middle.seq)), `the events after ${middle.seq}`);
    },
  }),
  check({
    id: 'protocol:interrupt',
    area: 'protocol',
    title:
      'an interrupt is told as input.requested; input.respond refuses an ID the thread does not wait at and answers the one it does, and the run ends (conformance script)',
    rule: 'ProtocolInputRequestedEvent; sendThreadCommand input.respond (ProtocolInputRespondParams; decision A26)',
    operations: ['sendThreadCommand', 'streamThreadEvents', 'getThread', 'createThread'],
    difference: 'protocol-command-errors',
    differenceIn: 'marked findings',
    async run(s, v) {
      const { graph, thread } = await newScriptedThread(s, v);
      await succeeded(s, v, thread.thread_id, 'run.start', { assistant_id: graph, input: say('ask: refund') });
      const first = await eventsUntil(s, v, thread.thread_id, rootEnded);
      const requested = first.find((event) => event.method === 'input.requested');
      const data = requested?.params.data as { interrupt_id?: string; payload?: unknown } | undefined;
      v.equal(data?.payload, SCRIPTED.interrupt, 'the payload of input.requested');
      v.equal(eventOf(first.at(-1)!), 'interrupted', 'the root’s end');
      if (!data?.interrupt_id) return v.stop('no input.requested event named the interrupt');
      const unknown = await command(s, thread.thread_id, 'input.respond', {
        namespace: [],
        interrupt_id: 'not-an-interrupt',
        response: 'no',
      });
      v.equal(
        unknown.data?.type === 'error' ? unknown.data.error : unknown.data?.type,
        'no_such_interrupt',
        'input.respond naming an interrupt the thread does not wait at',
        { differs: true },
      );
      // A server that resumed the run with it has shown what this check is about.
      if (unknown.data?.type === 'success') return;
      await succeeded(s, v, thread.thread_id, 'input.respond', { namespace: [], interrupt_id: data.interrupt_id, response: 'yes' });
      const resumed = await eventsUntil(s, v, thread.thread_id, rootEnded, { since: first.at(-1)!.seq });
      v.equal(eventOf(resumed.at(-1)!), 'completed', 'the resumed run’s end');
      v.equal(await threadStatus(s, thread.thread_id), 'idle', 'thread status');
    },
  }),
  check({
    id: 'protocol:all-runs',
    area: 'protocol',
    title: 'a stream that follows a thread tells the runs the runs API starts on it too',
    rule: 'streamThreadEvents: every run of the thread (decision A26)',
    operations: ['streamThreadEvents', 'createRun', 'createThread'],
    difference: 'protocol-events-kept',
    async run(s, v) {
      const graph = await runGraph(s, v);
      const thread = await s.create(v);
      const told = eventsUntil(s, v, thread.thread_id, rootEnded, { channels: ['lifecycle'], budgetMs: 10_000 });
      // The stream is open before the run starts: the run is held a second.
      await createOn(s, v, thread.thread_id, { assistant_id: graph, input: say('hello'), after_seconds: 1 });
      const events = await told;
      v.equal(
        events.filter((event) => event.params.namespace.length === 0).map(eventOf),
        ['running', 'completed'],
        'the root lifecycle of the run',
      );
    },
  }),
  check({
    id: 'protocol:multitask',
    area: 'protocol',
    title: 'run.start while a run is pending, with multitask_strategy reject, is refused with invalid_argument',
    rule: 'ProtocolRunStartParams.multitask_strategy (decision A26)',
    operations: ['sendThreadCommand', 'createRun', 'cancelRun', 'createThread'],
    difference: 'protocol-runs',
    async run(s, v) {
      const graph = await runGraph(s, v);
      const thread = await s.create(v);
      const held = await createOn(s, v, thread.thread_id, { assistant_id: graph, input: say('first'), after_seconds: 30 });
      try {
        const refused = await command(s, thread.thread_id, 'run.start', {
          assistant_id: graph,
          input: say('second'),
          multitask_strategy: 'reject',
          multitaskStrategy: 'reject',
        });
        v.equal(refused.data?.type === 'error' ? refused.data.error : refused.data?.type, 'invalid_argument', 'run.start with reject');
      } finally {
        await s.client.POST('/threads/{thread_id}/runs/{run_id}/cancel', {
          ...onRun(thread.thread_id, held.run_id),
          params: { ...onRun(thread.thread_id, held.run_id).params, query: { wait: true } },
        } as never);
      }
    },
  }),
  check({
    id: 'protocol:checkpoints',
    area: 'protocol',
    title: 'state.listCheckpoints lists the thread’s checkpoints newest first, and state.get reads its state',
    rule: 'sendThreadCommand state.listCheckpoints, state.get (decision A26)',
    operations: ['sendThreadCommand', 'getThreadHistory', 'createThread'],
    difference: 'protocol-methods',
    async run(s, v) {
      const graph = await runGraph(s, v);
      const { threadId } = await startedRun(s, v, graph, say('hello'));
      const history = await s.history(v, threadId, { limit: 5 });
      const listed = (await succeeded(s, v, threadId, 'state.listCheckpoints', { limit: 5 })) as { checkpoints?: { id?: string }[] };
      v.equal(
        listed.checkpoints?.map((checkpoint) => checkpoint.id),
        history.map((state) => state.checkpoint?.checkpoint_id),
        'the checkpoints listed against the history',
      );
      const state = (await succeeded(s, v, threadId, 'state.get', { namespace: [] })) as { checkpoint?: { id?: string } };
      v.equal(state.checkpoint?.id, history[0]?.checkpoint?.checkpoint_id, 'state.get’s checkpoint against the latest');
    },
  }),
  check({
    id: 'protocol:events',
    area: 'protocol',
    title:
      'a reply is told as a message of content blocks, one block after the other, message-start naming its role; updates name their node (conformance script)',
    rule: 'ProtocolMessagesData, ProtocolUpdatesData (decision A26)',
    operations: ['sendThreadCommand', 'streamThreadEvents', 'createThread'],
    difference: 'protocol-event-shapes',
    async run(s, v) {
      const { graph, thread } = await newScriptedThread(s, v);
      await succeeded(s, v, thread.thread_id, 'run.start', { assistant_id: graph, input: say('hello') });
      const events = await eventsUntil(s, v, thread.thread_id, rootEnded);
      const messages = events.filter((event) => event.method === 'messages').map((event) => event.params.data as Record<string, unknown>);
      v.equal(messages[0]?.role, 'ai', 'message-start’s role');
      v.equal(
        [...new Set(messages.map((data) => data.event))].filter(
          (name) =>
            !['message-start', 'content-block-start', 'content-block-delta', 'content-block-finish', 'message-finish'].includes(
              String(name),
            ),
        ),
        [],
        'messages events the protocol does not have',
      );
      let open: unknown;
      const interleaved = messages.filter((data) => {
        if (data.event === 'content-block-start') {
          const wasOpen = open !== undefined;
          open = data.index;
          return wasOpen;
        }
        if (data.event === 'content-block-finish') open = undefined;
        return false;
      });
      v.equal(interleaved.length, 0, 'content blocks started before the previous one finished');
      const text = messages.find((data) => data.event === 'content-block-finish')?.content as { text?: string } | undefined;
      v.equal(text?.text, SCRIPTED.echo('hello'), 'the text block’s finished content');
      const updates = events.filter((event) => event.method === 'updates').map((event) => Object.keys(event.params.data).sort());
      v.equal(updates[0], ['node', 'values'], 'the keys of an updates event’s data');
    },
  }),
  check({
    id: 'protocol:envelope',
    area: 'protocol',
    title: 'a command without an id, or a body that is not JSON, is a 422; an unknown method is answered unknown_command',
    rule: 'sendThreadCommand: ProtocolCommand, 422 HTTPValidationError; ProtocolErrorCode (decision A26)',
    operations: ['sendThreadCommand', 'createThread'],
    difference: 'protocol-command-errors',
    async run(s, v) {
      const thread = await s.create(v);
      const noId = await answer(
        s.client.POST('/threads/{thread_id}/commands', {
          params: { path: { thread_id: thread.thread_id } },
          body: { method: 'agent.getTree' } as never,
        }),
      );
      v.equal(noId.status, 422, 'status of a command without an id');
      const unknown = await command(s, thread.thread_id, 'no.such.method', {});
      v.equal(unknown.data?.type === 'error' ? unknown.data.error : unknown.status, 'unknown_command', 'an unknown method');
    },
  }),
  check({
    id: 'protocol:thread-ids',
    area: 'protocol',
    title: 'a thread ID that is not a UUID is a 422, on commands and on streams',
    rule: 'sendThreadCommand, streamThreadEvents: ThreadId (decision A26)',
    operations: ['sendThreadCommand', 'streamThreadEvents'],
    difference: 'protocol-thread-ids',
    async run(s, v) {
      const commanded = await answer(
        s.client.POST('/threads/{thread_id}/commands', {
          params: { path: { thread_id: 'my-thread' } },
          body: { id: 1, method: 'agent.getTree' },
        }),
      );
      v.equal(commanded.status, 422, 'status of a command on thread my-thread');
    },
  }),
  check({
    id: 'protocol:filter',
    area: 'protocol',
    title: 'a stream of a channel that does not exist, or of none, is a 422',
    rule: 'streamThreadEvents: ProtocolEventFilter.channels (decision A26)',
    operations: ['streamThreadEvents'],
    difference: 'protocol-event-filter',
    async run(s, v) {
      for (const channels of [['everything'], []]) {
        const refused = await answer(
          s.client.POST('/threads/{thread_id}/stream/events', {
            params: { path: { thread_id: UNKNOWN_THREAD } },
            body: { channels } as never,
            parseAs: 'stream',
          } as never),
        );
        if (refused.status === 200) await (refused.data as ReadableStream | undefined)?.cancel().catch(() => {});
        v.equal(refused.status, 422, `status of a stream of channels ${show(channels)}`);
      }
    },
  }),
  check({
    id: 'protocol:websocket',
    area: 'protocol',
    title:
      'the event stream’s path answers a GET without an upgrade with 426; over a WebSocket, a subscription tells a run run.start started on the same connection',
    rule: 'connectThreadEvents: 101 x-websocket (ProtocolCommand, ProtocolSocketMessage), 426 (decisions A26, S11)',
    operations: ['connectThreadEvents', 'sendThreadCommand', 'createThread'],
    difference: 'protocol-websocket',
    differenceIn: 'marked findings',
    async run(s, v) {
      const probed = await s.create(v);
      const plain = await answer(s.client.GET('/threads/{thread_id}/stream/events', { params: { path: { thread_id: probed.thread_id } } }));
      v.equal(plain.status, 426, 'status of a GET without an upgrade', { differs: true });
      // A socket reaches the server by its own address, which a run through an injected fetch has not.
      if (!s.socket) return;
      const graph = await runGraph(s, v);
      const thread = await s.create(v);
      const opening = connectThread({
        baseUrl: s.socket.url,
        threadId: thread.thread_id,
        ...(s.socket.apiKey ? { apiKey: s.socket.apiKey } : {}),
        WebSocket: ((globalThis as { WebSocket?: unknown }).WebSocket ?? WebSocket) as never,
      });
      const socket = await within(opening, SOCKET_ANSWER_MS, 'the WebSocket handshake').catch((error: Error) => {
        // A handshake that completes after all is closed, not left open.
        opening.then(
          (late) => late.close(),
          () => {},
        );
        return v.stop(`the WebSocket could not be opened: ${error.message}`);
      });
      try {
        const subscription = await within(
          socket.subscribe({ channels: ['lifecycle'], namespaces: [[]], depth: 0 }),
          SOCKET_ANSWER_MS,
          'subscribe over the WebSocket',
        );
        const started = await within(
          socket.send('run.start', { assistant_id: graph, input: say('hello') }),
          SOCKET_ANSWER_MS,
          'run.start over the WebSocket',
        );
        v.that(typeof started.run_id === 'string', `run.start over the socket: expected a run_id, got ${show(started)}`);
        const told: (string | undefined)[] = [];
        const deadline = setTimeout(() => void subscription.unsubscribe(), EVENTS_BUDGET_MS);
        for await (const event of subscription) {
          told.push(eventOf(event));
          if (rootEnded(event)) break;
        }
        clearTimeout(deadline);
        v.equal(told, ['running', 'completed'], 'the root lifecycle told over the socket');
      } finally {
        socket.close();
      }
    },
  }),
];
