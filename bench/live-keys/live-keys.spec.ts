// Pure spec: which live keys a measured run touches decides whether it measures the store with
// that many keys or a small hot corner of it.
import { describe, expect, it } from 'vitest';
import { liveKeyToken, spreadIndices } from './live-keys.js';

describe('spreadIndices', () => {
  it('spreads fewer indices than keys evenly over the whole key space', () => {
    expect(spreadIndices(4, 1_000_000)).toEqual([0, 250_000, 500_000, 750_000]);
  });

  it('returns every index once when there are no more keys than wanted', () => {
    expect(spreadIndices(5, 3)).toEqual([0, 1, 2]);
  });

  it('gives the runs of one row disjoint keys, each still spread over the whole key space', () => {
    const runs = [0, 1, 2].map((shift) => spreadIndices(20_000, 1_000_000, shift));
    expect(new Set(runs.flat()).size).toBe(60_000);
    for (const run of runs) {
      expect(run[0]).toBeLessThan(3);
      expect(run[run.length - 1]).toBeGreaterThan(999_940);
      expect(run[run.length - 1]).toBeLessThan(1_000_000);
    }
  });

  it('wraps the shift at the stride, so every index stays a live key', () => {
    expect(spreadIndices(4, 10, 3)).toEqual([1, 3, 6, 8]);
    expect(spreadIndices(3, 3, 2)).toEqual([0, 1, 2]);
  });

  it('never repeats an index', () => {
    const picked = spreadIndices(20_000, 100_000);
    expect(new Set(picked).size).toBe(20_000);
  });
});

describe('liveKeyToken', () => {
  it('names a key the same way whatever the row, so rows add keys instead of renaming them', () => {
    expect(liveKeyToken(42)).toBe('lk-0000042');
  });
});
