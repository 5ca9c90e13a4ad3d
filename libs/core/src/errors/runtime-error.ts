/** Options common to runtime errors: the cause is kept for logs and never parsed. */
export interface RuntimeErrorOptions {
  readonly cause?: unknown;
}

/**
 * Brands that survive two copies of the package: a user's agent imports `@nats-agents/sdk` from
 * its own `node_modules` while the runtime holds another copy, so `instanceof` against the
 * runtime's class would fail for the user's errors. `Symbol.for` keys are shared by every copy
 * in the process; `instanceof RetryableError` / `instanceof TerminalError` check the brand.
 */
const TERMINAL_BRAND = Symbol.for('nats-agents.error.terminal');
const RETRYABLE_BRAND = Symbol.for('nats-agents.error.retryable');

function branded(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * Base of every error whose *type* says it must not be retried: the same input would fail the
 * same way. Boundaries map it to a terminal outcome (an error record, `term`), never to `nak`.
 */
export class TerminalError extends Error {
  override readonly name: string = 'TerminalError';
  constructor(message: string, options?: RuntimeErrorOptions) {
    super(message, options);
    Object.defineProperty(this, TERMINAL_BRAND, { value: true });
  }

  /** Any copy's TerminalError (and subclass) is one; subclasses keep the ordinary prototype check. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return this === TerminalError ? branded(value, TERMINAL_BRAND) : Function.prototype[Symbol.hasInstance].call(this, value);
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
    Object.defineProperty(this, RETRYABLE_BRAND, { value: true });
  }

  /** Any copy's RetryableError (and subclass) is one; subclasses keep the ordinary prototype check. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return this === RetryableError ? branded(value, RETRYABLE_BRAND) : Function.prototype[Symbol.hasInstance].call(this, value);
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
