// readRevisionLog against a scripted log endpoint: it reads on from a cursor to the end written so
// far, page by page, passing the filters and asking for the oldest lines first, and hands back the
// cursor to read on from later, or null once the log is complete.

import { json } from '@agentplane/openapi-toolkit/testing';
import { describe, expect, it } from 'vitest';
import type { RevisionLogEntry } from '../src/index.js';
import { createControlPlaneClient, readRevisionLog } from '../src/index.js';

const DEPLOYMENT_ID = '0b9a7a1e-5c6d-4f3e-8a2b-1c9d8e7f6a50';
const REVISION_ID = '5e8f2c1a-9b7d-4e6f-a3c2-7d1e0f9b8a64';

const line = (i: number): RevisionLogEntry => ({ timestamp: `2026-11-20T08:00:0${i}.000Z`, level: 'INFO', message: `line ${i}` });

/** A log of which `written` lines exist so far, complete once `done`; cursors are `c<index>`. */
function logEndpoint(state: { written: number; done: boolean }) {
  const queries: URLSearchParams[] = [];
  const fetch = async (request: Request) => {
    const query = new URL(request.url).searchParams;
    queries.push(query);
    const from = Number((query.get('offset') ?? 'c0').slice(1));
    const limit = Number(query.get('limit'));
    const to = Math.min(from + limit, state.written);
    const logs = Array.from({ length: to - from }, (_, i) => line(from + i));
    return json(200, { logs, next_offset: to === state.written && state.done ? null : `c${to}` });
  };
  return { client: createControlPlaneClient({ baseUrl: 'http://cp.test', apiKey: 'k', fetch }), queries };
}

describe('readRevisionLog', () => {
  it('reads every page to the end written so far, then on from its cursor; null once the log is complete', async () => {
    const state = { written: 5, done: false };
    const { client, queries } = logEndpoint(state);
    const first = await readRevisionLog(client, DEPLOYMENT_ID, REVISION_ID, { type: 'build', level: 'INFO' }, { pageSize: 2 });
    expect(first).toEqual({ entries: [0, 1, 2, 3, 4].map(line), nextOffset: 'c5' });
    expect(queries.map((q) => [q.get('type'), q.get('level'), q.get('order'), q.get('limit'), q.get('offset')])).toEqual([
      ['build', 'INFO', 'asc', '2', null],
      ['build', 'INFO', 'asc', '2', 'c2'],
      ['build', 'INFO', 'asc', '2', 'c4'],
    ]);
    // Nothing new yet: an empty read that keeps the cursor.
    expect(await readRevisionLog(client, DEPLOYMENT_ID, REVISION_ID, { type: 'build' }, { offset: 'c5', pageSize: 2 })).toEqual({
      entries: [],
      nextOffset: 'c5',
    });
    state.written = 7;
    state.done = true;
    expect(await readRevisionLog(client, DEPLOYMENT_ID, REVISION_ID, { type: 'build' }, { offset: 'c5', pageSize: 2 })).toEqual({
      entries: [5, 6].map(line),
      nextOffset: null,
    });
  });

  it('checks the page size against the bounds of the operation (1–1000) before any request', async () => {
    const { client, queries } = logEndpoint({ written: 1, done: true });
    await expect(readRevisionLog(client, DEPLOYMENT_ID, REVISION_ID, { type: 'deploy' }, { pageSize: 1001 })).rejects.toThrow(RangeError);
    expect(queries).toEqual([]);
    expect((await readRevisionLog(client, DEPLOYMENT_ID, REVISION_ID, { type: 'deploy' })).entries).toEqual([line(0)]);
    expect(queries[0]!.get('limit')).toBe('1000');
  });
});
