/**
 * The Bigtable row layout of the long-term tier (decision 0020). Pure.
 *
 * One row per record, keyed `<entity hex>#<agent>#<key>` (UTF-8). Bigtable sorts rows by their
 * key bytes, which is the tier's key order (UTF-8 bytes), and the scope part is fixed for one
 * (entity, agent), so:
 * - a prefix search is the row range `[scope + prefix, scope + prefixUpperBound(prefix))`: no
 *   pattern is ever built, so `%`, `_`, `\`, `#` and regex metacharacters in keys are literal;
 * - an entity's rows are the row prefix `<entity hex>#` (hex has no `#`; agent names have none).
 *
 * Family `r` holds four cells: `b` (the record bytes, verbatim), `seq` and `exp` (8-byte
 * big-endian, so a value-range filter compares them as numbers) and `sup` (the replacing key).
 */
import { entityKeyHex } from '#core';
import { prefixUpperBound } from '../key-order.js';

/** The one column family. */
export const BIGTABLE_FAMILY = 'r';
/** The cell qualifiers. */
export const BigtableColumn = { Bytes: 'b', Seq: 'seq', Expiry: 'exp', SupersededBy: 'sup' } as const;

/** The row key prefix of one entity's rows (every agent). */
export function bigtableEntityPrefix(entityKey: Uint8Array): string {
  return `${entityKeyHex(entityKey)}#`;
}

/** The row key prefix of one (entity, agent) scope. */
export function bigtableScopePrefix(entityKey: Uint8Array, agent: string): string {
  return `${bigtableEntityPrefix(entityKey)}${agent}#`;
}

/** The row key of one record. */
export function bigtableRowKey(entityKey: Uint8Array, agent: string, key: string): string {
  return `${bigtableScopePrefix(entityKey, agent)}${key}`;
}

/**
 * The half-open row range of the keys of a scope starting with `prefix`. The end is the scope's
 * own upper bound (`#` + 1 = `$`) when the prefix has none (`''`, or only U+10FFFF).
 */
export function bigtablePrefixRange(entityKey: Uint8Array, agent: string, prefix: string): { readonly start: string; readonly end: string } {
  const scope = bigtableScopePrefix(entityKey, agent);
  const upper = prefix === '' ? undefined : prefixUpperBound(prefix);
  return { start: `${scope}${prefix}`, end: upper === undefined ? `${bigtableEntityPrefix(entityKey)}${agent}$` : `${scope}${upper}` };
}

/** An unsigned integer (below 2^53) as 8 big-endian bytes: byte order is numeric order. */
export function bigEndian64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}
