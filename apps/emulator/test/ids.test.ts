// The IDs the emulator makes: thread IDs are UUID v7 and sort as they were made, even many in one
// millisecond (the store's indexes rely on that for locality); checkpoint IDs are UUID v6, as
// LangGraph's checkpointers make them; a name's UUID v5 is the one LangGraph derives (a graph's
// default assistant).
import { describe, expect, it } from 'vitest';
import { isUuid, newCheckpointId, newThreadId, uuidV5 } from '../src/shared/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V6 = /^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('thread IDs', () => {
  it('are UUID v7 carrying the time they were made', () => {
    const before = Date.now();
    const id = newThreadId();
    expect(id).toMatch(V7);
    const ms = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('sort in the order they were made, 20,000 in a row', () => {
    const ids = Array.from({ length: 20_000 }, newThreadId);
    expect(ids.every((id) => V7.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('checkpoint IDs', () => {
  it('are UUID v6 that sort in the order they were made', () => {
    const ids = Array.from({ length: 5_000 }, newCheckpointId);
    expect(ids.every((id) => V6.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('name-based IDs', () => {
  it('are the UUID v5 of the name, as RFC 9562 and LangGraph derive them', () => {
    // Computed with Python's uuid.uuid5; the first is what the LangGraph JS server answers for graph `agent`.
    const namespace = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';
    expect(uuidV5('agent', namespace)).toBe('fe096781-5601-53d2-b2f6-0d3403f7e9ca');
    expect(uuidV5('support', namespace)).toBe('a76bea17-1a15-53a6-bfc6-e12c619f641d');
    expect(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('tells a UUID in any accepted form from other text', () => {
    for (const id of [
      'fe096781-5601-53d2-b2f6-0d3403f7e9ca',
      'FE096781-5601-53D2-B2F6-0D3403F7E9CA',
      'urn:uuid:fe096781-5601-53d2-b2f6-0d3403f7e9ca',
    ])
      expect(isUuid(id), id).toBe(true);
    for (const text of ['agent', 'fe096781-5601-53d2-b2f6-0d3403f7e9c', 'fe096781560153d2b2f60d3403f7e9ca'])
      expect(isUuid(text), text).toBe(false);
  });
});
