/**
 * The machine-readable error codes of memory-store responses. Whether a caller retries is the
 * response's `retryable` flag, which is a function of the code ({@link isRetryableMemoryError}).
 */
export const MemoryErrorCode = {
  /** The body is not a valid request for the op (malformed JSON, a bad field, an invalid record). Fix the caller; never retried. */
  BadRequest: 'bad_request',
  /** The subject names no known op. A client/service version mismatch; never retried. */
  UnknownOp: 'unknown_op',
  /** The envelope version is not one this service speaks. Upgrade the service or client; never retried. */
  UnsupportedVersion: 'unsupported_version',
  /** The backend failed or is unreachable. Retry with backoff; a write may or may not have landed (retrying it is safe). */
  Unavailable: 'unavailable',
  /** The backend did not answer within the service's deadline. Retry; the outcome of a write is unknown (retrying it is safe). */
  DeadlineExceeded: 'deadline_exceeded',
  /** An unexpected failure inside the service (a bug). Retried like an outage; look at the service log. */
  Internal: 'internal',
} as const;
export type MemoryErrorCode = (typeof MemoryErrorCode)[keyof typeof MemoryErrorCode];

/** Whether a response with `code` may succeed when repeated. */
export function isRetryableMemoryError(code: MemoryErrorCode): boolean {
  switch (code) {
    case MemoryErrorCode.BadRequest:
    case MemoryErrorCode.UnknownOp:
    case MemoryErrorCode.UnsupportedVersion:
      return false;
    case MemoryErrorCode.Unavailable:
    case MemoryErrorCode.DeadlineExceeded:
    case MemoryErrorCode.Internal:
      return true;
  }
}
