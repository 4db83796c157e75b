// Layer (b) for streamed runs (decision A18): the framing of a run's event stream, what its events
// say about the run, rejoining it with Last-Event-ID, the thread's stream, and what the
// conformance script makes a stream end with. Streams are read as a client reads them, with
// eventsource-parser (never split by hand), and each event is held to the spec's RunStreamEvent
// (the media type's `x-event-schema`) by the validator the schema checks use. Like the run checks,
// they run a graph, and only with leave (`--allow-runs` or `--scripted-graph-id`).

import type { RunCreate } from '@agentplane/agent-server';
import { createParser } from 'eventsource-parser';
import { SCRIPTED } from '../conformance-graph.js';
import type { StreamEvent } from '../contract.js';
import { checkEvent } from '../contract.js';
import { operationsOf } from '../spec.js';
import type { Verify } from '../verify.js';
import { canonical, show } from '../verify.js';
import {
  createOn,
  getRun,
  humanTexts,
  newScriptedThread,
  onRun,
  onThread,
  runGraph,
  runIdOf,
  say,
  threadStatus,
  UNKNOWN_RUN,
} from './agent-server-runs.js';
import type { AgentServerSession } from './agent-server-session.js';
import { checkpointIdOf, UNKNOWN_CHECKPOINT } from './agent-server-session.js';
import type { CheckDefinition } from './check.js';

type Check = CheckDefinition<AgentServerSession>;
const check = (definition: Omit<Check, 'api'>): Check => ({ api: 'agent-server', ...definition });

/** The longest a check reads one stream before it gives up on its end. */
const STREAM_BUDGET_MS = 30_000;
/** How long a run is held silent (`after_seconds`) where a check needs the stream idle for longer than a heartbeat's 5 s. */
const SILENT_SECONDS = 6;
/** A stream idle this long after its run ended has sent what it had (the thread stream never ends). */
const IDLE_MS = 750;

/** An event as read: its name, its `data` text and that text read as JSON (undefined when it is not JSON), its id, when it came. */
interface ReadEvent extends StreamEvent {
  json: unknown;
  /** Comment lines (heartbeats) read before this event since the stream opened. */
  commentsBefore: number;
  at: number;
}

type Call = Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** A streamed answer being read: its status and headers, and its events as they come. */
class OpenStream {
  readonly events: ReadEvent[] = [];
  comments = 0;
  ended = false;
  private readonly queue: ReadEvent[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly decoder = new TextDecoder();
  private readonly parser = createParser({
    onEvent: (event) => {
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        json = undefined;
      }
      this.queue.push({ ...event, json, commentsBefore: this.comments, at: Date.now() });
    },
    onComment: () => {
      this.comments++;
    },
  });

  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly error: unknown,
    body: ReadableStream<Uint8Array> | undefined,
    readonly opened = Date.now(),
  ) {
    this.reader = body?.getReader();
    if (!this.reader) this.ended = true;
  }

  /** The next event; undefined once the stream ended, or when none came within `budgetMs`. */
  async next(budgetMs = STREAM_BUDGET_MS): Promise<ReadEvent | undefined> {
    const deadline = Date.now() + budgetMs;
    while (this.queue.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const read = await Promise.race([
        this.reader!.read(),
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), left);
        }),
      ]).finally(() => clearTimeout(timer));
      if (read === 'timeout') return undefined;
      if (read.done) {
        this.parser.feed(this.decoder.decode());
        this.ended = true;
      } else this.parser.feed(this.decoder.decode(read.value, { stream: true }));
    }
    const event = this.queue.shift();
    if (event) this.events.push(event);
    return event;
  }

  /** Reads to the end of the stream (or until no event came for `idleMs`); answers every event read. */
  async rest(v: Verify, what: string, idleMs?: number): Promise<ReadEvent[]> {
    const deadline = Date.now() + STREAM_BUDGET_MS;
    while (!this.ended || this.queue.length > 0) {
      const event = await this.next(Math.min(idleMs ?? STREAM_BUDGET_MS, deadline - Date.now()));
      if (event) continue;
      if (this.ended) break;
      if (idleMs === undefined || Date.now() >= deadline) {
        await this.close();
        v.stop(`${what} did not end within ${STREAM_BUDGET_MS / 1000} s`);
      }
      break;
    }
    if (idleMs !== undefined) await this.close();
    return this.events;
  }

  /** Closes the connection (a reader that goes away). */
  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.reader?.cancel().catch(() => {});
  }
}

