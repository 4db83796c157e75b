// How a tool that asked a human first names its answer once resumed, as the LangGraph JS server
// does it and the emulator must: its `approval` reference shape and the emulator's equivalent
// graph are held to the same expectations here, one on each server.
import type { Client } from '@langchain/langgraph-sdk';
import { expect } from 'vitest';

type Values = Record<string, any>;

/** What the tool's answer looks like where its ID shows, after a run of `graphId` paused in its tool and a resume streamed with `streamMode`. */
async function resumedToolAnswer(client: Client, graphId: string, streamMode: string[]) {
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, graphId, { input: { messages: [{ role: 'user', content: 'A refund please' }] } });
  expect((await client.threads.getState(thread.thread_id)).next).toEqual(['tools']);
  const events: { event: string; data: any }[] = [];
  for await (const { event, data } of client.runs.stream(thread.thread_id, graphId, {
    command: { resume: 'approved' },
    streamMode: streamMode as never,
  }))
    events.push({ event, data });
  const state = await client.threads.getState<Values>(thread.thread_id);
  const callbacks = events.filter((event) => event.event === 'events').map((event) => event.data);
  return {
    kept: state.values.messages.find((message: Values) => message.type === 'tool'),
    toolsRunId: callbacks.find((event) => event.event === 'on_chain_start' && event.name === 'tools')?.run_id,
    toolEnd: callbacks.find((event) => event.event === 'on_tool_end')?.data.output,
    streamed: events
      .filter((event) => event.event === 'messages')
      .map((event) => event.data[0])
      .find((message) => message.type === 'tool'),
  };
}

/**
 * The resumed tool's answer (tool call `call_refund`, answering "Refund of order 4512: approved")
 * as LangGraph names it: while a messages mode streams, the thread and the messages stream keep the
 * stream handler's `run-<tools node run id>-tool-<call id>`; otherwise the reducer's UUID; and its
 * on_tool_end output has no ID either way.
 */
export async function expectResumedToolAnswerNamedAsLangGraph(client: Client, graphId: string): Promise<void> {
  const withMessages = await resumedToolAnswer(client, graphId, ['events', 'messages-tuple']);
  expect(withMessages.kept).toMatchObject({ content: 'Refund of order 4512: approved', tool_call_id: 'call_refund' });
  expect(withMessages.kept.id).toBe(`run-${withMessages.toolsRunId}-tool-call_refund`);
  expect(withMessages.streamed.id).toBe(withMessages.kept.id);
  expect(withMessages.toolEnd).toMatchObject({ type: 'tool', tool_call_id: 'call_refund', content: 'Refund of order 4512: approved' });
  expect(withMessages.toolEnd).not.toHaveProperty('id');
  const eventsOnly = await resumedToolAnswer(client, graphId, ['events']);
  expect(eventsOnly.kept.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(eventsOnly.toolEnd).not.toHaveProperty('id');
}
