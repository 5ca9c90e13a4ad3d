/**
 * A stored long-term row: the record's deterministic bytes verbatim, plus the columns every
 * backend indexes (the seq guard, expiry sweeps, supersede lookups). Copying a backend is a copy
 * of these rows; the columns are always re-derivable from `bytes`. Pure.
 */
import { decodeLongTermRecord, encodeLongTermRecord, type LongTermRecord } from '#core';
import { assertRecord } from './long-term-validation.js';

/** One row as stored and as exported/imported between backends. */
export interface LongTermRow {
  readonly entityKey: Uint8Array;
  readonly agent: string;
  readonly key: string;
  /** The guard column: an upsert of this row applies iff its seq >= the stored seq. */
  readonly seq: number;
  /** Absolute expiry in epoch ms; 0 = never. Sweeps delete rows with 0 < expiresAtMs <= now. */
  readonly expiresAtMs: number;
  /** The replacing key; '' while active. */
  readonly supersededBy: string;
  /** The record's bytes (`encodeLongTermRecord`), stored and returned verbatim. */
  readonly bytes: Uint8Array;
}

/**
 * The row of a record: validates it (before any I/O) and encodes it deterministically, so the
 * same record always becomes byte-identical rows in every backend.
 *
 * @throws {LongTermArgumentError} for an invalid record.
 */
export function rowFromRecord(record: LongTermRecord): LongTermRow {
  assertRecord(record);
  return columnsOf(record, encodeLongTermRecord(record));
}

/**
 * The row of stored or received record bytes, kept verbatim (a copy between backends, a request
 * body). Validates the decoded record like {@link rowFromRecord}.
 *
 * @throws {LongTermArgumentError} when the bytes decode to an invalid record.
 * @throws {Error} when the bytes are not a record at all (protobuf decode failure).
 */
export function rowFromBytes(bytes: Uint8Array): LongTermRow {
  const record = decodeLongTermRecord(bytes);
  assertRecord(record);
  return columnsOf(record, bytes);
}

function columnsOf(record: LongTermRecord, bytes: Uint8Array): LongTermRow {
  return {
    entityKey: record.entityKey,
    agent: record.agent,
    key: record.key,
    seq: record.seq,
    expiresAtMs: record.expiresAtMs,
    supersededBy: record.supersededBy,
    bytes,
  };
}
