/**
 * The routing error hierarchy. Every routing failure is deterministic — the same key, token,
 * name or partition count fails the same way on every attempt — so the base extends
 * `TerminalError`: boundaries map it to an error record or `term`, NEVER to a retry.
 */
import { TerminalError } from '#core';
import type { RuntimeErrorOptions } from '#core';

/**
 * Base of every error raised by `#routing`: an invalid key, key token, name or partition
 * count. Terminal by type (never retried).
 */
export class RoutingError extends TerminalError {
  override readonly name: string = 'RoutingError';
  constructor(message: string, options?: RuntimeErrorOptions) {
    super(message, options);
  }
}

/**
 * A key token that is not the canonical encoding of any entity key (or an empty key that has
 * no encoding). Ingress maps it to the `key_invalid` error reason.
 */
export class KeyTokenError extends RoutingError {
  override readonly name: string = 'KeyTokenError';
  /** The offending token (as received; empty for an empty key). */
  readonly token: string;
  /** The character offset in `token` where decoding failed, or `undefined` when not positional. */
  readonly offset: number | undefined;
  constructor(message: string, details: { readonly token: string; readonly offset?: number }) {
    super(message);
    this.token = details.token;
    this.offset = details.offset;
  }
}

/**
 * A shard key that cannot be built or taken apart: a shard count that is not a positive integer,
 * an empty key, or (from `unshardKey`) a key without exactly one canonical trailing `#<digits>`.
 * Terminal: the same input fails the same way.
 */
export class ShardKeyError extends RoutingError {
  override readonly name: string = 'ShardKeyError';
}
