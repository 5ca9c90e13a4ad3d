import { RetryableError, TerminalError, type RuntimeErrorOptions } from '../errors/runtime-error.js';

/**
 * Retryable provider failure (a 429, a 5xx, a timeout). Providers retry these internally;
 * one that escapes has exhausted its attempts and fails the activation (`activation_error`).
 */
export class ProviderError extends RetryableError {
  override readonly name: string = 'ProviderError';
}

/** HTTP 429. `retryAfterMs` carries the server's Retry-After when it sent one. */
export class RateLimitError extends ProviderError {
  override readonly name = 'RateLimitError';
}

/** HTTP 5xx. */
export class ServerError extends ProviderError {
  override readonly name = 'ServerError';
  readonly status: number;
  constructor(status: number, message: string, options?: RuntimeErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/** The provider did not answer within its per-attempt timeout. */
export class ProviderTimeout extends ProviderError {
  override readonly name = 'ProviderTimeout';
}

/**
 * A request the provider will never accept (a non-429 4xx, an undecodable 2xx body).
 * Deliberately NOT a ProviderError: retry loops that catch ProviderError let it through at once.
 */
export class ProviderRequestError extends TerminalError {
  override readonly name = 'ProviderRequestError';
  readonly status: number | undefined;
  constructor(status: number | undefined, message: string, options?: RuntimeErrorOptions) {
    super(message, options);
    this.status = status;
  }
}
