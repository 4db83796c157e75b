// The benchmarks' source of randomness: seeded, so that every run sends the same requests.

/**
 * A small seeded pseudo-random generator (mulberry32): numbers in [0, 1).
 * @param {number} seed
 */
export function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
