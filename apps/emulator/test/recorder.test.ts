// The recorder in front of an upstream agent server (here an emulator, which is quick; the
// differential test records the real LangGraph JS server): what passes through comes back unchanged
// (streams chunk by chunk), what it writes is a config the emulator reads back, the replay answers
// the same conversations the same way, no key or secret is written, and what cannot be recorded is
// said. The `record` command as a process is in cli.e2e.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@langchain/langgraph-sdk';
import { Client as SdkClient } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import type { GraphDefinition } from '../src/agent-server/graphs/graph-types.js';
import { checkConfig, readConfigFile } from '../src/config/config.js';
import type { RecordingSummary } from '../src/recorder/recorder.js';
import { startRecorder } from '../src/recorder/recorder.js';
import { servableRecording } from '../src/recorder/recording.js';
import type { ThreadRecording } from '../src/recorder/thread-runs.js';
import type { TestEmulator } from './support/harness.js';
import { startTestEmulator } from './support/harness.js';
import { sdkClient } from './support/sdk-client.js';

type Values = Record<string, any>;

const UPSTREAM_KEY = 'upstream-secret-key-1234';
const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

const GRAPHS: Record<string, GraphDefinition> = {
  support: {
    state: { topic: null },
    replies: [
      { match: '*order*', text: 'Let me look.', tool_calls: [{ name: 'lookup', args: { id: '7' }, id: 'call_7' }] },
      { match: '*order*', text: 'It shipped.', update: { topic: 'shipping' } },
      { match: '*refund*', interrupt: { question: 'Refund?' }, text: 'Refunded ({{resume}}).' },
      { text: 'Hello: {{input}}' },
    ],
    tools: { lookup: 'Order {{args.id}}: shipped' },
    stream: { chunk: 'word', delay_ms: 5 },
  },
  review: {
    assistant: { config: { configurable: { openai_api_key: 'sk-live-never-written', tone: 'warm' } }, metadata: { team: 'docs' } },
    channels: { messages: { reducer: 'messages', default: [] }, notes: { reducer: 'append', default: [] } },
    runs: [
      {
        steps: [
          { node: 'plan', do: [{ custom: { stage: 'planning' } }, { delay_ms: 20 }], update: { notes: ['planned'] } },
          {
            parallel: [
              { node: 'a', delay_ms: 30, update: { notes: ['a'] } },
              { node: 'b', delay_ms: 5, update: { notes: ['b'] } },
            ],
          },
          { node: 'done', message: { text: 'All done.' } },
        ],
      },
    ],
  },
};

let upstream: TestEmulator;
let work: string;
let recording: string;
let summary: RecordingSummary;
let replay: TestEmulator;
/** What each conversation answered through the recorder, by name. */
const recorded: Record<string, unknown> = {};

/** The conversations of these tests, each a function of a client, answering what a test compares. */
const CONVERSATIONS: Record<string, (client: Client) => Promise<unknown>> = {
  // Held again below, streamed: one entry, with what the stream showed (chunks, the tool running).
  'a tool call, waited': async (client) => {
    const { thread_id } = await client.threads.create();
    return ((await client.runs.wait(thread_id, 'support', { input: ask('where is my order?') })) as Values).messages.at(-1).content;
  },
  'a tool call, streamed': async (client) => {
    const { thread_id } = await client.threads.create();
    const chunks: string[] = [];
    for await (const event of client.runs.stream(thread_id, 'support', { input: ask('where is my order?'), streamMode: 'messages-tuple' }))
      if (event.event === 'messages') chunks.push((event.data as unknown as [Values])[0].content);
    const state = await client.threads.getState<Values>(thread_id);
    return { chunks, messages: state.values.messages.map((m: Values) => [m.type, m.content]), topic: state.values.topic };
  },
  'an interrupt, then its resume': async (client) => {
    const { thread_id } = await client.threads.create();
    const paused = (await client.runs.wait(thread_id, 'support', { input: ask('a refund please') })) as Values;
    const resumed = (await client.runs.wait(thread_id, 'support', { command: { resume: 'yes' } })) as Values;
    return { paused: paused.__interrupt__.map((i: Values) => i.value), last: resumed.messages.at(-1).content };
  },
  'a stateless run': async (client) => ((await client.runs.wait(null, 'support', { input: ask('hi') })) as Values).messages.at(-1).content,
  // A created assistant's secret: redacted in the recording, and any value of it replays the run.
  'a run through an assistant with a secret of its own': async (client) => {
    const assistant = await client.assistants.create({
      graphId: 'support',
      config: { configurable: { service_token: 'tok-never-written-42' } },
    });
    const answer = (await client.runs.wait(null, assistant.assistant_id, { input: ask('secretly') })) as Values;
    await client.assistants.delete(assistant.assistant_id);
    return answer.messages.at(-1).content;
  },
  // A prune deletes threads it does not name in its path: the recorder reads them first.
  'a thread pruned right after its run': async (client) => {
    const { thread_id } = await client.threads.create();
    const answer = (await client.runs.wait(thread_id, 'support', { input: ask('prune me') })) as Values;
    const apiUrl = (client.threads as unknown as { apiUrl: string }).apiUrl;
    const pruned = await fetch(`${apiUrl}/threads/prune`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ thread_ids: [thread_id] }),
    });
    return { last: answer.messages.at(-1).content, pruned: (await pruned.json()).pruned_count };
  },
  // The thread-centric protocol, as @langchain/react speaks it (client.threads.stream(), over SSE).
  'over the thread-centric protocol': async (client) => {
    const apiUrl = (client.threads as unknown as { apiUrl: string }).apiUrl;
    const thread = new SdkClient({ apiUrl, apiKey: null, streamProtocol: 'v2' }).threads.stream({ assistantId: 'support' });
    try {
      await thread.run.start({ input: ask('hello there') });
      await thread.output;
      const state = await client.threads.getState<Values>(thread.threadId);
      return state.values.messages.map((m: Values) => [m.type, m.content]);
    } finally {
      await thread.close().catch(() => {});
    }
  },
  'a graph of any shape, on a thread then deleted': async (client) => {
    const { thread_id } = await client.threads.create();
    const custom: unknown[] = [];
    const nodes: string[] = [];
    for await (const event of client.runs.stream(thread_id, 'review', { input: {}, streamMode: ['custom', 'updates'] })) {
      if (event.event === 'custom') custom.push(event.data);
      if (event.event === 'updates') nodes.push(...Object.keys(event.data as Values));
    }
    const state = await client.threads.getState<Values>(thread_id);
    await client.threads.delete(thread_id);
    return { custom, nodes, notes: state.values.notes };
  },
};

