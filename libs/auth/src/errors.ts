/**
 * Errors of `#auth`. Only configuration can throw: verifying a credential never does (it returns
 * an `AuthOutcome`). A bad configuration fails the same way on every start, so the error is
 * terminal and services exit on it with its message.
 */
import { TerminalError } from '#core';
import type { RuntimeErrorOptions } from '#core';

/** The auth configuration is unusable: a malformed key hash, a duplicate hash, an unreadable key file. */
export class AuthConfigError extends TerminalError {
  override readonly name: string = 'AuthConfigError';
  constructor(message: string, options?: RuntimeErrorOptions) {
    super(message, options);
  }
}
