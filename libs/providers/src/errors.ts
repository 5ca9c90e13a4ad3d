/**
 * Errors raised by `#providers` itself. The retryable/terminal provider taxonomy
 * (`ProviderError`, `RateLimitError`, `ServerError`, `ProviderTimeout`, `ProviderRequestError`)
 * lives in `#core`; everything here is terminal by type: a misconfiguration or an unscripted
 * fake request fails the same way on every attempt, so boundaries NEVER retry it.
 */
import { TerminalError } from '#core';
import type { ModelRequest, RuntimeErrorOptions } from '#core';

/**
 * A model provider configuration that cannot work (a malformed base URL, a non-positive
 * timeout, an unreadable API key). Raised at construction time, before any request is sent.
 */
export class ProviderConfigError extends TerminalError {
  override readonly name: string = 'ProviderConfigError';
  constructor(message: string, options?: RuntimeErrorOptions) {
    super(message, options);
  }
}

/**
 * The configured API key could not be sourced. The message and fields name the environment
 * variable or file, NEVER the value (not even a prefix).
 */
export class ApiKeyError extends ProviderConfigError {
  override readonly name: string = 'ApiKeyError';
  /** The environment variable that was consulted, when the key was configured by env. */
  readonly envVar: string | undefined;
  /** The file that was consulted, when the key was configured by file. */
  readonly file: string | undefined;
  constructor(
    message: string,
    source: { readonly envVar?: string; readonly file?: string },
    options?: RuntimeErrorOptions,
  ) {
    super(message, options);
    this.envVar = source.envVar;
    this.file = source.file;
  }
}

/**
 * A `FakeLlm` received a request no rule matches (or has no rules at all). Terminal and
 * deliberately NOT a `ProviderError`: a test that forgot to script a call must fail loudly,
 * not be retried into a timeout.
 */
export class UnmatchedRequestError extends TerminalError {
  override readonly name: string = 'UnmatchedRequestError';
  /** The request that matched no rule, as it was received. */
  readonly request: ModelRequest;
  constructor(message: string, request: ModelRequest) {
    super(message);
    this.request = request;
  }
}