beforeAll(async () => {
  upstream = await startTestEmulator({ graphs: GRAPHS, config: { agent_server: { api_keys: [UPSTREAM_KEY] } } });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-recorder-'));
  recording = path.join(work, 'recordings', 'support.yaml');
  const recorder = await startRecorder({
    upstream: new URL(upstream.agentServerUrl),
    out: recording,
    apiKey: UPSTREAM_KEY,
    port: 0,
    host: '127.0.0.1',
  });
  // The client knows no key: the recorder adds the upstream's.
  const client = sdkClient(recorder.url);
  for (const [name, conversation] of Object.entries(CONVERSATIONS)) recorded[name] = await conversation(client);
  summary = await recorder.stop();
  replay = await startTestEmulator({ config: readConfigFile(recording) });
});
afterAll(async () => {
  await Promise.all([upstream?.close(), replay?.close()]);
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the recorder', () => {
  it('passes every request on and answers as the upstream does', () => {
    expect(recorded['a tool call, streamed']).toEqual({
      chunks: ['Let', ' me', ' look.', 'Order 7: shipped', 'It', ' shipped.'],
      messages: [
        ['human', 'where is my order?'],
        ['ai', 'Let me look.'],
        ['tool', 'Order 7: shipped'],
        ['ai', 'It shipped.'],
      ],
      topic: 'shipping',
    });
    expect(recorded['a tool call, waited']).toBe('It shipped.');
    expect(recorded['a stateless run']).toBe('Hello: hi');
    expect(recorded['a thread pruned right after its run']).toEqual({ last: 'Hello: prune me', pruned: 1 });
    expect(upstream.errors).toEqual([]);
  });

  it('writes a config of every graph the upstream serves and the runs it saw, which the emulator reads', () => {
    const text = fs.readFileSync(recording, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=/);
    const config = checkConfig(YAML.parse(text));
    expect(Object.keys(config.graphs ?? {}).sort()).toEqual(['review', 'support']);
    // Seven requests: the resume is one of its own, going on from the run it resumes; the same
    // request waited and then streamed is one entry.
    expect(summary).toMatchObject({ file: recording, graphs: 2, runs: 8, notes: [], lost: [] });
    const review = config.graphs!.review!;
    expect(review.channels?.notes).toEqual({ reducer: 'append', default: [] });
    expect(review.assistant?.metadata).toEqual({ team: 'docs' });
  });

  it('writes no API key and no secret of the assistants', () => {
    const text = fs.readFileSync(recording, 'utf8');
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).not.toContain('sk-live-never-written');
    expect(text).not.toContain('tok-never-written-42');
    expect(text).toContain('service_token: <redacted>');
    const config = checkConfig(YAML.parse(text));
    expect(config.graphs!.review!.assistant?.config).toEqual({ configurable: { openai_api_key: '<redacted>', tone: 'warm' } });
  });

  it('records a thread the client deleted or pruned, a stateless run and a run the protocol started, from their histories, in the order they were held', () => {
    const text = fs.readFileSync(recording, 'utf8');
    const config = checkConfig(YAML.parse(text));
    expect(config.graphs!.review!.runs).toHaveLength(1);
    const runs = config.graphs!.support!.runs ?? [];
    expect(runs.map((run) => run.match)).toEqual([
      'where is my order?',
      'a refund please',
      undefined,
      'hi',
      'secretly',
      'prune me',
      'hello there',
    ]);
    // Each entry says what was asked: the resume its value, and what it goes on from; the stateless run that it was one.
    expect(runs.map(({ id, continues, request }) => ({ id, continues, request }))).toEqual([
      { id: undefined, continues: undefined, request: {} },
      { id: 'a-refund-please', continues: undefined, request: {} },
      { id: undefined, continues: 'a-refund-please', request: { command: { resume: 'yes' } } },
      { id: undefined, continues: undefined, request: { stateless: true } },
      { id: undefined, continues: undefined, request: { config: { configurable: { service_token: '<redacted>' } }, stateless: true } },
      { id: undefined, continues: undefined, request: {} },
      // A run the protocol's run.start made.
      { id: undefined, continues: undefined, request: {} },
    ]);
  });

  it('keeps, of a conversation held twice, the hold whose stream showed the most', () => {
    const config = checkConfig(YAML.parse(fs.readFileSync(recording, 'utf8')));
    const [first, , answer] = config.graphs!.support!.runs![0]!.steps as unknown as [Values, Values, Values];
    // A reply is the task's `message`, or one of its actions when it came after a pause.
    const replyOf = (task: Values) => task.message ?? task.do?.find((action: Values) => action.message).message;
    expect(replyOf(first).chunks).toEqual(['Let', ' me', ' look.']);
    expect(replyOf(answer).chunks).toEqual(['It', ' shipped.']);
  });
});

