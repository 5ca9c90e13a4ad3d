/**
 * Argument validation shared by every backend and the client: every rule is checked before any
 * I/O, so an invalid call never reaches a store (L12 "rejected before any IO"). Pure.
 */
import { AGENT_NAME_PATTERN, MEMORY_TYPE_PATTERN, type LongTermRecord, type LongTermScope } from '#core';
import { LongTermArgumentError } from './errors.js';

/** The longest key (UTF-8 bytes): far below every backend's index-entry limit. */
export const MAX_LONG_TERM_KEY_BYTES = 1_024;
/** The longest entity key (raw bytes), the ingress default. */
export const MAX_ENTITY_KEY_BYTES = 1_024;
/** The largest `limit` a search or sweep accepts. */
export const MAX_LONG_TERM_LIMIT = 10_000;

const utf8 = new TextEncoder();

/** Refuses an empty, oversized or NUL-containing key (NUL cannot be stored in PostgreSQL text). */
export function assertKey(key: string, what = 'key'): void {
  if (typeof key !== 'string' || key.length === 0) throw new LongTermArgumentError(`${what} must be a non-empty string`);
  if (key.includes('\u0000')) throw new LongTermArgumentError(`${what} must not contain NUL`);
  if (utf8.encode(key).byteLength > MAX_LONG_TERM_KEY_BYTES) throw new LongTermArgumentError(`${what} is longer than ${MAX_LONG_TERM_KEY_BYTES} UTF-8 bytes`);
}

/** Refuses a prefix that no key could start with (NUL, oversized); '' matches every key. */
export function assertPrefix(prefix: string): void {
  if (typeof prefix !== 'string') throw new LongTermArgumentError('prefix must be a string');
  if (prefix.length > 0) assertKey(prefix, 'prefix');
}

/** Refuses an empty or oversized entity key and an agent name outside `AGENT_NAME_PATTERN`. */
export function assertScope(scope: LongTermScope): void {
  assertEntityKey(scope.entityKey);
  if (typeof scope.agent !== 'string' || !AGENT_NAME_PATTERN.test(scope.agent)) {
    throw new LongTermArgumentError(`agent must match ${AGENT_NAME_PATTERN}, got ${JSON.stringify(scope.agent)}`);
  }
}

/** Refuses an empty or oversized entity key. */
export function assertEntityKey(entityKey: Uint8Array): void {
  if (!(entityKey instanceof Uint8Array) || entityKey.byteLength === 0) throw new LongTermArgumentError('entity key must be non-empty bytes');
  if (entityKey.byteLength > MAX_ENTITY_KEY_BYTES) throw new LongTermArgumentError(`entity key is longer than ${MAX_ENTITY_KEY_BYTES} bytes`);
}

/** Refuses a limit that is not an integer in `1..MAX_LONG_TERM_LIMIT` (searches are always bounded). */
export function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit <= 0 || limit > MAX_LONG_TERM_LIMIT) {
    throw new LongTermArgumentError(`limit must be an integer in 1..${MAX_LONG_TERM_LIMIT}, got ${limit}`);
  }
}

/** Refuses a clock reading that is not a non-negative safe integer. */
export function assertEpochMs(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new LongTermArgumentError(`${what} must be a non-negative integer of epoch ms, got ${value}`);
}

/** Refuses a record any backend would store differently or not at all. */
export function assertRecord(record: LongTermRecord): void {
  assertScope(record);
  assertKey(record.key);
  if (!Number.isSafeInteger(record.seq) || record.seq < 0) throw new LongTermArgumentError(`seq must be a non-negative integer, got ${record.seq}`);
  assertEpochMs(record.updatedAtMs, 'updatedAtMs');
  assertEpochMs(record.expiresAtMs, 'expiresAtMs');
  assertEpochMs(record.supersededAtMs, 'supersededAtMs');
  if (!MEMORY_TYPE_PATTERN.test(record.type)) throw new LongTermArgumentError(`type must match ${MEMORY_TYPE_PATTERN}, got ${JSON.stringify(record.type)}`);
  if (record.supersededBy !== '') {
    assertKey(record.supersededBy, 'supersededBy');
    if (record.supersededBy === record.key) throw new LongTermArgumentError(`record ${JSON.stringify(record.key)} cannot supersede itself`);
  }
  if (!(record.value instanceof Uint8Array)) throw new LongTermArgumentError('value must be bytes');
  if (!Number.isFinite(record.confidence) || record.confidence < 0 || record.confidence > 1) {
    throw new LongTermArgumentError(`confidence must be in [0, 1], got ${record.confidence}`);
  }
}

/** Refuses a row whose guard or index columns are invalid (rows from `rowFromRecord`/`rowFromBytes` always pass). */
export function assertRow(row: { readonly entityKey: Uint8Array; readonly agent: string; readonly key: string; readonly seq: number; readonly expiresAtMs: number; readonly supersededBy: string; readonly bytes: Uint8Array }): void {
  assertScope(row);
  assertKey(row.key);
  if (!Number.isSafeInteger(row.seq) || row.seq < 0) throw new LongTermArgumentError(`seq must be a non-negative integer, got ${row.seq}`);
  assertEpochMs(row.expiresAtMs, 'expiresAtMs');
  if (row.supersededBy !== '') assertKey(row.supersededBy, 'supersededBy');
  if (!(row.bytes instanceof Uint8Array) || row.bytes.byteLength === 0) throw new LongTermArgumentError('row bytes must be a non-empty encoded record');
}

/** The arguments of `load` and `history`: an entity scope, one key, the reader's time. */
export function assertKeyLookup(scope: LongTermScope, key: string, nowMs: number): void {
  assertScope(scope);
  assertKey(key);
  assertEpochMs(nowMs, 'nowMs');
}

/** The arguments of `search`: an entity scope, a key prefix, the reader's time, a bounded limit. */
export function assertPrefixSearch(scope: LongTermScope, prefix: string, nowMs: number, limit: number): void {
  assertScope(scope);
  assertPrefix(prefix);
  assertEpochMs(nowMs, 'nowMs');
  assertLimit(limit);
}
