// Canonical JSON decides cache keys, stored memory and output bytes, so one misformatted value would change ids across a replay; its RFC 8785 rules and refusals are pinned here.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, CanonicalJsonError } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 0, y: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":1,"z":0}]},"b":1}');
  });

  it('sorts keys by UTF-16 code units, not by locale', () => {
    expect(canonicalJson({ b: 0, B: 0, 'é': 0, a: 0, '10': 0, '9': 0 })).toBe('{"10":0,"9":0,"B":0,"a":0,"b":0,"é":0}');
  });

  it('keeps array order and Unicode as is', () => {
    expect(canonicalJson(['z', 'a', 'ünïcødé €', '😀'])).toBe('["z","a","ünïcødé €","😀"]');
  });

  it('formats numbers the ECMAScript way', () => {
    expect(canonicalJson([1, 1.5, -0, 1e21, 1e-7, 0.1, 100])).toBe('[1,1.5,0,1e+21,1e-7,0.1,100]');
  });

  it('does not depend on insertion order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('refuses NaN and infinities wherever they sit', () => {
    for (const value of [Number.NaN, Infinity, -Infinity, { a: Number.NaN }, [1, Infinity], { a: [{ b: -Infinity }] }]) {
      expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
    }
  });

  it('refuses bigints', () => {
    expect(() => canonicalJson(1n)).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ amount: 10n })).toThrow(CanonicalJsonError);
  });

  it('refuses functions and symbols instead of dropping them or writing null', () => {
    for (const value of [() => 1, { f: () => 1 }, [() => 1], Symbol('s'), { s: Symbol('s') }, [Symbol('s')]]) {
      expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
    }
  });

  it('refuses cycles and absurd nesting', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(CanonicalJsonError);
    let deep: unknown = 0;
    for (let i = 0; i < 300; i += 1) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(/deeper than 256/);
  });

  it('refuses undefined as a whole value instead of returning the non-JSON text "undefined"', () => {
    expect(() => canonicalJson(undefined)).toThrow(CanonicalJsonError);
  });

  it('drops object members whose value is undefined, as JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });
});
