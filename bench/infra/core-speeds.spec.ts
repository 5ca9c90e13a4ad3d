import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeCoreSpeeds, measureCoreSpeeds, summarizeCoreSpeeds, unevenCoresRatio } from './core-speeds.js';

describe('core speeds', () => {
  it('takes fastest ÷ slowest over the cores', () => {
    expect(summarizeCoreSpeeds([40_000, 64_000])).toEqual({ perCore: [40_000, 64_000], fastestOverSlowest: 1.6 });
    expect(summarizeCoreSpeeds([50_000])?.fastestOverSlowest).toBe(1);
  });

  it('says nothing rather than something wrong when a core gave no figure', () => {
    expect(summarizeCoreSpeeds([])).toBeUndefined();
    expect(summarizeCoreSpeeds([40_000, 0])).toBeUndefined();
    expect(summarizeCoreSpeeds([40_000, Number.NaN])).toBeUndefined();
  });

  it('describes each core and the ratio in one line', () => {
    const speeds = summarizeCoreSpeeds([40_000, 64_000]);
    expect(describeCoreSpeeds(speeds)).toBe('core 0 40,000, core 1 64,000 iterations/s (fastest ÷ slowest 1.60)');
    expect(describeCoreSpeeds(undefined)).toBe('not measured');
  });

  it('calls the cores uneven by the worse of the two measurements, above 1.15 only', () => {
    const at = (ratio: number) => summarizeCoreSpeeds([100, 100 * ratio]);
    expect(unevenCoresRatio(at(1), at(1.6))).toBeCloseTo(1.6, 10);
    expect(unevenCoresRatio(at(1.2), undefined)).toBeCloseTo(1.2, 10);
    expect(unevenCoresRatio(at(1.15), at(1.1))).toBeUndefined();
    expect(unevenCoresRatio(undefined, undefined)).toBeUndefined();
  });

  it('measures every core of this machine with a pinned loop', { timeout: 20_000 }, async () => {
    const speeds = await measureCoreSpeeds(1, 200);
    // taskset is part of util-linux; where it is missing the figure is absent, never invented.
    if (spawnSync('taskset', ['-V']).status !== 0) {
      expect(speeds).toBeUndefined();
      return;
    }
    expect(speeds?.perCore).toHaveLength(1);
    if (speeds === undefined) return;
    expect(speeds.perCore[0]).toBeGreaterThan(0);
    expect(speeds.fastestOverSlowest).toBe(1);
  });
});