/** Sends a request for a stream; a refusal is an OpenStream without events. */
async function open(call: Call): Promise<OpenStream> {
  const opened = Date.now();
  const { data, error, response } = await call;
  const body = response.ok && data instanceof ReadableStream ? (data as ReadableStream<Uint8Array>) : undefined;
  return new OpenStream(response.status, response.headers, error, body, opened);
}

const streamOn = (s: AgentServerSession, threadId: string, body: RunCreate, namespaces?: string[]) =>
  open(
    s.client.POST('/threads/{thread_id}/runs/stream', {
      params: { path: { thread_id: threadId }, query: namespaces ? { namespace: namespaces } : {} },
      body,
      parseAs: 'stream',
    } as never) as Call,
  );

const joinStream = (
  s: AgentServerSession,
  threadId: string,
  runId: string,
  options: { lastEventId?: string; streamMode?: string[]; checkpointId?: string } = {},
) =>
  open(
    s.client.GET('/threads/{thread_id}/runs/{run_id}/stream', {
      params: {
        ...onRun(threadId, runId).params,
        query: {
          ...(options.streamMode ? { stream_mode: options.streamMode } : {}),
          ...(options.checkpointId ? { checkpoint_id: options.checkpointId } : {}),
        },
        ...(options.lastEventId === undefined ? {} : { header: { 'Last-Event-ID': options.lastEventId } }),
      },
      parseAs: 'stream',
    } as never) as Call,
  );

/** A stream must be a 200 text/event-stream to be read; anything else stops the check. */
function expectStream(v: Verify, stream: OpenStream, what: string): void {
  if (stream.status !== 200) v.stop(`${what} answered ${stream.status}: ${show(stream.error)}`);
  const type = stream.headers.get('content-type') ?? '';
  v.that(type.startsWith('text/event-stream'), `${what}: content type: expected text/event-stream, got ${type || '(none)'}`);
}

/**
 * The framing every event of every stream keeps: an `event:` name, one `data:` line of JSON, and
 * (`ids`) an `id:`, valid against RunStreamEvent (the operation's `x-event-schema`).
 */
function expectFraming(v: Verify, operationId: string, events: readonly ReadEvent[], what: string, ids = true, differs = false): void {
  const route = { api: 'agent-server' as const, operation: operationsOf('agent-server').get(operationId)!, params: {} };
  const problems = new Set<string>();
  for (const [i, event] of events.entries()) {
    const at = `${what}, event ${i} (${event.event ?? 'unnamed'})`;
    if (event.event === undefined) problems.add(`${at}: no event: line`);
    if (event.data.includes('\n')) problems.add(`${at}: data spans several data: lines`);
    else if (event.json === undefined) problems.add(`${at}: data is not JSON: ${show(event.data)}`);
    for (const finding of checkEvent(route, 200, event)) problems.add(`${at}: ${finding.message}`);
  }
  for (const problem of [...problems].slice(0, 10)) v.that(false, problem);
  if (ids)
    v.that(
      events.every((event) => event.id !== undefined && event.id !== ''),
      `${what}: every event has an id: line (${events.filter((event) => event.id === undefined).length} of ${events.length} have none)`,
      { differs },
    );
}

/** The run's event counter: `0`, `1`, ... in order. */
const counted = (events: readonly ReadEvent[], from = 0) => events.map((_, i) => String(i + from));
const names = (events: readonly ReadEvent[]) => events.map((event) => event.event);
const valuesOf = (events: readonly ReadEvent[]) => events.filter((event) => event.event === 'values').at(-1)?.json;

