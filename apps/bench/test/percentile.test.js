// Every p50, p99 and median the benchmarks print is read with one percentile. A change of its
// definition would fail no benchmark: it would move every figure against those printed before.
import { describe, expect, it } from 'vitest';
import { percentile, summarize } from '../src/http-load.js';

describe('percentile', () => {
  it('picks the value at index ⌊p/100 · n⌋ of the sorted values, one of the measured values', () => {
    const values = [7, 1, 9, 3, 5, 2, 8, 4, 10, 6];
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 10)).toBe(2);
    expect(percentile(values, 25)).toBe(3);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile(values, 100)).toBe(10);
  });

  it('is the upper middle value for an even count, not the mean of the two, and the middle one for an odd count', () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(3);
    expect(percentile([3, 1, 2], 50)).toBe(2);
  });

  it('takes the 99th of 1,000 values at index 990, past the 990 below it', () => {
    const values = Array.from({ length: 1000 }, (_, i) => 1000 - i);
    expect(percentile(values, 99)).toBe(991);
  });

  it('answers NaN for no values, and leaves the values it read in their order', () => {
    expect(percentile([], 50)).toBeNaN();
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });

  it('gives a measurement its median round and its latency p50 and p99 over all rounds', () => {
    const sample = (/** @type {number[]} */ latencies, /** @type {number} */ seconds) => ({
      latencies,
      seconds,
      serverCpu: 0,
      loadCpu: 0,
      statuses: { 200: latencies.length },
    });
    const measured = summarize([sample([5, 1], 1), sample([2, 4, 3], 1), sample([6], 1)]);
    expect(measured.rps).toBe(2);
    expect(measured.p50).toBe(4);
    expect(measured.p99).toBe(6);
  });
});
