// Output bytes are what a replay must republish identically, so the value-to-bytes rule is pinned here, at its one definition.
import { describe, expect, it } from 'vitest';
import { CanonicalJsonError } from '../json/canonical-json.js';
import { outputBytes } from './output-value.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('outputBytes', () => {
  it('encodes a string as UTF-8', () => {
    expect(hex(outputBytes('x'))).toBe('78');
    expect(hex(outputBytes('é€'))).toBe(Buffer.from('é€', 'utf8').toString('hex'));
  });

  it('encodes objects, arrays, numbers, booleans and null as canonical JSON', () => {
    expect(Buffer.from(outputBytes({ b: 1, a: { d: [2, 1], c: 'x' } })).toString()).toBe('{"a":{"c":"x","d":[2,1]},"b":1}');
    expect(Buffer.from(outputBytes(12.5)).toString()).toBe('12.5');
    expect(Buffer.from(outputBytes(false)).toString()).toBe('false');
    expect(Buffer.from(outputBytes(null)).toString()).toBe('null');
  });

  it('passes bytes through verbatim', () => {
    const bytes = Uint8Array.from([0, 1, 254, 255]);
    expect(hex(outputBytes(bytes))).toBe('0001feff');
  });

  it('yields no bytes for undefined, an empty string and empty bytes (publish nothing)', () => {
    expect(outputBytes(undefined)).toHaveLength(0);
    expect(outputBytes('')).toHaveLength(0);
    expect(outputBytes(new Uint8Array(0))).toHaveLength(0);
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => outputBytes({ amount: Number.NaN })).toThrow(CanonicalJsonError);
  });
});
