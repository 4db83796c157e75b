// Async iterators over results larger than one page.
//   iterateThreads: every thread matching a search, by limit/offset pages; stops at a short page
//   or once `X-Pagination-Total` matches have been read.
//   iterateHistory: a thread's whole history, newest first, by `before` = the last checkpoint
//   of the previous page; stops at a short page.
import { unwrap } from '@agentplane/client-core';
import type { AgentServerClient } from './client.js';
import type { Thread, ThreadHistoryQuery, ThreadSearch, ThreadState } from './generated/openapi.js';

export interface PageOptions {
  /** Items per request (1–1000, default 100). */
  pageSize?: number;
  signal?: AbortSignal;
}

export async function* iterateThreads(
  client: AgentServerClient,
  search: Omit<ThreadSearch, 'limit' | 'offset'> = {},
  { pageSize = 100, signal }: PageOptions = {},
): AsyncGenerator<Thread, void, undefined> {
  checkPageSize(pageSize);
  let offset = 0;
  for (;;) {
    const result = await client.POST('/threads/search', { body: { ...search, limit: pageSize, offset }, ...(signal ? { signal } : {}) });
    const page = unwrap(result);
    yield* page;
    offset += page.length;
    const total = result.response.headers.get('x-pagination-total');
    if (page.length < pageSize || (total !== null && offset >= Number(total))) return;
  }
}

export async function* iterateHistory(
  client: AgentServerClient,
  threadId: string,
  query: Omit<ThreadHistoryQuery, 'limit'> = {},
  { pageSize = 100, signal }: PageOptions = {},
): AsyncGenerator<ThreadState, void, undefined> {
  checkPageSize(pageSize);
  let before = query.before;
  for (;;) {
    const body: ThreadHistoryQuery = { ...query, limit: pageSize, ...(before !== undefined ? { before } : {}) };
    const page = unwrap(
      await client.POST('/threads/{thread_id}/history', { params: { path: { thread_id: threadId } }, body, ...(signal ? { signal } : {}) }),
    );
    yield* page;
    const last = page.at(-1);
    if (page.length < pageSize || !last?.checkpoint_id) return;
    before = last.checkpoint_id;
  }
}

function checkPageSize(pageSize: number): void {
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
    throw new RangeError(`pageSize must be an integer from 1 to 1000, got ${pageSize}`);
}
