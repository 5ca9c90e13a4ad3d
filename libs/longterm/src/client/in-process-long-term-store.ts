/**
 * The long-term tier without the service hop: `LongTermStore` straight over a backend in the
 * caller's process (an activator configured with a URI instead of the memory-store service).
 * Adds what the service would: a deadline per call and the one error mapping — argument errors
 * stay terminal, everything else is `LongTermUnavailable`.
 */
import { ensureError, LongTermUnavailable, type LongTermRecord, type LongTermScope, type LongTermStore, type SearchOptions } from '#core';
import { LongTermArgumentError } from '../errors.js';
import type { LongTermBackend } from '../long-term-backend.js';
import { withDeadline } from '../with-deadline.js';

/** Options of {@link InProcessLongTermStore}. */
export interface InProcessLongTermStoreOptions {
  /** How long one call may take before it fails as unavailable (default 5 000 ms). */
  readonly deadlineMs?: number;
}

/**
 * A `LongTermStore` over a backend the caller owns (and closes). On retry / replay / crash: the
 * same guarantees as the backend — seq-guarded, idempotent upserts, so retrying any failure is
 * safe; a deadline failure leaves the write's outcome unknown until the retry converges it.
 */
export class InProcessLongTermStore implements LongTermStore {
  private readonly deadlineMs: number;

  constructor(
    private readonly backend: LongTermBackend,
    options: InProcessLongTermStoreOptions = {},
  ) {
    this.deadlineMs = options.deadlineMs ?? 5_000;
  }

  load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    return this.bounded('load', () => this.backend.load(scope, key, nowMs));
  }

  search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    return this.bounded('search', () => this.backend.search(scope, prefix, nowMs, options));
  }

  upsert(records: readonly LongTermRecord[]): Promise<void> {
    return this.bounded('upsert', () => this.backend.upsert(records));
  }

  private async bounded<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(work(), this.deadlineMs, `long-term ${operation} on ${this.backend.target}`);
    } catch (thrown) {
      if (thrown instanceof LongTermArgumentError || thrown instanceof LongTermUnavailable) throw thrown;
      const error = ensureError(thrown);
      throw new LongTermUnavailable(`long-term ${operation} on ${this.backend.target} failed: ${error.message}`, { cause: error });
    }
  }
}