/** `metadata` first, naming the run. */
function expectMetadata(v: Verify, events: readonly ReadEvent[], runId: string | undefined, what: string): void {
  const first = events[0];
  v.equal(first?.event, 'metadata', `${what}: the first event`);
  const data = (first?.json ?? {}) as { run_id?: unknown; attempt?: unknown };
  v.equal(data.run_id, runId, `${what}: metadata.run_id against the run`);
  v.that(
    Number.isInteger(data.attempt) && (data.attempt as number) >= 1,
    `${what}: metadata.attempt: expected 1 or more, got ${show(data.attempt)}`,
  );
}

/**
 * A run streamed from a new thread to its end: of the run's graph, or with `scripted`, of the
 * conformance script's graph on a thread of it (skipped without the script's graph).
 */
async function streamedRun(s: AgentServerSession, v: Verify, body: Partial<RunCreate>, { scripted = false } = {}) {
  const { thread, graph } = scripted ? await newScriptedThread(s, v) : { thread: await s.create(v), graph: await runGraph(s, v) };
  const stream = await streamOn(s, thread.thread_id, { assistant_id: graph, input: say('hello'), ...body });
  expectStream(v, stream, 'streamRun');
  const runId = runIdOf(stream.headers.get('content-location'));
  const events = await stream.rest(v, 'the stream of streamRun');
  return { thread, stream, runId, events };
}

