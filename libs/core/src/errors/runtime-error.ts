/** Options common to runtime errors: the cause is kept for logs and never parsed. */
export interface RuntimeErrorOptions {
  readonly cause?: unknown;
}

/**
 * Base of every error whose *type* says it must not be retried: the same input would fail the
 * same way. Boundaries map it to a terminal outcome (an error record, `term`), never to `nak`.
 */
export class TerminalError extends Error {
  override readonly name: string = 'TerminalError';
  constructor(message: string, options?: RuntimeErrorOptions) {
    super(message, options);
  }
}

/**
 * Base of every error a later attempt may not meet (an outage, a timeout, a conflict). Boundaries
 * retry it with backoff; `retryAfterMs` floors the delay when the remote said so.
 */
export class RetryableError extends Error {
  override readonly name: string = 'RetryableError';
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options?: RuntimeErrorOptions & { readonly retryAfterMs?: number }) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** Normalises anything thrown into an Error, keeping the original as `cause`. */
export function ensureError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new Error(typeof thrown === 'string' ? thrown : `non-error thrown: ${safeString(thrown)}`, { cause: thrown });
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
