import { toHex } from './hex-bytes.js';

/**
 * Lowercase hex of an entity key: the form every derived id and cache key hashes, so ids are a
 * pure function of the key bytes whatever subject encoding carried them.
 */
export function entityKeyHex(key: Uint8Array): string {
  return toHex(key);
}
