/**
 * The entity digest: the lowercase hex sha256 of an entity key's bytes. Erasure names an entity by
 * it wherever a name must outlive the entity's data (the pause markers of `AGENTS_ERASURES`, the
 * audit record), so no raw key byte is kept after the entity is erased. Deterministic: every
 * service computes the same digest for the same key. Pure: no side effects on import.
 */
import { hash } from 'node:crypto';

/** Lowercase hex sha256 of `key` (64 characters; a valid KV key and subject token). */
export function entityDigest(key: Uint8Array): string {
  return hash('sha256', key, 'hex');
}
