import type { LongTermRecord } from './long-term-record.js';

/** Options of a save. */
export interface SaveOptions {
  /** The memory type (retention is per type). Default `fact`. */
  readonly type?: string;
  /** Overrides the type's retention for this record, in ms from the activation's event time. */
  readonly ttlMs?: number;
  /** Extractor confidence in [0, 1] (reconciliation keeps the higher of two duplicates). */
  readonly confidence?: number;
}

/** A long-term record as an agent reads it. */
export interface LongTermEntry {
  readonly key: string;
  readonly value: Uint8Array;
  /** The value decoded as UTF-8. */
  readonly text: string;
  readonly type: string;
  readonly seq: number;
  readonly updatedAtMs: number;
  readonly expiresAtMs: number;
  readonly supersededBy: string;
  readonly confidence: number;
}

/**
 * The long-term tier as an agent sees it (`ctx.memory.longterm`): durable per (entity, agent),
 * across activations and working-memory expiry. Writes (`save`, `supersede`, `restore`) are
 * staged — no I/O — and flushed after the agent returns, before the activation commits, as
 * seq-guarded upserts; a failed activation flushes nothing, a failed flush fails it closed. Reads
 * see this activation's own staged writes first.
 *
 * Replay rule (seed 000): a long-term write MUST be computed from replay-stable inputs (the event,
 * working memory, replay-cached model output) and MUST NOT depend on a same-activation long-term
 * read of the same key — a retry can observe its own discarded attempt's flush.
 */
export interface LongTermApi {
  /** The record under `key`, staged writes first; undefined when absent, expired or superseded (unless asked). */
  load(key: string, options?: { readonly includeSuperseded?: boolean }): Promise<LongTermEntry | undefined>;
  /** Records with keys starting with `prefix`, ordered by key, at most `limit`, staged writes merged in. */
  search(prefix: string, options: { readonly limit: number; readonly includeSuperseded?: boolean }): Promise<LongTermEntry[]>;
  /** Stages an upsert of `key` (the last staged value per key wins). */
  save(key: string, value: Uint8Array | string, options?: SaveOptions): void;
  /**
   * Retires the record under `key` in favour of `byKey` (kept, marked `supersededBy`, filtered from
   * reads by default). Reversible with {@link LongTermApi.restore}.
   */
  supersede(key: string, byKey: string): Promise<void>;
  /** Undoes a supersede: the record under `key` is active again. */
  restore(key: string): Promise<void>;
}

/** The agent's view of a stored record. */
export function toEntry(record: LongTermRecord): LongTermEntry {
  return {
    key: record.key,
    value: record.value,
    text: new TextDecoder().decode(record.value),
    type: record.type,
    seq: record.seq,
    updatedAtMs: record.updatedAtMs,
    expiresAtMs: record.expiresAtMs,
    supersededBy: record.supersededBy,
    confidence: record.confidence,
  };
}
