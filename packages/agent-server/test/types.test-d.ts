// Type tests, checked by `npm run typecheck` (tsc): each `@ts-expect-error` line must fail to
// compile, and tsc fails if one of them ever compiles. Never executed.
import { expectTypeOf } from 'vitest';
import type { Message, Thread, ThreadState } from '../src/index.js';
import { createAgentServerClient, iterateHistory } from '../src/index.js';

export async function typeTests() {
  const client = createAgentServerClient({ baseUrl: 'http://as.test' });

  // @ts-expect-error `threadId` is not a path parameter; it is `thread_id`
  await client.GET('/threads/{thread_id}', { params: { path: { threadId: 'x' } } });

  // @ts-expect-error `sortBy` is misspelt; the field is `sort_by`
  await client.POST('/threads/search', { body: { sortBy: 'created_at' } });

  // @ts-expect-error `name` is not a ThreadSortBy
  await client.POST('/threads/search', { body: { sort_by: 'name' } });

  // @ts-expect-error `done` is not a ThreadStatus
  await client.POST('/threads/search', { body: { status: 'done' } });

  // @ts-expect-error a superstep update needs `as_node`
  await client.POST('/threads', { body: { supersteps: [{ updates: [{ values: {} }] }] } });

  // Free-form metadata and optional defaults compile.
  await client.POST('/threads', {
    body: {
      metadata: { graph_id: 'support', user_id: 'u-1' },
      supersteps: [{ updates: [{ values: { messages: [] }, as_node: '__input__' }] }],
    },
  });
  await client.POST('/threads/search', { body: {} });

  const created = await client.POST('/threads', { body: {} });
  if (created.data) expectTypeOf(created.data).toExtend<Thread>();
  const state = await client.GET('/threads/{thread_id}/state', { params: { path: { thread_id: 't' } } });
  if (state.data) {
    expectTypeOf(state.data).toExtend<ThreadState>();
    const message = state.data.values.messages?.[0];
    if (message?.type === 'ai') expectTypeOf(message.tool_calls).not.toBeAny();
    if (message) expectTypeOf(message).toExtend<Message>();
    if (message?.type === 'tool') expectTypeOf(message.tool_call_id).toEqualTypeOf<string>();
    // content is a string or a list of content blocks, each with its `type`.
    if (message && typeof message.content !== 'string') expectTypeOf(message.content[0]!.type).toEqualTypeOf<string>();
  }
  for await (const s of iterateHistory(client, 't')) expectTypeOf(s).toEqualTypeOf<ThreadState>();
}
