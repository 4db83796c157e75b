// The LangGraph SDK writes boolean query parameters as `1` and `0` (`runs.join` and
// `runs.joinStream` send `cancel_on_disconnect=0`, `runs.cancel` sends `wait=1`), and the spec reads
// them as booleans (decision E10). Prism alone refuses them as not booleans; the mock's front
// spells them `true` and `false`, so those SDK calls work against the mock as they do against the
// emulator. Anything else stays Prism's to refuse.

import { loadBundle } from '@agentplane/openapi-toolkit';
import { describe, expect, inject, it } from 'vitest';
import { booleanQueryParameters } from '../scripts/query-booleans.js';
import { MOCKS, queryBooleans } from '../src/mocks.js';
import { withBooleansSpelledOut } from '../src/validation-translator.js';

const url = inject('mockUrls')['agent-server']!;
const THREAD_ID = '8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f';
const RUN_ID = '0193a1b2-7c4d-7e5f-8a6b-9c0d1e2f3a4b';
const RUN = `/threads/${THREAD_ID}/runs/${RUN_ID}`;

describe('boolean query parameters written 1 and 0, as the LangGraph SDK writes them', () => {
  it('are the parameters the spec declares boolean wherever they appear', () => {
    const booleans = booleanQueryParameters(loadBundle('agent-server'));
    expect([...booleans].sort()).toEqual(['cancel_on_disconnect', 'delete_threads', 'recurse', 'refresh_ttl', 'subgraphs', 'wait']);
    expect(booleanQueryParameters(loadBundle('control-plane'))).toEqual(new Set());
    expect(withBooleansSpelledOut(`${RUN}/join?cancel_on_disconnect=0&stream_mode=values&wait=1`, booleans)).toBe(
      `${RUN}/join?cancel_on_disconnect=false&stream_mode=values&wait=true`,
    );
    // Only an exact 1 or 0 of a boolean parameter: other values and other parameters are left as they came.
    expect(withBooleansSpelledOut('/threads?limit=1&wait=01&subgraphs', booleans)).toBe('/threads?limit=1&wait=01&subgraphs');
  });

  it('are what the build wrote down for the mock to read, for every API (dist/query-booleans.json)', () => {
    for (const { api } of MOCKS) expect(queryBooleans(api), api).toEqual(booleanQueryParameters(loadBundle(api)));
  });

  it('are read by the mock: joinRun, joinRunStream and cancelRun answer as for true and false', async () => {
    for (const value of ['0', '1']) {
      const joined = await fetch(`${url}${RUN}/join?cancel_on_disconnect=${value}`);
      expect(joined.status, `joinRun, cancel_on_disconnect=${value}: ${await joined.text()}`).toBe(200);
      const streamed = await fetch(`${url}${RUN}/stream?cancel_on_disconnect=${value}`, { headers: { accept: 'text/event-stream' } });
      expect(streamed.status, `joinRunStream, cancel_on_disconnect=${value}`).toBe(200);
      expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await streamed.body?.cancel();
    }
    const cancelled = await fetch(`${url}${RUN}/cancel?wait=1&action=interrupt`, { method: 'POST' });
    expect(cancelled.status, await cancelled.text()).toBeLessThan(300);
  });

  it('refuses any other spelling with a 422 that names the parameter', async () => {
    const refused = await fetch(`${url}${RUN}/join?cancel_on_disconnect=yes`);
    expect(refused.status).toBe(422);
    const { detail } = (await refused.json()) as { detail: { loc: unknown[] }[] };
    expect(detail.map((issue) => issue.loc.join('.'))).toContain('query.cancel_on_disconnect');
  });
});
