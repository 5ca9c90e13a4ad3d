/**
 * The error a working-memory operation throws when a key holds the wrong kind of value (a ring
 * read as a scalar, a scalar appended to) or bytes that do not decode as any kind.
 */
import { TerminalError, type RuntimeErrorOptions } from '../errors/runtime-error.js';

/**
 * A key holds a value of the wrong kind for the operation, or its stored bytes are corrupt.
 * Terminal by type: the same activation over the same committed memory fails the same way, so
 * retrying cannot help. The operation that throws it changes nothing (the value stays intact and
 * recency is not touched); an agent may catch it and carry on.
 */
export class MemoryKindError extends TerminalError {
  override readonly name = 'MemoryKindError';
  /** The working-memory key the operation addressed. */
  readonly key: string;
  constructor(key: string, message: string, options?: RuntimeErrorOptions) {
    super(message, options);
    this.key = key;
  }
}
