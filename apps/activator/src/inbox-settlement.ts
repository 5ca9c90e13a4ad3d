import type { JsMsg } from '@nats-io/jetstream';
import type { ProcessOutcome } from '#core';

/** What the partition worker must do after settling a message. */
export type SettlementFollowUp = 'continue' | 'stop-partition';

/**
 * The one place the activator maps outcomes to JetStream acknowledgements.
 * - applied / duplicate / noop: the element is durably reflected in state and its outbox is
 *   published, so `ack`.
 * - refused: a direct element of an agent not hosted here; its error record is stored, and the
 *   ack is what marks it done (a redelivery before the ack republishes the same record id).
 * - quarantined: the key's document cannot be trusted; the element's `state_quarantined` record
 *   (naming it, for a redrive after the repair) is stored, so `ack`: the key's backlog never holds
 *   the partition's in-flight budget.
 * - fenced: a newer owner holds the key; a stale owner acks nothing and gives the partition up.
 * - abandoned: the partition or process is stopping; leave it unacked so the next owner (which
 *   restarts from the ack floor) gets it.
 * Never `term`: terminating is an application decision recorded in state first (an error record).
 */
export function settleInboxMessage(msg: JsMsg, outcome: ProcessOutcome): SettlementFollowUp {
  switch (outcome.kind) {
    case 'applied':
    case 'duplicate':
    case 'noop':
    case 'refused':
    case 'quarantined':
      msg.ack();
      return 'continue';
    case 'fenced':
      return 'stop-partition';
    case 'abandoned':
      return 'continue';
  }
}
