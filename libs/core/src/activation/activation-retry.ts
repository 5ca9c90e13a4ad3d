import { RetryableError } from '../errors/runtime-error.js';

/**
 * An attempt failed with a retryable error (the agent threw `RetryableError`, or a provider was
 * unavailable or rate-limited after its own retries) and has attempts left. Thrown out of the pure
 * step instead of committing a failure: the runtime holds the key and runs the element again after
 * a backoff floored by the cause's `retryAfterMs`, keeping the key's order (nothing behind it runs
 * first) while other keys go on. Nothing was committed; the attempt's model answers stay in the
 * key's attempt memo, so the retry pays the provider nothing for them. On a crash the element is
 * redelivered and counts its attempts from 1 again (the count is not persisted).
 */
export class ActivationRetry extends RetryableError {
  override readonly name = 'ActivationRetry';
  constructor(
    override readonly cause: Error,
    /** The 1-based attempt that failed. */
    readonly attempt: number,
  ) {
    super(`attempt ${attempt} failed: ${cause.name}: ${cause.message}`, {
      cause,
      ...(cause instanceof RetryableError && cause.retryAfterMs !== undefined ? { retryAfterMs: cause.retryAfterMs } : {}),
    });
  }
}
