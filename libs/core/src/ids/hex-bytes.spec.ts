import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from './hex-bytes.js';

describe('hex bytes', () => {
  it('writes the same text as Buffer hex for every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(toHex(all)).toBe(Buffer.from(all).toString('hex'));
  });

  it('reads back what it wrote, and what node:crypto writes', () => {
    const bytes = Uint8Array.from({ length: 48 }, (_, i) => (i * 151 + 7) % 256);
    expect(fromHex(toHex(bytes))).toEqual(bytes);
    const digest = createHash('sha256').update('answer').digest();
    expect(fromHex(digest.toString('hex'))).toEqual(new Uint8Array(digest));
    expect(fromHex(digest.toString('hex').toUpperCase())).toEqual(new Uint8Array(digest));
  });

  it('gives an empty array for empty text', () => {
    expect(fromHex('')).toEqual(new Uint8Array(0));
    expect(toHex(new Uint8Array(0))).toBe('');
  });

  it('refuses odd lengths and non-hex characters instead of decoding garbage', () => {
    expect(() => fromHex('abc')).toThrow(TypeError);
    expect(() => fromHex('zz')).toThrow(/not a hex digit at 0/);
    expect(() => fromHex('0g')).toThrow(/not a hex digit at 1/);
  });
});
