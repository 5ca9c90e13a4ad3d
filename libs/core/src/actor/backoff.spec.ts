// Backoff is pure arithmetic over an injected random source, so its bounds are checked exhaustively here rather than by waiting.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

const policy = { baseMs: 100, maxMs: 5_000 };

describe('backoffDelay', () => {
  it('doubles from the base with equal jitter: between half and all of the exponential step', () => {
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(policy, attempt, () => 0))).toEqual([50, 100, 200, 400]);
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(policy, attempt, () => 0.5))).toEqual([75, 150, 300, 600]);
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(policy, attempt, () => 0.999_999))).toEqual([100, 200, 400, 800]);
  });

  it('caps the step at maxMs, also for huge attempt numbers', () => {
    expect(backoffDelay(policy, 10, () => 0.999_999)).toBe(5_000);
    expect(backoffDelay(policy, 10, () => 0)).toBe(2_500);
    expect(backoffDelay(policy, 1_000_000, () => 0.5)).toBe(3_750);
  });

  it("honours a server's retry-after floor", () => {
    expect(backoffDelay(policy, 0, () => 0.5, 2_000)).toBe(2_000);
    expect(backoffDelay(policy, 5, () => 0.5, 10)).toBe(2_400);
  });

  it('stays within [step/2, step] and above the floor for any attempt and random value', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.nat(10_000), (attempt, r, floor) => {
        const step = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt, 30));
        const delay = backoffDelay(policy, attempt, () => r, floor);
        expect(delay).toBeGreaterThanOrEqual(Math.max(floor, Math.floor(step / 2)));
        expect(delay).toBeLessThanOrEqual(Math.max(floor, step));
      }),
      { seed: 20_240_601, numRuns: 300 },
    );
  });
});
