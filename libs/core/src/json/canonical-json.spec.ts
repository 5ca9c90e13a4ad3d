// Canonical JSON decides cache keys, stored memory and output bytes, so one misformatted value would change ids across a replay; its RFC 8785 rules and refusals are pinned here.
import fc from 'fast-check';
import { canonicalize as libraryCanonicalize } from 'json-canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson, CanonicalJsonError } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 0, y: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":1,"z":0}]},"b":1}');
  });

  it('sorts keys by UTF-16 code units, not by locale', () => {
    expect(canonicalJson({ b: 0, B: 0, 'é': 0, a: 0, '10': 0, '9': 0 })).toBe('{"10":0,"9":0,"B":0,"a":0,"b":0,"é":0}');
  });

  it('sorts small and large objects alike (insertion sort up to 16 keys, the built-in sort beyond)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { minLength: 0, maxLength: 40 }), (names) => {
        const record = Object.fromEntries(names.map((name, i) => [name, i]));
        expect(canonicalJson(record)).toBe(libraryCanonicalize(record));
      }),
      { seed: 11, numRuns: 500 },
    );
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

  // Decision 0078: the walk replaced json-canonicalize 3.0.1 without moving a cache key or derived id.
  it('writes byte for byte what json-canonicalize wrote, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(libraryCanonicalize(value));
      }),
      { seed: 7, numRuns: 2_000 },
    );
  });

  it("keeps json-canonicalize's treatment of undefined items and members, holes and toJSON", () => {
    const sparse: unknown[] = [1];
    sparse[2] = 3;
    const values: unknown[] = [
      [undefined, 1, { a: undefined, b: [undefined] }],
      sparse,
      { at: new Date(Date.UTC(2026, 11, 3)), n: -0, nested: { z: 'ü', y: '\u2028', x: 'lone \ud800' } },
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(libraryCanonicalize(value));
    // An own toJSON function is a function member: refused, as before the walk.
    expect(() => canonicalJson({ toJSON: () => 1 })).toThrow(CanonicalJsonError);
  });
});
