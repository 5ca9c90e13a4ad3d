import { describe, expect, it } from 'vitest';
import { pacedDelayMs, startOffsetsMs } from './start-offsets.js';

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

describe('pacedDelayMs', () => {
  it('holds an event whose output came early until its slot: offset + seq × pace', () => {
    expect(pacedDelayMs(10, 3, 75, 200)).toBe(35);
  });

  it('sends at once an event whose slot has passed, so a late key catches up without a second event in flight', () => {
    expect(pacedDelayMs(10, 3, 75, 260)).toBe(0);
  });

  it('keeps each key on its own slot whatever its earlier events did', () => {
    const slots = [0, 1, 2].map((seq) => 200 + pacedDelayMs(20, seq + 3, 75, 200));
    expect(slots).toEqual([245, 320, 395]);
  });

  it('is the closed loop at a pace of zero', () => {
    expect(pacedDelayMs(10, 3, 0, 0)).toBe(0);
  });

  it('refuses a pace it cannot keep', () => {
    expect(() => pacedDelayMs(0, 1, -1, 0)).toThrow(RangeError);
    expect(() => pacedDelayMs(0, 1, Number.POSITIVE_INFINITY, 0)).toThrow(RangeError);
  });
});
