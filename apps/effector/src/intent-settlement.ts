import type { JsMsg } from '@nats-io/jetstream';
import type { IntentOutcome } from './intent-outcome.js';

/** What settling did. */
export type Settlement = 'acked' | 'left' | 'delayed';

/** Redelivery delay of an intent whose entity is being erased (an erasure takes seconds). */
export const PAUSED_REDELIVERY_MS = 2_000;

/**
 * The one place the effector maps outcomes to JetStream acknowledgements.
 * - published / republished / refused: the world has what it is owed (a result, or an error
 *   record), so `ack`.
 * - claim_lost: another replica owns the intent now and publishes its result; acking here could
 *   only hide a failure of that replica, so leave it — the redelivery finds `done` and republishes.
 * - unpublished: the result is recorded but not acknowledged by its stream; leave it so the
 *   redelivery republishes it.
 * - abandoned: stopping; leave it for the next delivery (any replica).
 * NEVER `term`: a valid intent must always reach a result, and a bad one is refused with an
 * error record and acked. Nothing else is `nak`ed: redelivery comes after the ack wait.
 * - paused: its entity is being erased; `nak` with a short delay, so it comes back soon after the
 *   resume if the erasure left it (an erasure that completed deleted the message).
 */
export function settleIntentMessage(msg: Pick<JsMsg, 'ack' | 'nak'>, outcome: IntentOutcome): Settlement {
  switch (outcome.kind) {
    case 'published':
    case 'republished':
    case 'refused':
      msg.ack();
      return 'acked';
    case 'claim_lost':
    case 'unpublished':
    case 'abandoned':
      return 'left';
    case 'paused':
      msg.nak(PAUSED_REDELIVERY_MS);
      return 'delayed';
  }
}
