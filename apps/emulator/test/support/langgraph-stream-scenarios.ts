// The runs issue's conversations, streamed through the LangGraph SDK's `runs.stream` in every
// stream mode, as scenarios that run the same on any server running RUN_GRAPHS. Each observes, per
// mode, the events in order (name and data; ids are places in the order, so they are left out), and
// the thread's final values. The differential test runs them on the emulator and on the real
// LangGraph JS server and compares what they observed, mode by mode.
import type { Client } from '@langchain/langgraph-sdk';
import type { Scenario } from './langgraph-scenarios.js';

/** Every stream mode of the SDK, one run each, and the pair `useStream` asks for. */
export const STREAM_MODES = [
  'values',
  'updates',
  'messages-tuple',
  'messages',
  'custom',
  'tasks',
  'checkpoints',
  'debug',
  'tools',
  'events',
  ['values', 'messages-tuple'],
] as const;

const ask = (content: string) => ({ messages: [{ type: 'human', content }] });
const modeName = (mode: (typeof STREAM_MODES)[number]) => [mode].flat().join('+');

type StreamMode = Parameters<Client['runs']['stream']>[2] extends infer P ? (P extends { streamMode?: infer M } ? M : never) : never;

async function collect(stream: AsyncIterable<{ event: string; data: unknown }>) {
  const events: { event: string; data: unknown }[] = [];
  for await (const { event, data } of stream) events.push({ event, data });
  return events;
}

/**
 * A conversation streamed once per mode, each on a new thread: `steps` are the runs it makes, each
 * streamed (the earlier ones of a step list prepare the thread, streamed too).
 */
function streamedInEveryMode(steps: { input?: unknown; command?: unknown; graph?: string }[]): Scenario {
  return async (client, tag) => {
    const observed: Record<string, unknown> = {};
    for (const mode of STREAM_MODES) {
      const graph = steps[0]!.graph ?? 'support';
      const threadId = (await client.threads.create({ metadata: { graph_id: graph, suite: tag } })).thread_id;
      const runs = [];
      for (const step of steps) {
        runs.push(
          await collect(
            client.runs.stream(threadId, graph, {
              ...(step.input === undefined ? {} : { input: step.input as Record<string, unknown> }),
              ...(step.command === undefined ? {} : { command: step.command as never }),
              streamMode: mode as unknown as StreamMode,
            }),
          ),
        );
      }
      observed[modeName(mode)] = { runs, values: (await client.threads.getState(threadId)).values };
    }
    return observed;
  };
}

/** A stream read off the wire: its events' names and ids, its comment lines, and its headers. */
async function onTheWire(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> }) {
  const response = await fetch(url, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  const lines = text.split('\n');
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    location: response.headers.get('location') === null ? '(none)' : '(a URL)',
    events: lines.filter((line) => line.startsWith('event: ')).map((line) => line.slice('event: '.length)),
    ids: lines.filter((line) => line.startsWith('id: ')).map((line) => line.slice('id: '.length)),
    comments: lines.filter((line) => line.startsWith(':')).length > 0,
  };
}

const newThreadOf = async (client: Client, tag: string, graph: string) =>
  (await client.threads.create({ metadata: { graph_id: graph, suite: tag } })).thread_id;

