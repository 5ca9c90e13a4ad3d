/**
 * Why a snapshot file cannot be read. Both are terminal: reading the same bytes again fails the
 * same way, so callers report them (the CLI exits non-zero) and never retry.
 */
import { TerminalError } from '../errors/runtime-error.js';

/** The bytes are not a key snapshot: not JSON, another format, a missing or mistyped field, or a digest that does not match its bytes. */
export class SnapshotFormatError extends TerminalError {
  override readonly name = 'SnapshotFormatError';
}

/** The snapshot was written by a newer binary in a format version this one does not know. */
export class SnapshotFromFuture extends TerminalError {
  override readonly name = 'SnapshotFromFuture';
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`key snapshot format version ${found} is newer than this binary's ${supported}; use a newer nats-agents`);
  }
}
