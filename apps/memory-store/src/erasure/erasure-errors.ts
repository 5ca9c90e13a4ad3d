/**
 * Why an erasure did not complete. Both are retryable: repeating the request is always safe
 * (erasure is idempotent and a crashed one left its entity paused).
 */

/** Some activator did not acknowledge the pause in time; the pause was lifted and nothing was deleted. */
export class ErasureTimedOut extends Error {
  override readonly name = 'ErasureTimedOut';
  readonly retryable = true;
}

/** Passes kept finding new data of the entity; it stays paused until a repeated request completes. */
export class ErasureIncomplete extends Error {
  override readonly name = 'ErasureIncomplete';
  readonly retryable = true;
}
