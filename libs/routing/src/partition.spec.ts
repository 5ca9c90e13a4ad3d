// The partition function must equal FNV-1a-32 mod P; here against published vectors and an independent reference (the server pin is test/routing).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyTokenError, RoutingError } from './errors.js';
import { encodeKeyToken } from './key-token.js';
import { MAX_PARTITIONS, assertPartitionCount, partitionOf } from './partition.js';

/** Reference FNV-1a-32 written from the spec (offset basis 2166136261, prime 16777619), as an oracle only. */
function referenceFnv1a32(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

const utf8 = new TextEncoder();

describe('partitionOf', () => {
  it.each([
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('reduces the published FNV-1a-32 vector of %j modulo P', (token, hash) => {
    for (const partitions of [1, 7, 16, 256, 10_000]) {
      expect(partitionOf(token, partitions)).toBe(hash % partitions);
    }
  });

  it('matches the partition nats-server 2.9.10 gave for token "ab" with P = 16 (stack.md §2)', () => {
    expect(partitionOf('ab', 16)).toBe(10);
  });

  it('agrees with a reference FNV-1a-32 over the token bytes for arbitrary keys and P', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: MAX_PARTITIONS }), (key, partitions) => {
        const token = encodeKeyToken(key);
        const partition = partitionOf(token, partitions);
        expect(partition).toBe(referenceFnv1a32(utf8.encode(token)) % partitions);
        expect(Number.isInteger(partition) && partition >= 0 && partition < partitions).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('spreads ordinary keys over every one of 16 partitions', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 1_000; i++) seen.add(partitionOf(`order-${i}`, 16));
    expect(seen.size).toBe(16);
  });

  it('refuses a string that is not a canonical key token', () => {
    expect(() => partitionOf('a.b', 16)).toThrow(KeyTokenError);
    expect(() => partitionOf('', 16)).toThrow(KeyTokenError);
  });

  it.each([0, -4, 2.5, MAX_PARTITIONS + 1, Number.NaN, Number.POSITIVE_INFINITY])('rejects partition count %d, naming it', (partitions) => {
    expect(() => partitionOf('a', partitions)).toThrow(RoutingError);
    expect(() => partitionOf('a', partitions)).toThrow(`got ${String(partitions)}`);
  });
});

describe('assertPartitionCount', () => {
  it('accepts the bounds 1 and MAX_PARTITIONS', () => {
    expect(() => assertPartitionCount(1)).not.toThrow();
    expect(() => assertPartitionCount(MAX_PARTITIONS)).not.toThrow();
    expect(MAX_PARTITIONS).toBe(10_000);
  });
});
