/**
 * The error a working-memory write throws when it would push the key's accounted size past the
 * hard cap.
 */
import { TerminalError } from '../errors/runtime-error.js';

/**
 * A write would make the key's working memory exceed its hard cap. The write is refused before
 * anything is staged, so memory is exactly as it was before the call. Terminal by type: a retry
 * of the activation over the same committed memory makes the same write and fails the same way.
 * An agent may catch it, delete something and write again within the same activation.
 */
export class MemoryOverflow extends TerminalError {
  override readonly name = 'MemoryOverflow';
  /** The key whose write was refused. */
  readonly key: string;
  /** The accounted size memory would have had after the write. */
  readonly attemptedBytes: number;
  /** The hard cap in force. */
  readonly capBytes: number;
  constructor(key: string, attemptedBytes: number, capBytes: number) {
    super(`working memory write to key ${JSON.stringify(key)} would grow it to ${attemptedBytes} bytes, over the ${capBytes}-byte cap`);
    this.key = key;
    this.attemptedBytes = attemptedBytes;
    this.capBytes = capBytes;
  }
}
