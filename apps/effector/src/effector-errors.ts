/**
 * The effector's error hierarchy. The type decides retry: `TerminalError`s are configuration or
 * tool outcomes that the same input reproduces (the effector refuses to start, or records an
 * `ERROR` result); `RetryableError`s are retried in place. Dedup-store errors live with the
 * store (`dedup/dedup-errors.ts`).
 */
import { RetryableError, TerminalError } from '#core';

/** The effector's configuration cannot run safely (lease not above a tool timeout, a tool name taken twice). It refuses to start. */
export class EffectorConfigError extends TerminalError {
  override readonly name = 'EffectorConfigError';
}

/** The keyring is missing, unreadable or malformed while a verifying mode needs it. The effector refuses to start. */
export { KeyringError } from '#config';

/** A tool asked for a secret reference that does not resolve. The message names the reference, never a value. */
export class SecretReferenceError extends TerminalError {
  override readonly name = 'SecretReferenceError';
}

/**
 * A tool outran its timeout. Recorded as an `ERROR` result whose message says the effect is
 * unknown: the tool may have acted before it was abandoned, so it is NEVER retried automatically.
 */
export class ToolTimedOut extends TerminalError {
  override readonly name = 'ToolTimedOut';
  readonly tool: string;
  readonly timeoutMs: number;
  constructor(tool: string, timeoutMs: number) {
    super(`tool '${tool}' timed out after ${timeoutMs} ms, effect unknown`);
    this.tool = tool;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The effector stopped (its drain window ended) while a tool was running. Not a result: the
 * claim is left to expire and another replica re-executes the intent after the lease (the
 * effect may already have happened — tools keyed on the intent id make that harmless).
 */
export class EffectorHalted extends RetryableError {
  override readonly name = 'EffectorHalted';
}

/** The built-in `http` tool got a final refusal (a 4xx other than 429). Recorded as `ERROR`. */
export class HttpToolRefused extends TerminalError {
  override readonly name = 'HttpToolRefused';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The built-in `http` tool got a 429, a 5xx or no answer. Retried with backoff up to the tool's
 * retries; the endpoint deduplicates by the `Idempotency-Key` header, so a retry after an effect
 * that did happen is harmless.
 */
export class HttpToolUnavailable extends RetryableError {
  override readonly name = 'HttpToolUnavailable';
}
