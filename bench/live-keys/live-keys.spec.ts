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
