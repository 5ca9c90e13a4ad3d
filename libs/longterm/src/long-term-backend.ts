/**
 * The backend port behind the long-term tier: core's `LongTermStore` plus what the memory-store
 * service, the retention sweep, erasure and backend-to-backend copies need. Implementations:
 * `MemoryLongTermBackend`, `SqliteLongTermBackend`, `RedisLongTermBackend`,
 * `PostgresLongTermBackend`, `BigtableLongTermBackend`, `FirestoreLongTermBackend`, built from a
 * URI by `openLongTermBackend`; all pass the one conformance suite in
 * `test/longterm/long-term-conformance.ts` (the Google ones against their emulators).
 */
import type { LongTermRecord, LongTermScope, LongTermStore } from '#core';
import type { LongTermBackendKind } from './long-term-backend-kind.js';
import type { LongTermRow } from './long-term-row.js';
import type { UpsertVerdict } from './upsert-verdict.js';

/** The longest supersede chain `history` walks (records returned at most). */
export const MAX_HISTORY_LENGTH = 64;

/**
 * A long-term backend. Rows are keyed (entity key bytes, agent, key) and hold the record bytes
 * verbatim. Every write is the seq guard — apply iff incoming seq >= stored seq — enforced by the
 * backend's own atomic primitive (a Map turn, an SQLite transaction, a Redis Lua script, a
 * PostgreSQL `ON CONFLICT … WHERE`, a Bigtable `CheckAndMutateRow`, a Firestore precondition), so:
 *
 * - a replayed flush (same seq, byte-identical record) converges on the identical row;
 * - a delayed duplicate of seq N never regresses a row already at N+1 (refused, row untouched);
 * - a batch is validated whole before any I/O; SQL backends and Redis apply it atomically, so a
 *   crash or outage mid-call leaves either none or all of it (retrying it is always safe).
 *
 * Reads take `nowMs` (the caller's frozen clock) and never return a record expired at it, even
 * before the sweep deleted it. Superseded records are filtered from `search` unless asked for.
 * Every failure of the underlying store rejects with `LongTermUnavailable` (retryable; the
 * message names the redacted URI); invalid arguments reject with `LongTermArgumentError` first.
 */
export interface LongTermBackend extends LongTermStore {
  /** Which backend this is. */
  readonly kind: LongTermBackendKind;
  /** The redacted URI, for logs. */
  readonly target: string;
  /**
   * Seq-guarded upserts of rows whose bytes are stored verbatim, one verdict per row in order.
   * Rows for the same key in one batch apply in order.
   */
  applyRows(rows: readonly LongTermRow[]): Promise<UpsertVerdict[]>;
  /**
   * The supersede chain through `key`: the records retired in its favour (transitively, oldest
   * first), the record itself, then its replacements in order. Expired records end the walk;
   * at most {@link MAX_HISTORY_LENGTH} records; `[]` when `key` is absent or expired.
   */
  history(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord[]>;
  /** Deletes every row of `entityKey` (all agents) and returns how many; other entities are untouched. Idempotent. */
  eraseEntity(entityKey: Uint8Array): Promise<number>;
  /**
   * Deletes up to `limit` rows expired at `nowMs` (background retention) and returns how many;
   * call again while it returns `limit`. Reads already hide them, so this only reclaims space.
   */
  sweepExpired(nowMs: number, limit: number): Promise<number>;
  /**
   * Every row, in batches of at most `batchSize`, for a verbatim copy to another backend. Not a
   * snapshot: rows written during the export may or may not appear.
   */
  exportRows(batchSize?: number): AsyncIterable<readonly LongTermRow[]>;
  /** Seq-guarded import of exported rows (bytes verbatim); returns how many applied. */
  importRows(rows: readonly LongTermRow[]): Promise<number>;
  /** Releases connections and handles. Idempotent; no call may follow. */
  close(): Promise<void>;
}