export const AGENT_SERVER_STREAM_CHECKS: Check[] = [
  check({
    id: 'streams:framing',
    area: 'streams',
    title:
      'streamRun answers text/event-stream: metadata first naming the run, then only the modes asked for, each event named, one JSON data line, numbered from 0, ending with the thread’s values',
    rule: 'streamRun: 200 text/event-stream, x-event-schema RunStreamEvent, Content-Location, Location (decisions A18, S10)',
    operations: ['streamRun', 'getThreadState', 'getRun', 'createThread'],
    difference: 'stream-location',
    differenceIn: 'marked findings',
    async run(s, v) {
      const { thread, stream, runId, events } = await streamedRun(s, v, { stream_mode: ['values', 'updates'] });
      v.equal(stream.headers.get('content-location'), `/threads/${thread.thread_id}/runs/${runId}`, 'Content-Location');
      v.equal(stream.headers.get('location'), `/threads/${thread.thread_id}/runs/${runId}/stream`, 'Location', { differs: true });
      expectFraming(v, 'streamRun', events, 'streamRun');
      v.equal(
        events.map((event) => event.id),
        counted(events),
        'ids of the events',
      );
      expectMetadata(v, events, runId, 'streamRun');
      const unasked = [...new Set(names(events).filter((name) => !['metadata', 'values', 'updates', 'error'].includes(name ?? '')))];
      v.equal(unasked, [], 'events of modes not asked for (stream_mode values, updates)');
      v.that(names(events).includes('updates'), `updates events: expected some, got ${show(names(events))}`);
      v.equal(
        valuesOf(events),
        (await s.state(v, thread.thread_id)).values,
        'the last values event against the thread’s values after the run',
      );
      if (runId) v.equal((await getRun(s, thread.thread_id, runId)).data?.status, 'success', 'status of the run');
    },
  }),
  check({
    id: 'streams:values-before-next-step',
    area: 'streams',
    title: 'with events streamed too, the state a step wrote (values) comes before the next step starts (its node’s on_chain_start)',
    rule: 'StreamEventValues: after the input and after each step',
    operations: ['streamRun', 'createThread'],
    difference: 'values-before-next-step',
    async run(s, v) {
      const { events } = await streamedRun(s, v, { stream_mode: ['events', 'values'] });
      const firstValues = events.findIndex((event) => event.event === 'values');
      // The first node's start: an on_chain_start inside a step (its metadata names the node).
      const firstNode = events.findIndex((event) => {
        const data = event.json as { event?: string; metadata?: { langgraph_node?: unknown } } | undefined;
        return event.event === 'events' && data?.event === 'on_chain_start' && typeof data.metadata?.langgraph_node === 'string';
      });
      if (firstValues < 0 || firstNode < 0) return v.stop(`the stream has no values event or no node start: ${show(names(events))}`);
      v.that(firstValues < firstNode, `the input's values event (event ${firstValues}) before the first node's start (event ${firstNode})`);
    },
  }),
  check({
    id: 'streams:resume-ended',
    area: 'streams',
    title: 'a resumable run’s stream, joined with Last-Event-ID n once it ended, continues with event n+1: the same events, no repeats',
    rule: 'joinRunStream: Last-Event-ID; RunCreate.stream_resumable (decisions A18, E21)',
    operations: ['joinRunStream', 'streamRun', 'createThread'],
    async run(s, v) {
      const { thread, runId, events } = await streamedRun(s, v, { stream_resumable: true, stream_mode: ['values', 'updates'] });
      if (!runId) return v.stop('streamRun answered no Content-Location naming its run');
      const summary = (list: readonly ReadEvent[]) => list.map((event) => [event.id, event.event, event.data]);
      for (const after of ['1', '-1']) {
        const joined = await joinStream(s, thread.thread_id, runId, { lastEventId: after });
        expectStream(v, joined, `joinRunStream after ${after}`);
        const rest = await joined.rest(v, `the stream joined after ${after}`);
        expectFraming(v, 'joinRunStream', rest, `joinRunStream after ${after}`);
        v.equal(summary(rest), summary(events.slice(Number(after) + 1)), `the events after ${after}: [id, event, data]`);
      }
    },
  }),
  check({
    id: 'streams:resume-ahead',
    area: 'streams',
    title: 'a run’s stream, joined with a Last-Event-ID the run has not sent yet, sends only the events after it as they come',
    rule: 'joinRunStream: Last-Event-ID past the last event sent (LastEventId; decision A18)',
    operations: ['joinRunStream', 'createRun', 'createThread'],
    difference: 'join-after-unsent-event-id',
    async run(s, v) {
      const thread = await s.create(v);
      // Held a moment, so that the join comes before the run has sent event 2.
      const run = await createOn(s, v, thread.thread_id, {
        input: say('hello'),
        after_seconds: 1,
        stream_mode: ['values', 'updates'],
        stream_resumable: true,
      });
      const ahead = await joinStream(s, thread.thread_id, run.run_id, { lastEventId: '2' });
      expectStream(v, ahead, 'joinRunStream after 2');
      const rest = await ahead.rest(v, 'the stream joined after 2');
      const all = await joinStream(s, thread.thread_id, run.run_id, { lastEventId: '-1' });
      const events = await all.rest(v, 'the whole stream, joined once it ended');
      const summary = (list: readonly ReadEvent[]) => list.map((event) => [event.id, event.event]);
      v.equal(summary(rest), summary(events.slice(3)), 'the events sent after 2: [id, event]');
    },
  }),
  check({
    id: 'streams:two-readers',
    area: 'streams',
    title: 'two readers joining the stream of a run in flight each get every event of the run, from its metadata to its last values',
    rule: 'joinRunStream without Last-Event-ID, a run in flight (decision A18)',
    operations: ['joinRunStream', 'createRun', 'getThreadState', 'createThread'],
    difference: 'stream-events-kept',
    differenceIn: 'marked findings',
    async run(s, v) {
      const thread = await s.create(v);
      // Held a moment, so that both readers join before the run's first event.
      const run = await createOn(s, v, thread.thread_id, { input: say('hello'), after_seconds: 1 });
      const readers = await Promise.all([0, 1].map(() => joinStream(s, thread.thread_id, run.run_id)));
      const read = await Promise.all(
        readers.map(async (reader, i) => {
          expectStream(v, reader, `joinRunStream, reader ${i + 1}`);
          return reader.rest(v, `the stream of reader ${i + 1}`);
        }),
      );
      const values = (await s.state(v, thread.thread_id)).values;
      for (const [i, events] of read.entries()) {
        const what = `reader ${i + 1}`;
        expectFraming(v, 'joinRunStream', events, what);
        v.equal(
          events.map((event) => event.id),
          counted(events),
          `${what}: ids of the events`,
          { differs: true },
        );
        v.equal(events[0]?.event, 'metadata', `${what}: the first event`, { differs: true });
        v.equal(valuesOf(events), values, `${what}: the last values event against the thread’s values`, { differs: true });
      }
    },
  }),
  check({
    id: 'streams:join-modes',
    area: 'streams',
    title: 'joinRunStream with stream_mode sends only the events of those modes (and metadata)',
    rule: 'joinRunStream: stream_mode (JoinStreamMode; decision A18)',
    operations: ['joinRunStream', 'streamRun', 'createThread'],
    difference: 'join-stream-mode-filter',
    async run(s, v) {
      const { thread, runId, events } = await streamedRun(s, v, { stream_resumable: true, stream_mode: ['values', 'updates'] });
      if (!runId) return v.stop('streamRun answered no Content-Location naming its run');
      const joined = await joinStream(s, thread.thread_id, runId, { lastEventId: '-1', streamMode: ['values'] });
      expectStream(v, joined, 'joinRunStream');
      const rest = await joined.rest(v, 'the joined stream');
      v.equal(
        rest.map((event) => [event.id, event.event]),
        events.filter((event) => event.event !== 'updates').map((event) => [event.id, event.event]),
        'the events joined with stream_mode values: [id, event]',
      );
    },
  }),
  check({
    id: 'streams:namespaces',
    area: 'streams',
    title:
      'streamRun with namespace sends only the events of those namespaces: "" the root graph’s, a namespace the run has none of nothing but metadata',
    rule: 'streamRun: namespace (StreamNamespaces; decision A23)',
    operations: ['streamRun', 'createThread'],
    difference: 'stream-namespaces',
    differenceIn: 'marked findings',
    async run(s, v) {
      const graph = await runGraph(s, v);
      const streamed = async (namespaces: string[]) => {
        const thread = await s.create(v);
        const stream = await streamOn(
          s,
          thread.thread_id,
          { assistant_id: graph, input: say('hello'), stream_mode: ['values', 'updates'] },
          namespaces,
        );
        expectStream(v, stream, `streamRun with namespace ${show(namespaces)}`);
        return stream.rest(v, `the stream with namespace ${show(namespaces)}`);
      };
      const root = await streamed(['']);
      v.that(names(root).includes('values'), `namespace "": values events expected, got ${show(names(root))}`);
      v.equal(names(await streamed(['no_such_subgraph'])), ['metadata'], 'namespace no_such_subgraph: the events', { differs: true });
    },
  }),
  check({
    id: 'streams:lifecycle-mode',
    area: 'streams',
    title: 'streamRun accepts stream_mode lifecycle, whose events name subgraphs only: a graph without subgraphs sends none',
    rule: 'StreamMode lifecycle; StreamEventLifecycle (decision A23)',
    operations: ['streamRun', 'createThread'],
    difference: 'lifecycle-stream-mode',
    async run(s, v) {
      const thread = await s.create(v);
      const stream = await streamOn(s, thread.thread_id, {
        assistant_id: await runGraph(s, v),
        input: say('hello'),
        stream_mode: ['lifecycle', 'values'],
      });
      expectStream(v, stream, 'streamRun with stream_mode lifecycle');
      const events = await stream.rest(v, 'the stream with stream_mode lifecycle');
      expectFraming(v, 'streamRun', events, 'streamRun with stream_mode lifecycle');
      v.equal(
        [...new Set(names(events))].filter((name) => name !== 'values'),
        ['metadata'],
        'events besides values (a root graph sends no lifecycle event)',
      );
    },
  }),
  check({
    id: 'streams:join-checkpoint',
    area: 'streams',
    title: 'joinRunStream with the checkpoint_id of a checkpoint the run wrote sends only the events after it; of another, every event',
    rule: 'joinRunStream: checkpoint_id (JoinStreamCheckpointId; decision A23)',
    operations: ['joinRunStream', 'streamRun', 'getThreadHistory', 'createThread'],
    difference: 'join-stream-checkpoint',
    differenceIn: 'marked findings',
    async run(s, v) {
      const { thread, runId, events } = await streamedRun(s, v, { stream_resumable: true, stream_mode: ['values'] });
      if (!runId) return v.stop('streamRun answered no Content-Location naming its run');
      const history = await s.history(v, thread.thread_id, { limit: 100 });
      // The state the first values event shows, and the checkpoint that holds it.
      const firstValues = events.findIndex((event) => event.event === 'values');
      const shown = history.find((state) => canonical(state.values) === canonical(events[firstValues]?.json));
      if (firstValues < 0 || !shown) return v.stop('no checkpoint of the thread holds the state of the first values event');
      const summary = (list: readonly ReadEvent[]) => list.map((event) => [event.id, event.event]);
      const join = async (checkpointId: string) => {
        const joined = await joinStream(s, thread.thread_id, runId, { lastEventId: '-1', checkpointId });
        expectStream(v, joined, 'joinRunStream with checkpoint_id');
        return summary(await joined.rest(v, 'the stream joined with checkpoint_id'));
      };
      v.equal(
        await join(checkpointIdOf(shown)!),
        summary(events.slice(firstValues + 1)),
        'joined after the first state’s checkpoint: [id, event]',
        {
          differs: true,
        },
      );
      v.equal(await join(UNKNOWN_CHECKPOINT), summary(events), 'joined with a checkpoint the run did not write: [id, event]');
    },
  }),
  check({
    id: 'streams:heartbeat',
    area: 'streams',
    title: 'a stream silent for 5 s sends a comment line (heartbeat)',
    rule: 'streamRun: `: heartbeat` after 5 s without an event (decision A18)',
    operations: ['streamRun', 'createThread'],
    difference: 'stream-heartbeat',
    async run(s, v) {
      const { stream, events } = await streamedRun(s, v, { after_seconds: SILENT_SECONDS });
      // From the stream's opening (the run may send its metadata only when it starts).
      const marks = [{ at: stream.opened, commentsBefore: 0 }, ...events];
      const gaps = events.map((event, i) => ({ ms: event.at - marks[i]!.at, comments: event.commentsBefore - marks[i]!.commentsBefore }));
      const silent = gaps.filter((gap) => gap.ms >= 5_500);
      if (silent.length === 0) return v.stop(`the run held ${SILENT_SECONDS} s left no silence of 5 s in its stream (${show(gaps)})`);
      v.that(
        silent.every((gap) => gap.comments > 0),
        `comment lines in ${Math.round(silent[0]!.ms / 100) / 10} s without an event: expected one or more, got ${silent[0]!.comments}`,
      );
    },
  }),
  check({
    id: 'streams:stateless',
    area: 'streams',
    title: 'streamStatelessRun streams a run of its own thread: metadata naming the run of Content-Location, events with ids',
    rule: 'streamStatelessRun: 200 text/event-stream, Content-Location /runs/{run_id} (decision A18)',
    operations: ['streamStatelessRun'],
    difference: 'stream-stateless-ids',
    differenceIn: 'marked findings',
    async run(s, v) {
      const graph = await runGraph(s, v);
      const stream = await open(
        s.client.POST('/runs/stream', { body: { assistant_id: graph, input: say('hello') }, parseAs: 'stream' } as never) as Call,
      );
      expectStream(v, stream, 'streamStatelessRun');
      const runId = /^\/runs\/([0-9a-f-]{36})$/.exec(stream.headers.get('content-location') ?? '')?.[1];
      v.that(runId !== undefined, `Content-Location: expected /runs/{run_id}, got ${stream.headers.get('content-location')}`);
      const events = await stream.rest(v, 'the stream of streamStatelessRun');
      expectFraming(v, 'streamStatelessRun', events, 'streamStatelessRun', true, true);
      expectMetadata(v, events, runId, 'streamStatelessRun');
      v.equal(humanTexts(valuesOf(events)), ['hello'], 'human messages of the last values event');
    },
  }),
  check({
    id: 'streams:join-unknown-run',
    area: 'streams',
    title: 'joining the stream of an unknown run of an existing thread is a 404, not a stream of a run that failed',
    rule: 'joinRunStream: 404 ErrorDetail (decision A18)',
    operations: ['joinRunStream', 'createThread'],
    difference: 'join-stream-unknown-run-404',
    async run(s, v) {
      const thread = await s.create(v);
      const joined = await joinStream(s, thread.thread_id, UNKNOWN_RUN);
      if (joined.status === 200) await joined.rest(v, 'the stream of an unknown run', 2_000);
      v.equal(joined.status, 404, 'status');
    },
  }),
  check({
    id: 'streams:thread',
    area: 'streams',
    title: 'joinThreadStream streams each run of the thread as it executes, from its metadata to its last values',
    rule: 'joinThreadStream: 200 text/event-stream (decision A18)',
    operations: ['joinThreadStream', 'createRun', 'joinRun', 'getThreadState', 'createThread'],
    difference: 'thread-stream',
    async run(s, v) {
      await runGraph(s, v); // skipped before anything is opened when the check may not run a graph
      const thread = await s.create(v);
      const stream = await open(
        s.client.GET('/threads/{thread_id}/stream', { ...onThread(thread.thread_id), parseAs: 'stream' } as never) as Call,
      );
      try {
        expectStream(v, stream, 'joinThreadStream');
        const run = await createOn(s, v, thread.thread_id, { input: say('hello') });
        await s.client.GET('/threads/{thread_id}/runs/{run_id}/join', onRun(thread.thread_id, run.run_id));
        const events = await stream.rest(v, 'the thread’s stream', IDLE_MS);
        expectFraming(v, 'joinThreadStream', events, 'joinThreadStream');
        v.equal(new Set(events.map((event) => event.id)).size, events.length, 'distinct ids of the events');
        expectMetadata(v, events, run.run_id, 'joinThreadStream');
        v.equal(valuesOf(events), (await s.state(v, thread.thread_id)).values, 'the last values event against the thread’s values');
      } finally {
        await stream.close();
      }
    },
  }),

  // With the conformance script (conformance-graph.ts).
  check({
    id: 'streams:interrupt',
    area: 'streams',
    title: 'the stream of a run stopped by an interrupt ends with a values event of its __interrupt__ (conformance script)',
    rule: 'StreamEventValues: {"__interrupt__": [...]} at an interrupt (decision A18)',
    operations: ['streamRun', 'getThread', 'createThread'],
    async run(s, v) {
      const { thread, events } = await streamedRun(s, v, { input: say('ask: refund'), stream_mode: 'values' }, { scripted: true });
      expectFraming(v, 'streamRun', events, 'streamRun');
      const last = events.at(-1);
      v.equal(last?.event, 'values', 'the last event');
      const interrupts = (last?.json as { __interrupt__?: { value?: unknown }[] } | undefined)?.__interrupt__;
      v.equal(
        interrupts?.map((interrupt) => interrupt.value),
        [SCRIPTED.interrupt],
        'the interrupt values of the last event',
      );
      v.equal(await threadStatus(s, thread.thread_id), 'interrupted', 'thread status');
    },
  }),
  check({
    id: 'streams:node-error',
    area: 'streams',
    title: 'the stream of a run whose node raises ends with an error event, inside the 200 (conformance script)',
    rule: 'StreamEventError: RunError, the last event (decision A18)',
    operations: ['streamRun', 'getRun', 'createThread'],
    async run(s, v) {
      const { thread, runId, events } = await streamedRun(s, v, { input: say('fail: now') }, { scripted: true });
      expectFraming(v, 'streamRun', events, 'streamRun');
      const last = events.at(-1);
      v.equal(last?.event, 'error', 'the last event');
      const error = (last?.json ?? {}) as { error?: unknown; message?: unknown };
      v.equal([typeof error.error, typeof error.message], ['string', 'string'], 'types of the error event’s error and message');
      v.equal(names(events).filter((name) => name === 'error').length, 1, 'error events');
      if (runId) v.equal((await getRun(s, thread.thread_id, runId)).data?.status, 'error', 'status of the run');
    },
  }),
];
