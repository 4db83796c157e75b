// Reading a revision's build or deploy log (listRevisionLogs) up to what has been written so far,
// and on from there later: the primitive both "print the log" and "follow the log while the
// revision runs" are made of. The log is paged by an opaque cursor that is stable while lines are
// written; a null cursor means the log is complete (its phase is over and every line was read).
import { unwrap } from '@agentplane/client-core';
import { checkPageSize } from '@agentplane/client-core/internal';
import type { ControlPlaneClient } from './client.js';
import { pageLimits } from './generated/contract.js';
import type { operations, RevisionLogEntry } from './generated/openapi.js';

/** listRevisionLogs' query without the paging: `type` (required) and the filters. */
export type RevisionLogFilter = Omit<operations['listRevisionLogs']['parameters']['query'], 'limit' | 'offset' | 'order'>;

export interface ReadRevisionLogOptions {
  /** The cursor to read on from: the `nextOffset` of an earlier read; absent, the start of the log. */
  offset?: string;
  /** Lines per request (the bounds of the operation's `limit`: 1–1000; default 1000). */
  pageSize?: number;
  signal?: AbortSignal;
}

export interface RevisionLogRead {
  /** The lines from the cursor to the end written so far, oldest first. */
  entries: RevisionLogEntry[];
  /** Where to read on from later; null once the log is complete and nothing more will be written to it. */
  nextOffset: string | null;
}

/**
 * Reads the revision's log, oldest first, from `offset` to the end written so far: page after
 * page, until a page comes back short or the log is complete. Call it again with the answer's
 * `nextOffset` to get the lines written since, each once; stop when it is null.
 */
export async function readRevisionLog(
  client: ControlPlaneClient,
  deploymentId: string,
  revisionId: string,
  filter: RevisionLogFilter,
  { offset, pageSize = pageLimits.listRevisionLogs.maximum, signal }: ReadRevisionLogOptions = {},
): Promise<RevisionLogRead> {
  checkPageSize(pageSize, pageLimits.listRevisionLogs);
  const entries: RevisionLogEntry[] = [];
  let cursor = offset;
  for (;;) {
    const page = unwrap(
      await client.GET('/v2/deployments/{deployment_id}/revisions/{revision_id}/logs', {
        params: {
          path: { deployment_id: deploymentId, revision_id: revisionId },
          query: { ...filter, order: 'asc', limit: pageSize, ...(cursor === undefined ? {} : { offset: cursor }) },
        },
        ...(signal ? { signal } : {}),
      }),
    );
    entries.push(...page.logs);
    if (page.next_offset === null) return { entries, nextOffset: null };
    cursor = page.next_offset;
    if (page.logs.length < pageSize) return { entries, nextOffset: cursor };
  }
}
