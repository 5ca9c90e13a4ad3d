// Layer 1: every backend scans prefixes as byte ranges, so the range bound must match startsWith exactly, wildcards included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys, prefixUpperBound } from './key-order.js';

const inRange = (key: string, prefix: string): boolean => {
  const upper = prefixUpperBound(prefix);
  return compareKeys(key, prefix) >= 0 && (upper === undefined || compareKeys(key, upper) < 0);
};

describe('prefix ranges', () => {
  it('select exactly the keys that start with the prefix (any Unicode, % and _ literal)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '%', '_', '\\', 'é', '\uffff', '😀', '\u{10ffff}', '\ud7ff', '\ue000'), maxLength: 6 });
    fc.assert(
      fc.property(text, text, (prefix, rest) => {
        expect(inRange(prefix + rest, prefix)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(text, text, (prefix, key) => {
        expect(inRange(key, prefix)).toBe(key.startsWith(prefix));
      }),
      { numRuns: 2_000 },
    );
  });

  it('increment the last code point, skipping surrogates and dropping U+10FFFF', () => {
    expect(prefixUpperBound('case/')).toBe('case0');
    expect(prefixUpperBound('a\ud7ff')).toBe('a\ue000');
    expect(prefixUpperBound('a\u{10ffff}')).toBe('b');
    expect(prefixUpperBound('\u{10ffff}')).toBeUndefined();
    expect(prefixUpperBound('')).toBeUndefined();
  });

  it('order keys by UTF-8 bytes, not UTF-16 code units', () => {
    expect(['😀', '\uffee', 'z'].sort(compareKeys)).toEqual(['z', '\uffee', '😀']);
  });
});
