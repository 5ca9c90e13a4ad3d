import { v1 } from '#proto';

/** The record schema version this binary writes. */
export const CURRENT_RECORD_SCHEMA_VERSION = 1;

/**
 * One long-term memory row: scoped to (entity key, agent, key), written by a seq-guarded upsert,
 * stored as the same deterministic bytes by every backend.
 */
export interface LongTermRecord {
  readonly entityKey: Uint8Array;
  readonly agent: string;
  readonly key: string;
  readonly value: Uint8Array;
  /** The writing activation's seq: the upsert applies iff seq >= the stored seq. */
  readonly seq: number;
  /** The writing activation's event time (never a wall clock). */
  readonly updatedAtMs: number;
  /** The memory type (retention is per type). */
  readonly type: string;
  /** Absolute expiry in epoch ms; 0 = never. */
  readonly expiresAtMs: number;
  /** The key that replaced this record; empty = active. */
  readonly supersededBy: string;
  readonly supersededAtMs: number;
  /** Extractor confidence in [0, 1], 0 when unknown. */
  readonly confidence: number;
}

/** Deterministic bytes of a record (what backends store). Seq must be a non-negative integer. */
export function encodeLongTermRecord(record: LongTermRecord): Uint8Array {
  if (!Number.isInteger(record.seq) || record.seq < 0) throw new RangeError(`long-term seq must be a non-negative integer, got ${record.seq}`);
  return v1.LongTermRecord.encode({
    recordSchemaVersion: CURRENT_RECORD_SCHEMA_VERSION,
    entityKey: record.entityKey,
    agent: record.agent,
    key: record.key,
    value: record.value,
    seq: record.seq,
    updatedAtMs: record.updatedAtMs,
    type: record.type,
    expiresAtMs: record.expiresAtMs,
    supersededBy: record.supersededBy,
    supersededAtMs: record.supersededAtMs,
    confidence: record.confidence,
  }).finish();
}

/** Decodes stored record bytes. */
export function decodeLongTermRecord(bytes: Uint8Array): LongTermRecord {
  const m = v1.LongTermRecord.decode(bytes);
  return {
    entityKey: m.entityKey ?? new Uint8Array(0),
    agent: m.agent,
    key: m.key,
    value: m.value ?? new Uint8Array(0),
    seq: m.seq,
    updatedAtMs: m.updatedAtMs,
    type: m.type,
    expiresAtMs: m.expiresAtMs,
    supersededBy: m.supersededBy,
    supersededAtMs: m.supersededAtMs,
    confidence: m.confidence,
  };
}

/** True when `record` must not be returned at `nowMs` (expired, even if not yet deleted). */
export function isExpired(record: Pick<LongTermRecord, 'expiresAtMs'>, nowMs: number): boolean {
  return record.expiresAtMs > 0 && record.expiresAtMs <= nowMs;
}
