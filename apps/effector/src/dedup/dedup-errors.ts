import { RetryableError } from '#core';

/**
 * A dedup-store operation failed in a way that may or may not have written (timeout, disconnect,
 * outage, a race lost too often). Retryable by type: the effector holds the intent and retries
 * in place; claims and completions are safe to repeat (see `DedupStore`).
 */
export class DedupStoreUnavailable extends RetryableError {
  override readonly name = 'DedupStoreUnavailable';
}

/**
 * A stored claim record is not one this binary can read (a foreign writer, a newer record
 * version, corruption). Retryable by type and deliberately so: the intent is held — never
 * executed, never skipped — and logged until an operator deletes the record or rolls forward.
 */
export class ClaimRecordUnreadable extends RetryableError {
  override readonly name = 'ClaimRecordUnreadable';
  readonly intentId: string;
  constructor(intentId: string, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.intentId = intentId;
  }
}
