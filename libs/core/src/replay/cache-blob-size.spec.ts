// The byte cap is only as good as this arithmetic, so it is checked here against the real generated protobuf encoder.
import { v1 } from '#proto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CacheEntryDoc } from '../actor/actor-document.js';
import { cacheBlobHeaderBytes, cacheEntryFieldBytes, cacheEntryMessageBytes, varintLength } from './cache-blob-size.js';

const encodedBlobLength = (entries: readonly CacheEntryDoc[], totalResponseBytes: number): number =>
  v1.LlmCacheBlob.encode({ entries: entries.map((e) => ({ ...e })), totalResponseBytes }).finish().length;

const timestamp = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 300 }),
  fc.integer({ min: -1_000_000, max: -1 }),
  fc.integer({ min: 1_600_000_000_000, max: 4_500_000_000_000 }),
  fc.maxSafeInteger(),
);
const payload = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  fc.integer({ min: 16_370, max: 16_400 }).map((n) => new Uint8Array(n)),
  fc.integer({ min: 0, max: 2_100_000 }).map((n) => new Uint8Array(n)),
);
const entry: fc.Arbitrary<CacheEntryDoc> = fc.record({
  cacheKey: fc.oneof(fc.string({ maxLength: 80, unit: 'grapheme' }), fc.stringMatching(/^[0-9a-f]{64}$/)),
  response: payload,
  responseDigest: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ minLength: 32, maxLength: 32 })),
  createdAtMs: timestamp,
  lastAccessMs: timestamp,
  digestOnly: fc.boolean(),
});

describe('cache blob size arithmetic', () => {
  it('gives varint lengths at every 7-bit boundary, including above 2^32', () => {
    expect([0, 127, 128, 16_383, 16_384, 2 ** 21 - 1, 2 ** 21, 2 ** 28, 2 ** 35 - 1, 2 ** 35, 2 ** 42, Number.MAX_SAFE_INTEGER].map(varintLength)).toEqual([
      1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 8,
    ]);
  });

  it('matches the encoder for a single entry message, whatever its fields', () => {
    fc.assert(
      fc.property(entry, (e) => {
        expect(cacheEntryMessageBytes(e)).toBe(v1.LlmCacheEntry.encode({ ...e }).finish().length);
      }),
      { numRuns: 300 },
    );
  });

  it('matches the encoder for a whole blob: header plus the sum of entry fields', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.oneof(fc.constant(0), timestamp, fc.nat()), (entries, total) => {
        const arithmetic = cacheBlobHeaderBytes(total) + entries.reduce((sum, e) => sum + cacheEntryFieldBytes(e), 0);
        expect(arithmetic).toBe(encodedBlobLength(entries, total));
      }),
      { numRuns: 200 },
    );
  });

  it('sizes the empty blob as zero bytes', () => {
    expect(cacheBlobHeaderBytes(0)).toBe(0);
    expect(encodedBlobLength([], 0)).toBe(0);
  });
});
