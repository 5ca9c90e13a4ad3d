/**
 * The long-term tier's own errors. Retry is decided by type, never by message: outages and
 * timeouts are `LongTermUnavailable` (from `#core`, retryable); everything here is terminal —
 * the same input fails the same way on every attempt. Messages never carry credentials: every
 * URI in them has been through `redactUri`.
 */
import { TerminalError, type RuntimeErrorOptions } from '#core';

/**
 * A long-term URI is malformed or names no supported backend. Raised at start-up (config load,
 * `openLongTermBackend`) before any client library is imported. `uri` is the redacted form.
 */
export class LongTermUriError extends TerminalError {
  override readonly name = 'LongTermUriError';
  readonly uri: string;
  constructor(uri: string, message: string, options?: RuntimeErrorOptions) {
    super(message, options);
    this.uri = uri;
  }
}

/**
 * A call was refused before any I/O: empty or oversized key, negative seq, non-positive limit, a
 * bad agent name or memory type. Terminal: repeating it cannot succeed, so a caller MUST fix the
 * input (an activation fails closed on it), never retry.
 */
export class LongTermArgumentError extends TerminalError {
  override readonly name = 'LongTermArgumentError';
}

/**
 * The memory-store service answered with a non-retryable error (a malformed request, an
 * unsupported protocol version). `code` is the service's machine-readable code.
 */
export class LongTermRequestRefused extends TerminalError {
  override readonly name = 'LongTermRequestRefused';
  readonly code: string;
  constructor(code: string, message: string, options?: RuntimeErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
