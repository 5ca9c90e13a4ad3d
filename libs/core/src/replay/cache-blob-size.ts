/**
 * Exact protobuf-encoded sizes for `nats_agents.v1.LlmCacheBlob`, by arithmetic, so the replay
 * cache can hold its byte cap (invariant 3) after every step without re-encoding the blob. The
 * formulas follow the generated encoder: proto3 zero values (empty strings and bytes, 0, false)
 * are omitted, int64 is a varint (10 bytes when negative), every field number is below 16 (one
 * tag byte). Adding a field to `LlmCacheEntry` or `LlmCacheBlob` MUST update this file; the
 * property test against the real encoder fails until it does.
 */
import type { CacheEntryDoc } from '../actor/actor-document.js';

const TAG_BYTES = 1;

/** Bytes of `value` as an unsigned base-128 varint (`value` a non-negative safe integer). */
export function varintLength(value: number): number {
  let length = 1;
  let rest = value;
  // Division, not shifts: values above 2^31 must not wrap.
  while (rest >= 128) {
    rest = Math.floor(rest / 128);
    length += 1;
  }
  return length;
}

/** Bytes of an int64 field's varint: negative values sign-extend to the full 10 bytes. */
function int64Length(value: number): number {
  return value < 0 ? 10 : varintLength(value);
}

function lengthDelimitedField(length: number): number {
  return TAG_BYTES + varintLength(length) + length;
}

/** Encoded size of one `LlmCacheEntry` message (without the framing of its place in the blob). */
export function cacheEntryMessageBytes(entry: CacheEntryDoc): number {
  let size = 0;
  const keyBytes = Buffer.byteLength(entry.cacheKey, 'utf8');
  if (keyBytes > 0) size += lengthDelimitedField(keyBytes);
  if (entry.response.length > 0) size += lengthDelimitedField(entry.response.length);
  if (entry.responseDigest.length > 0) size += lengthDelimitedField(entry.responseDigest.length);
  if (entry.createdAtMs !== 0) size += TAG_BYTES + int64Length(entry.createdAtMs);
  if (entry.lastAccessMs !== 0) size += TAG_BYTES + int64Length(entry.lastAccessMs);
  if (entry.digestOnly) size += TAG_BYTES + 1;
  return size;
}

/** What one entry adds to the encoded blob: its `entries` tag, length prefix and message. */
export function cacheEntryFieldBytes(entry: CacheEntryDoc): number {
  return lengthDelimitedField(cacheEntryMessageBytes(entry));
}

/** What the blob's scalar fields add: `total_response_bytes`, omitted when zero. */
export function cacheBlobHeaderBytes(totalResponseBytes: number): number {
  return totalResponseBytes === 0 ? 0 : TAG_BYTES + int64Length(totalResponseBytes);
}
