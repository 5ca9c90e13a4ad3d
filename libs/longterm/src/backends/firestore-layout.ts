/**
 * The Firestore document layout of the long-term tier (decision 0020). Pure.
 *
 * One document per record in one collection. Document ids cannot hold `/` and stop at 1,500
 * bytes, and keys may hold anything but NUL, so the id is derived instead: the SHA-256 (hex) of
 * `<entity hex>/<agent>/<key>` — the same record always lands on the same document. The fields:
 *
 * - `b`: the record bytes, verbatim;
 * - `seq`, `exp`: integers (the guard is read back from here; the sweep queries `exp`);
 * - `sk`: `<scope digest>/<key>`, the scope digest being SHA-256 hex of `<entity hex>/<agent>`.
 *   Firestore orders strings by UTF-8 bytes (the tier's key order), so a prefix search is the
 *   range `[sd/prefix, sd/prefixUpperBound(prefix))` on this one field: a single-field index (no
 *   composite index to deploy), no pattern, every character literal; at most 1,089 bytes, inside
 *   the 1,500 bytes Firestore indexes;
 * - `sup`: `<scope digest>/<supersededBy>` or `''` (history's predecessors: an equality query);
 * - `e`: SHA-256 hex of the entity key (erasure's equality query).
 *
 * No field holds the entity key in clear but `b`: deleting the document deletes every byte of it.
 */
import { createHash } from 'node:crypto';
import { entityKeyHex } from '#core';
import { prefixUpperBound } from '../key-order.js';

/** The fields of a long-term document. */
export const FirestoreField = { Bytes: 'b', Seq: 'seq', Expiry: 'exp', ScopedKey: 'sk', SupersededBy: 'sup', Entity: 'e' } as const;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The derived document id of one record. */
export function firestoreDocumentId(entityKey: Uint8Array, agent: string, key: string): string {
  return sha256(`${entityKeyHex(entityKey)}/${agent}/${key}`);
}

/** The digest that scopes `sk` and `sup` to one (entity, agent). */
export function firestoreScopeDigest(entityKey: Uint8Array, agent: string): string {
  return sha256(`${entityKeyHex(entityKey)}/${agent}`);
}

/** The digest erasure queries by. */
export function firestoreEntityDigest(entityKey: Uint8Array): string {
  return sha256(entityKeyHex(entityKey));
}

/** `sk` of a key in a scope. */
export function firestoreScopedKey(entityKey: Uint8Array, agent: string, key: string): string {
  return `${firestoreScopeDigest(entityKey, agent)}/${key}`;
}

/** The half-open `sk` range of the keys of a scope starting with `prefix` (`/` + 1 = `0` bounds a whole scope). */
export function firestorePrefixRange(entityKey: Uint8Array, agent: string, prefix: string): { readonly start: string; readonly end: string } {
  const scope = firestoreScopeDigest(entityKey, agent);
  const upper = prefix === '' ? undefined : prefixUpperBound(prefix);
  return { start: `${scope}/${prefix}`, end: upper === undefined ? `${scope}0` : `${scope}/${upper}` };
}
