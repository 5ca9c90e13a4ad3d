/**
 * The byte encoding of one working-memory value, as stored in `MemoryEntry.value` (invariant 7:
 * these bytes are persisted state, so the layout is a compatibility contract). The first byte is
 * the kind tag; a scalar's payload follows verbatim, a ring's items follow each prefixed by its
 * length as a 4-byte big-endian unsigned integer. Pure; importing it has no side effects.
 */
import { MemoryKindError } from './memory-kind-error.js';

/** The kind tag, the first byte of every stored value. */
export const MemoryValueTag = {
  /** A scalar: the rest of the bytes are the value. */
  Scalar: 0x00,
  /** A bounded ring: the rest of the bytes are length-prefixed items, oldest first. */
  Ring: 0x01,
} as const;
export type MemoryValueTag = (typeof MemoryValueTag)[keyof typeof MemoryValueTag];

/** Bytes of the length prefix in front of every ring item. */
export const RING_ITEM_PREFIX_BYTES = 4;

const MAX_RING_ITEM_BYTES = 0xffff_ffff;

/** A decoded value. Byte arrays are views into the encoded bytes: copy before handing them out. */
export type MemoryValue =
  | { readonly kind: 'scalar'; readonly payload: Uint8Array }
  | { readonly kind: 'ring'; readonly items: readonly Uint8Array[] };

/** Encodes a scalar: the tag byte followed by a copy of `payload` (empty payloads are allowed). */
export function encodeScalar(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + payload.length);
  out[0] = MemoryValueTag.Scalar;
  out.set(payload, 1);
  return out;
}

/** The encoded length of a ring holding `items`: one tag byte plus, per item, its prefix and bytes. */
export function encodedRingLength(items: readonly Uint8Array[]): number {
  let length = 1;
  for (const item of items) length += RING_ITEM_PREFIX_BYTES + item.length;
  return length;
}

/**
 * Encodes a ring, oldest item first. Throws a RangeError for an item longer than a 4-byte
 * length prefix can state (far beyond any memory cap).
 */
export function encodeRing(items: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(encodedRingLength(items));
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out[0] = MemoryValueTag.Ring;
  let offset = 1;
  for (const item of items) {
    if (item.length > MAX_RING_ITEM_BYTES) throw new RangeError(`ring item of ${item.length} bytes exceeds the 4-byte length prefix`);
    view.setUint32(offset, item.length, false);
    out.set(item, offset + RING_ITEM_PREFIX_BYTES);
    offset += RING_ITEM_PREFIX_BYTES + item.length;
  }
  return out;
}

/**
 * Decodes the value stored under `key`. Throws {@link MemoryKindError} when the bytes are not a
 * value this binary can read: empty (no tag), an unknown tag, or a ring whose framing is
 * truncated. Never copies: the result views `encoded`.
 */
export function decodeMemoryValue(key: string, encoded: Uint8Array): MemoryValue {
  if (encoded.length === 0) throw new MemoryKindError(key, `working memory key ${JSON.stringify(key)} holds corrupt bytes: no kind tag`);
  const tag = encoded[0];
  if (tag === MemoryValueTag.Scalar) return { kind: 'scalar', payload: encoded.subarray(1) };
  if (tag !== MemoryValueTag.Ring) {
    throw new MemoryKindError(key, `working memory key ${JSON.stringify(key)} holds corrupt bytes: unknown kind tag 0x${(tag ?? 0).toString(16).padStart(2, '0')}`);
  }
  const view = new DataView(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  const items: Uint8Array[] = [];
  let offset = 1;
  while (offset < encoded.length) {
    if (offset + RING_ITEM_PREFIX_BYTES > encoded.length) {
      throw new MemoryKindError(key, `working memory key ${JSON.stringify(key)} holds a corrupt ring: truncated length prefix at byte ${offset}`);
    }
    const length = view.getUint32(offset, false);
    const start = offset + RING_ITEM_PREFIX_BYTES;
    if (start + length > encoded.length) {
      throw new MemoryKindError(key, `working memory key ${JSON.stringify(key)} holds a corrupt ring: item at byte ${offset} claims ${length} bytes, ${encoded.length - start} remain`);
    }
    items.push(encoded.subarray(start, start + length));
    offset = start + length;
  }
  return { kind: 'ring', items };
}
