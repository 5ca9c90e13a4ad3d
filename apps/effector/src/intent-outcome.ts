import type { ErrorReason, ToolResultStatus } from '#core';

/**
 * How processing one delivered intent ended (a closed union; `settleIntentMessage` maps it to an
 * acknowledgement). The first three are resolved — the world has what it is owed — and are acked;
 * the rest leave the message unacknowledged, so it is redelivered and resolved later. An intent
 * is NEVER terminated: a bad one is refused with an error record, then acked.
 */
export type IntentOutcome =
  /** A result of `status` was recorded (EXPIRED: not recorded) and published. `executed`: the tool ran. */
  | { readonly kind: 'published'; readonly status: ToolResultStatus; readonly executed: boolean }
  /** The intent was already done: its stored result was republished verbatim. */
  | { readonly kind: 'republished' }
  /** Refused with an error record (bad or missing signature, unreadable intent); nothing else happened. */
  | { readonly kind: 'refused'; readonly reason: ErrorReason }
  /** Completion was refused (the lease ended and another replica took over): nothing published. */
  | { readonly kind: 'claim_lost' }
  /** A publish exhausted its attempts; the recorded result is republished on redelivery. */
  | { readonly kind: 'unpublished' }
  /** The effector is stopping: waits ended, an unstarted claim was released, or a running tool was abandoned to lease expiry. */
  | { readonly kind: 'abandoned' }
  /** The intent's entity is being erased: nothing was claimed, or the recorded result was not published. */
  | { readonly kind: 'paused' };
