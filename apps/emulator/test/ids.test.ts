// The IDs the emulator makes: thread IDs are UUID v7 and sort as they were made, even many in one
// millisecond (the store's indexes rely on that for locality); checkpoint IDs are UUID v6, as
// LangGraph's checkpointers make them.
import { describe, expect, it } from 'vitest';
import { newCheckpointId, newThreadId } from '../src/shared/ids.js';

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
