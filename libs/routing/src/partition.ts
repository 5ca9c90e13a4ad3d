/**
 * The partition function: `fnv1a32(utf8(keyToken)) mod P`, exactly what nats-server's
 * `{{partition(P,1)}}` subject mapping computes over one token (server/subject_transform.go,
 * `getHashPartition`). Because the two agree — pinned by test/routing/partition-mapping.test.ts
 * against a real 2.9.10 server — moving partitioning into a server-side mapping later moves no
 * key. P is fixed at cluster creation: changing it remaps almost every key.
 * Pure: no side effects on import.
 */
import { KeyTokenError, RoutingError } from './errors.js';
import { isCanonicalKeyToken } from './key-token.js';

/** The largest supported partition count. Far above any sensible P (filtered consumers cost on 2.9). */
export const MAX_PARTITIONS = 10_000;

/**
 * Checks that `partitions` is a usable partition count: an integer in `1..MAX_PARTITIONS`.
 *
 * @throws {RoutingError} naming the value otherwise (a configuration bug, never retried).
 */
export function assertPartitionCount(partitions: number): void {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) {
    throw new RoutingError(`partition count must be an integer from 1 to ${MAX_PARTITIONS}, got ${String(partitions)}`);
  }
}

/**
 * The partition (`0..partitions-1`) that owns the key with this token.
 *
 * @param keyToken - a canonical key token from `encodeKeyToken` (never the raw key).
 * @param partitions - P, the cluster's fixed partition count.
 * @throws {RoutingError} when `partitions` is not an integer in `1..MAX_PARTITIONS`.
 * @throws {KeyTokenError} when `keyToken` is not a canonical key token.
 * @example
 * ```ts
 * partitionOf(encodeKeyToken(keyFromText('order-123')), 256); // same as the server's {{partition(256,1)}}
 * ```
 */
export function partitionOf(keyToken: string, partitions: number): number {
  assertPartitionCount(partitions);
  if (!isCanonicalKeyToken(keyToken)) {
    throw new KeyTokenError(`cannot partition a string that is not a canonical key token: ${JSON.stringify(keyToken.slice(0, 64))}`, {
      token: keyToken,
    });
  }
  return fnv1a32OfAscii(keyToken) % partitions;
}

/**
 * FNV-1a-32 (offset basis 2166136261, prime 16777619) of a string whose characters are all ASCII,
 * so each UTF-16 code unit is its UTF-8 byte: a canonical key token is `[A-Za-z0-9_=-]` only.
 * Computed in 32-bit integer arithmetic, without encoding the string or widening to BigInt: the
 * partition is computed for every inbox element, state write and span, and the general-purpose
 * library (TextEncoder, then BigInt multiplication) cost about 2 % of the activator's CPU.
 */
function fnv1a32OfAscii(ascii: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < ascii.length; i++) {
    hash ^= ascii.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
