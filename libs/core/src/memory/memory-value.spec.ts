// The value encoding is persisted state (invariant 7): pin its bytes here, below the facade, so a layout change fails loudly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryKindError } from './memory-kind-error.js';
import { decodeMemoryValue, encodeRing, encodeScalar, encodedRingLength, MemoryValueTag } from './memory-value.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('memory value encoding', () => {
  it('encodes a scalar as the 0x00 tag followed by the payload verbatim', () => {
    expect(encodeScalar(bytes(0xde, 0xad))).toEqual(bytes(0x00, 0xde, 0xad));
    expect(encodeScalar(new Uint8Array(0))).toEqual(bytes(0x00));
  });

  it('encodes a ring as the 0x01 tag followed by items with 4-byte big-endian length prefixes, oldest first', () => {
    const encoded = encodeRing([bytes(0x61, 0x62), new Uint8Array(0), new Uint8Array(256).fill(7)]);
    expect([...encoded.subarray(0, 13)]).toEqual([0x01, 0, 0, 0, 2, 0x61, 0x62, 0, 0, 0, 0, 0, 0]);
    expect([...encoded.subarray(11, 15)]).toEqual([0, 0, 1, 0]);
    expect(encoded.length).toBe(1 + 4 + 2 + 4 + 0 + 4 + 256);
    expect(encodedRingLength([bytes(0x61, 0x62), new Uint8Array(0), new Uint8Array(256)])).toBe(encoded.length);
  });

  it('encodes an empty ring as the bare tag', () => {
    expect(encodeRing([])).toEqual(bytes(MemoryValueTag.Ring));
    expect(decodeMemoryValue('k', bytes(MemoryValueTag.Ring))).toEqual({ kind: 'ring', items: [] });
  });

  it('copies a scalar payload instead of aliasing it', () => {
    const payload = bytes(1, 2, 3);
    const encoded = encodeScalar(payload);
    payload[0] = 9;
    expect(encoded).toEqual(bytes(0, 1, 2, 3));
  });

  it('decodes whatever it encodes', () => {
    const item = fc.uint8Array({ maxLength: 40 });
    fc.assert(
      fc.property(item, fc.array(item, { maxLength: 12 }), (payload, items) => {
        expect(decodeMemoryValue('k', encodeScalar(payload))).toEqual({ kind: 'scalar', payload });
        const ring = decodeMemoryValue('k', encodeRing(items));
        expect(ring.kind).toBe('ring');
        expect(ring.kind === 'ring' ? ring.items.map((i) => [...i]) : []).toEqual(items.map((i) => [...i]));
      }),
    );
  });

  it('decodes a value that sits at an offset inside a larger buffer', () => {
    const backing = bytes(0xff, 0xff, 0x01, 0, 0, 0, 1, 0x41, 0xff);
    const decoded = decodeMemoryValue('k', backing.subarray(2, 8));
    expect(decoded.kind === 'ring' ? decoded.items.map((i) => [...i]) : undefined).toEqual([[0x41]]);
  });

  it.each([
    ['empty bytes (no kind tag)', bytes(), /no kind tag/],
    ['an unknown kind tag', bytes(0x02, 1, 2), /unknown kind tag 0x02/],
    ['a ring truncated inside a length prefix', bytes(0x01, 0, 0, 1), /truncated length prefix/],
    ['a ring whose item claims more bytes than remain', bytes(0x01, 0, 0, 0, 5, 1, 2), /claims 5 bytes, 2 remain/],
  ])('refuses %s with a MemoryKindError naming the key', (_label, encoded, message) => {
    const decode = (): unknown => decodeMemoryValue('notes', encoded);
    expect(decode).toThrow(MemoryKindError);
    expect(decode).toThrow(message);
    expect(decode).toThrow(/"notes"/);
  });
});
