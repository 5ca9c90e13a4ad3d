import type { ErrorReason, ToolResultStatus } from '#core';

/** The dedup-store operations the effector retries in place. */
export type StoreOperation = 'claim' | 'complete' | 'release';

/**
 * What the effector reports while processing intents (metrics and logs). Called synchronously;
 * implementations MUST NOT throw and MUST NOT log arguments, payloads or secrets.
 */
export interface EffectorObserver {
  /** An intent was refused with an error record (verification or an unreadable intent). */
  refused(intentId: string, reason: ErrorReason, detail: string): void;
  /** An unsigned intent was accepted under `permissive`. */
  unsignedAccepted(intentId: string): void;
  /** A completed intent was redelivered: its stored result was republished, nothing ran. */
  deduped(intentId: string): void;
  /** The claim is held elsewhere under a live lease; the delivery waits `delayMs`. */
  inFlightWait(intentId: string, attempt: number, delayMs: number): void;
  /** A dedup-store operation failed and is retried in place after `delayMs`. */
  storeRetry(operation: StoreOperation, intentId: string, error: Error, attempt: number, delayMs: number): void;
  /** A tool finished with a verdict. */
  toolFinished(tool: string, intentId: string, status: ToolResultStatus, durationMs: number, attempts: number): void;
  /** The effector halted while a tool ran: its claim is left to expire. */
  toolHalted(tool: string, intentId: string, durationMs: number): void;
  /** A result of `status` was recorded and published. */
  resultPublished(intentId: string, status: ToolResultStatus): void;
  /** Completion was refused: the claim moved. Nothing published, nothing acked. */
  claimLost(intentId: string): void;
  /** A claim was given back before its tool started (shutdown); `released` is false when it was no longer ours. */
  claimReleased(intentId: string, released: boolean): void;
  /** A publish exhausted its attempts; the intent stays unacknowledged and is redelivered. */
  publishFailed(intentId: string, error: Error, attempts: number): void;
}
