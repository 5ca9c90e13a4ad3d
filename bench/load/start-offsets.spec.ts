import { describe, expect, it } from 'vitest';
import { startOffsetsMs } from './start-offsets.js';

describe('startOffsetsMs', () => {
  it('starts the keys evenly through one spread, the first at once and none at its end', () => {
    const offsets = startOffsetsMs(50, 50);
    expect(offsets).toHaveLength(50);
    expect(offsets[0]).toBe(0);
    expect(offsets[1]).toBe(1);
    expect(offsets[49]).toBe(49);
    for (let i = 1; i < offsets.length; i += 1) expect((offsets[i] as number) - (offsets[i - 1] as number)).toBeCloseTo(1, 9);
  });

  it('starts every key at once when the spread is zero', () => {
    expect(startOffsetsMs(3, 0)).toEqual([0, 0, 0]);
  });

  it('gives the only key of a one-key run no delay', () => {
    expect(startOffsetsMs(1, 50)).toEqual([0]);
  });

  it('refuses a key count or spread it cannot spread', () => {
    expect(() => startOffsetsMs(0, 50)).toThrow(RangeError);
    expect(() => startOffsetsMs(2.5, 50)).toThrow(RangeError);
    expect(() => startOffsetsMs(5, -1)).toThrow(RangeError);
    expect(() => startOffsetsMs(5, Number.NaN)).toThrow(RangeError);
  });
});