export const STREAM_SCENARIOS: Record<string, Scenario> = {
  'stream on the wire': async (client, tag, url) => {
    const threadId = await newThreadOf(client, tag, 'support');
    return onTheWire(`${url}/threads/${threadId}/runs/stream`, { body: { assistant_id: 'support', input: ask('hello') } });
  },
  'stateless stream on the wire': async (_client, _tag, url) =>
    onTheWire(`${url}/runs/stream`, { body: { assistant_id: 'echo', input: ask('once') } }),
  'a silent run streamed': async (client, tag, url) => {
    const threadId = await newThreadOf(client, tag, 'silent');
    return onTheWire(`${url}/threads/${threadId}/runs/stream`, { body: { assistant_id: 'silent', input: ask('wait') } });
  },
  'join stream of an unknown run': async (client, tag, url) => {
    const threadId = await newThreadOf(client, tag, 'support');
    const { status, events } = await onTheWire(`${url}/threads/${threadId}/runs/${crypto.randomUUID()}/stream`, { method: 'GET' });
    return { status, events };
  },
  'thread stream': async (client, tag, url) => {
    const threadId = await newThreadOf(client, tag, 'support');
    const response = await fetch(`${url}/threads/${threadId}/stream`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
    const status = response?.status;
    await response?.body?.cancel();
    return { status };
  },
  'join stream with stream_mode': async (client, tag) => {
    const threadId = await newThreadOf(client, tag, 'support');
    const run = await client.runs.create(threadId, 'support', {
      input: ask('hello'),
      streamMode: ['values', 'updates'],
      streamResumable: true,
    });
    await client.runs.join(threadId, run.run_id);
    const joined = await collect(client.runs.joinStream(threadId, run.run_id, { lastEventId: '-1', streamMode: ['values'] }));
    return { events: joined.map((event) => event.event) };
  },
  // A client whose stream was cut rejoins with the last id it saw, which may be ahead of where a
  // joined run is now: only the events after that id come, replayed or live.
  'join stream after a Last-Event-ID not reached yet': async (client, tag) => {
    const threadId = await newThreadOf(client, tag, 'slow');
    const run = await client.runs.create(threadId, 'slow', {
      input: ask('go'),
      streamMode: ['values', 'messages-tuple'],
      streamResumable: true,
    });
    const joined = await collect(client.runs.joinStream(threadId, run.run_id, { lastEventId: '4' }));
    return {
      events: joined.map((event) => event.event),
      texts: joined.map((event) => (event.event === 'messages' ? (event.data as [{ content: unknown }])[0].content : null)),
    };
  },
  'stream with namespace filters': async (client, tag) => {
    const streamed = async (streamNamespaces: string[]) =>
      (
        await collect(
          client.runs.stream(await newThreadOf(client, tag, 'support'), 'support', {
            input: ask('hello'),
            streamMode: ['values', 'updates'],
            streamNamespaces,
          }),
        )
      ).map((event) => event.event);
    return { root: await streamed(['']), none: await streamed(['no_such_subgraph']) };
  },
  'streamed in lifecycle mode': async (client, tag) => {
    const threadId = await newThreadOf(client, tag, 'support');
    return collect(client.runs.stream(threadId, 'support', { input: ask('hello'), streamMode: ['lifecycle', 'updates'] as never }));
  },
  'join stream after a checkpoint': async (client, tag) => {
    const threadId = await newThreadOf(client, tag, 'support');
    // The run's events read as it runs: the LangGraph JS server, loaded, sometimes replays nothing
    // of a run already joined (a join stream from the start then answered no events at all).
    const all = await collect(
      client.runs.stream(threadId, 'support', { input: ask('hello'), streamMode: ['values'], streamResumable: true }),
    );
    const runId = (all.find((event) => event.event === 'metadata')!.data as { run_id: string }).run_id;
    // The checkpoint whose state the first values event shows: the client shows it already.
    const first = all.find((event) => event.event === 'values')!;
    const history = await client.threads.getHistory(threadId, { limit: 20 });
    const sorted = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sorted)
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
            )
          : value;
    const shown = history.find((state) => JSON.stringify(sorted(state.values)) === JSON.stringify(sorted(first.data)))!;
    const joined = await collect(
      client.runs.joinStream(threadId, runId, { lastEventId: '-1', checkpointId: shown.checkpoint.checkpoint_id! }),
    );
    return { events: joined.map((event) => event.event), total: all.length };
  },
  'streamed with subgraphs': async (client, tag) => {
    const threadId = await newThreadOf(client, tag, 'support');
    const events = await collect(
      client.runs.stream(threadId, 'support', {
        input: ask('where is my order?'),
        streamMode: ['values', 'updates', 'messages-tuple'],
        streamSubgraphs: true,
      }),
    );
    return { events };
  },
  'two readers of a run': async (client, tag) => {
    const threadId = await newThreadOf(client, tag, 'slow');
    const run = await client.runs.create(threadId, 'slow', { input: ask('go'), streamMode: 'values' });
    const [first, second] = await Promise.all([
      collect(client.runs.joinStream(threadId, run.run_id)),
      collect(client.runs.joinStream(threadId, run.run_id)),
    ]);
    // Whether each reader got the run's events, all of them: which reader LangGraph's server
    // hands which event to varies, so only this is compared.
    return { sameEvents: first.length > 0 && JSON.stringify(first) === JSON.stringify(second) };
  },

  'streamed plain reply': streamedInEveryMode([{ input: ask('hello') }]),
  'streamed tool call and answer': streamedInEveryMode([{ input: ask('where is my order?') }]),
  'streamed interrupt and resume': streamedInEveryMode([{ input: ask('I want a refund') }, { command: { resume: 'yes' } }]),
  'streamed scripted error': streamedInEveryMode([{ input: ask('please fail') }]),
  // A command alone on an idle thread: the state it made streams, whatever runs after it.
  'streamed command update': streamedInEveryMode([{ input: ask('hello') }, { command: { update: { topic: 'billing' } } }]),
  'streamed command update and goto': streamedInEveryMode([
    { input: ask('hello') },
    { command: { update: { topic: 'x' }, goto: 'agent' } },
  ]),
  'streamed stateless run': async (client) => {
    const observed: Record<string, unknown> = {};
    for (const mode of STREAM_MODES)
      observed[modeName(mode)] = await collect(
        client.runs.stream(null, 'echo', { input: ask('once'), streamMode: mode as unknown as StreamMode }),
      );
    return observed;
  },
};
