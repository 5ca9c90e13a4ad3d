import { describe, expect, it } from 'vitest';
import { pairSchedule } from './pair-schedule.js';

describe('pairSchedule', () => {
  it('starts with one unmeasured lead-in pair, then numbers the measured pairs from 1', () => {
    expect(pairSchedule(3, true)).toEqual([
      { variant: 'lead-in', measured: false },
      { variant: 'r1', measured: true },
      { variant: 'r2', measured: true },
      { variant: 'r3', measured: true },
    ]);
  });

  it('without a lead-in, every pair is measured', () => {
    expect(pairSchedule(2, false)).toEqual([
      { variant: 'r1', measured: true },
      { variant: 'r2', measured: true },
    ]);
  });

  it('prefixes every variant, the lead-in included', () => {
    expect(pairSchedule(1, true, 't0.1-').map((p) => p.variant)).toEqual(['t0.1-lead-in', 't0.1-r1']);
  });

  it('measures exactly the number of pairs asked for', () => {
    expect(pairSchedule(5, true).filter((p) => p.measured)).toHaveLength(5);
  });

  it('refuses a pair count that is not a positive integer', () => {
    expect(() => pairSchedule(0, true)).toThrow(RangeError);
    expect(() => pairSchedule(2.5, false)).toThrow(RangeError);
  });
});