describe('the replay', () => {
  it('answers every conversation the way the upstream did', async () => {
    const client = sdkClient(replay.agentServerUrl);
    for (const [name, conversation] of Object.entries(CONVERSATIONS)) expect(await conversation(client), name).toEqual(recorded[name]);
    expect(replay.errors).toEqual([]);
  });

  it("keeps the graphs' default assistants and their drawings", async () => {
    const client = sdkClient(replay.agentServerUrl);
    expect((await client.assistants.get('review')).metadata).toEqual({ team: 'docs', created_by: 'system' });
    const drawn = await client.assistants.getGraph('support');
    expect(drawn).toEqual(await sdkClient(upstream.agentServerUrl, { apiKey: UPSTREAM_KEY }).assistants.getGraph('support'));
  });
});

describe('what the recorder could not record', () => {
  it('loses nothing that had ended when the upstream stops before the recorder', async () => {
    const source = await startTestEmulator({ graphs: GRAPHS });
    const out = path.join(work, 'upstream-first.yaml');
    const recorder = await startRecorder({ upstream: new URL(source.agentServerUrl), out, port: 0, host: '127.0.0.1' });
    const client = sdkClient(recorder.url);
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, 'support', { input: ask('where is my order?') });
    await client.runs.wait(null, 'support', { input: ask('hi') });
    const background = await client.runs.create(thread_id, 'support', { input: ask('and my refund?') });
    await client.runs.join(thread_id, background.run_id);
    await source.close();
    const stopped = await recorder.stop();
    expect(stopped).toMatchObject({ file: out, runs: 3, lost: [] });
    const again = await startTestEmulator({ config: readConfigFile(out) });
    try {
      const answer = (await sdkClient(again.agentServerUrl).runs.wait(null, 'support', { input: ask('hi') })) as Values;
      expect(answer.messages.at(-1).content).toBe('Hello: hi');
    } finally {
      await again.close();
    }
  });

  it('leaves out a graph the emulator could not serve as recorded, and says why', () => {
    // A graph keeping strings under `messages`: the API types that key as messages.
    const strings: ThreadRecording = {
      holds: [
        {
          graphId: 'notes',
          runId: 'r1',
          run: { match_input: '{}', request: {}, steps: [{ node: 'write', update: { messages: ['a'] } }] },
          from: undefined,
        },
      ],
      transitions: [{ key: 'messages', before: [], writes: [['a']], after: ['a'] }],
      subgraphStates: new Map(),
      initialValues: { graphId: 'notes', values: { messages: [] } },
      breakpoints: new Map(),
      routes: [],
      notes: [],
      recorded: new Set(['r1']),
    };
    const { recording, leftOut } = servableRecording(
      { upstream: 'http://x', graphs: [], threads: [strings], secrets: [], recordedAt: new Date(), out: 'recording.yaml' },
      'recording.yaml',
    );
    expect(leftOut).toEqual([
      'graph notes is left out: the emulator could not serve it as recorded (graphs.notes.channels.messages.reducer: append is not allowed; messages is the conversation, which the API types as messages: its reducer is messages (keep other values under another key))',
    ]);
    expect(recording.config.graphs).toEqual({});
    expect(() => checkConfig(YAML.parse(recording.text))).not.toThrow();
  });
});
