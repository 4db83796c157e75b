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

export const STREAM_SCENARIOS: Record<string, Scenario> = {
  'streamed plain reply': streamedInEveryMode([{ input: ask('hello') }]),
  'streamed tool call and answer': streamedInEveryMode([{ input: ask('where is my order?') }]),
  'streamed interrupt and resume': streamedInEveryMode([{ input: ask('I want a refund') }, { command: { resume: 'yes' } }]),
  'streamed scripted error': streamedInEveryMode([{ input: ask('please fail') }]),
  'streamed stateless run': async (client) => {
    const observed: Record<string, unknown> = {};
    for (const mode of STREAM_MODES)
      observed[modeName(mode)] = await collect(
        client.runs.stream(null, 'echo', { input: ask('once'), streamMode: mode as unknown as StreamMode }),
      );
    return observed;
  },
};
