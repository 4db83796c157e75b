// Async iterators over results larger than one page.
//   iterateThreads: every thread matching a search, by limit/offset pages; stops at a short page
//   or once `X-Pagination-Total` matches have been read.
//   iterateHistory: a thread's whole history, newest first, by `before` = the last checkpoint
//   of the previous page; stops at a short page.
import { unwrap } from '@agentplane/client-core';
import { checkPageSize, paginate } from '@agentplane/client-core/internal';
import type { AgentServerClient } from './client.js';
import { pageLimits } from './generated/contract.js';
import type { Thread, ThreadHistoryQuery, ThreadSearch, ThreadState } from './generated/openapi.js';

export interface PageOptions {
  /** Items per request, within the bounds of the operation's `limit` (1–1000; default 100). */
  pageSize?: number;
  signal?: AbortSignal;
}

export async function* iterateThreads(
  client: AgentServerClient,
  search: Omit<ThreadSearch, 'limit' | 'offset'> = {},
  { pageSize = 100, signal }: PageOptions = {},
): AsyncGenerator<Thread, void, undefined> {
  checkPageSize(pageSize, pageLimits.searchThreads);
  yield* paginate({
    start: 0,
    fetchPage: async (offset: number) => {
      const result = await client.POST('/threads/search', { body: { ...search, limit: pageSize, offset }, ...(signal ? { signal } : {}) });
      const items = unwrap(result);
      const read = offset + items.length;
      const total = result.response.headers.get('x-pagination-total');
      return { items, next: items.length < pageSize || (total !== null && read >= Number(total)) ? undefined : read };
    },
  });
}

export async function* iterateHistory(
  client: AgentServerClient,
  threadId: string,
  query: Omit<ThreadHistoryQuery, 'limit'> = {},
  { pageSize = 100, signal }: PageOptions = {},
): AsyncGenerator<ThreadState, void, undefined> {
  checkPageSize(pageSize, pageLimits.getThreadHistory);
  yield* paginate<ThreadState, { before: ThreadHistoryQuery['before'] }>({
    start: { before: query.before },
    fetchPage: async ({ before }) => {
      const body: ThreadHistoryQuery = { ...query, limit: pageSize, ...(before !== undefined ? { before } : {}) };
      const items = unwrap(
        await client.POST('/threads/{thread_id}/history', {
          params: { path: { thread_id: threadId } },
          body,
          ...(signal ? { signal } : {}),
        }),
      );
      const last = items.at(-1)?.checkpoint_id;
      return { items, next: items.length < pageSize || !last ? undefined : { before: last } };
    },
  });
}
