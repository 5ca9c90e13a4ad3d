import type { ConsumerNotification } from '@nats-io/jetstream';

/**
 * Something the pull stream reported that delays or stops deliveries. `gone`: the consumer (or
 * its stream) no longer exists — the client keeps asking for it every pull expiry and nothing
 * arrives until its owner makes a new one.
 */
export interface ConsumerTrouble {
  readonly gone: boolean;
  /** What happened, in words for an operator's log line. */
  readonly detail: string;
}

/**
 * The trouble a consume notification reports, or `undefined` for the routine ones (pulls,
 * heartbeats, the 408 and discard of a pull that expired idle, which come every pull expiry).
 *
 * Why: the client recovers from these by itself (two missed heartbeats re-pull; a missing
 * consumer is asked for again every expiry) and says so only on the status stream, so a
 * partition that stopped receiving looked exactly like an idle one. A deleted consumer never
 * comes back by itself: its owner must make a new one.
 */
export function consumerTrouble(notification: ConsumerNotification): ConsumerTrouble | undefined {
  switch (notification.type) {
    case 'heartbeats_missed':
      return { gone: false, detail: `missed ${notification.count} idle heartbeats from the server: pulling again` };
    case 'exceeded_limits':
      return { gone: false, detail: `a pull was refused (${notification.code} ${notification.description}): waiting for missed heartbeats to pull again` };
    case 'no_responders':
      return { gone: false, detail: `JetStream did not answer a pull (${notification.code})` };
    case 'consumer_not_found':
      return { gone: true, detail: `consumer ${notification.name} of stream ${notification.stream} not found (${notification.count} times in a row)` };
    case 'consumer_deleted':
      return { gone: true, detail: `the consumer was deleted (${notification.code} ${notification.description})` };
    case 'stream_not_found':
      return { gone: true, detail: `stream ${notification.name} not found` };
    case 'next':
    case 'heartbeat':
    case 'discard':
    case 'debug':
    case 'reset':
    case 'flow_control':
    case 'ordered_consumer_recreated':
    case 'consumer_pinned':
    case 'consumer_unpinned':
      return undefined;
  }
}
