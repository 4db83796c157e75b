// The client acts on what the spec declares, not on facts restated in code: the retry policy is
// the generated operation table's, so editing the spec changes it with no code edit.
import { retryPolicyFor } from '@agentplane/client-core/internal';
import { loadBundle, retryRules } from '@agentplane/openapi-toolkit';
import { describe, expect, it } from 'vitest';
import { isSafeToRepeat } from '../src/index.js';

const BASE = 'http://agent.test';
const search = () => new Request(`${BASE}/threads/search`, { method: 'POST', body: '{}' });
const create = (body: object) => new Request(`${BASE}/threads`, { method: 'POST', body: JSON.stringify(body) });

describe('retry safety comes from x-retry-safe', () => {
  it('the shipped client retries what the spec marks safe, and a create only when it names its thread_id', async () => {
    expect(await isSafeToRepeat(search())).toBe(true);
    expect(await isSafeToRepeat(create({ thread_id: '8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f' }))).toBe(true);
    expect(await isSafeToRepeat(create({ metadata: {} }))).toBe(false);
    expect(await isSafeToRepeat(new Request(`${BASE}/threads/8d2f4a6c-1b3e-4c5d-9e7f-0a1b2c3d4e5f`))).toBe(true);
  });

  it('an edit of the spec changes the policy: without the mark, search is no longer retried', async () => {
    const spec = loadBundle('agent-server');
    expect(await retryPolicyFor(retryRules(spec))(search())).toBe(true);
    delete spec.paths['/threads/search'].post['x-retry-safe'];
    expect(await retryPolicyFor(retryRules(spec))(search())).toBe(false);
    spec.paths['/threads'].post['x-retry-safe'] = true;
    expect(await retryPolicyFor(retryRules(spec))(create({ metadata: {} }))).toBe(true);
  });
});
