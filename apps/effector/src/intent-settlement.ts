import type { JsMsg } from '@nats-io/jetstream';
import type { IntentOutcome } from './intent-outcome.js';

/** What settling did. */
export type Settlement = 'acked' | 'left';

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
 * error record and acked. Nothing is `nak`ed either: redelivery comes after the ack wait.
 */
export function settleIntentMessage(msg: Pick<JsMsg, 'ack'>, outcome: IntentOutcome): Settlement {
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
  }
}
