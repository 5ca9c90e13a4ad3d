import { RetryableError } from '../errors/runtime-error.js';
import type { LongTermRecord } from './long-term-record.js';

/** Options of a prefix search. */
export interface SearchOptions {
  /** At most this many records (required: searches are always bounded). */
  readonly limit: number;
  /** Include records retired by a supersede (default false). */
  readonly includeSuperseded?: boolean;
}

/** Which rows a call addresses: one agent's rows of one entity. */
export interface LongTermScope {
  readonly entityKey: Uint8Array;
  readonly agent: string;
}

/**
 * The long-term tier as the runtime uses it (served by the memory-store service, or in process).
 * Every backend applies an upsert iff its seq >= the stored seq for (entity, agent, key), with its
 * own atomic primitive; `>=` lets a replayed activation rewrite its own identical row, `<` refuses
 * a delayed duplicate flush that would regress a newer row. Reads never return expired records.
 * Failures are retryable by type ({@link LongTermUnavailable}); nothing is half-written.
 */
export interface LongTermStore {
  /** The record under `key` (superseded ones included: filtering is the caller's), or undefined (also when expired at `nowMs`). */
  load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined>;
  /** Records whose key starts with `prefix`, ordered by key, bounded by `limit`, never expired at `nowMs`. */
  search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]>;
  /** Seq-guarded upserts; resolves once every record is durably applied or refused by its guard. */
  upsert(records: readonly LongTermRecord[]): Promise<void>;
}

/** The long-term store could not be reached or did not answer in time; retry later. */
export class LongTermUnavailable extends RetryableError {
  override readonly name = 'LongTermUnavailable';
}
