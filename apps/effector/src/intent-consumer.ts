import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, ReplayPolicy, type ConsumerConfig, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { EffectorConfigError } from './effector-errors.js';

/** The durable consumer every effector replica pulls from: replicas share it, the dedup store makes that safe. */
export const EFFECTOR_CONSUMER = 'effector';

/** How the intents consumer is configured. */
export interface IntentConsumerOptions {
  readonly stream: string;
  /** `<prefix>.intents.>`: tool intents only (approval requests are for humans). */
  readonly filterSubject: string;
  /** Redelivery deadline of an unacknowledged intent; in-flight intents are kept alive with `working()`. */
  readonly ackWaitMs: number;
  /** Unacknowledged intents across all replicas. */
  readonly maxAckPending: number;
}

/**
 * Creates the shared durable consumer, or brings an existing one's ack wait and ack-pending limit
 * to the configuration; idempotent and safe for replicas starting together. A new consumer starts
 * at the beginning of the stream (expired intents there are answered `EXPIRED`). Throws
 * {@link EffectorConfigError} if an existing consumer of that name filters other subjects.
 */
export async function ensureIntentConsumer(jsm: JetStreamManager, options: IntentConsumerOptions): Promise<ConsumerInfo> {
  const wanted: Partial<ConsumerConfig> = {
    durable_name: EFFECTOR_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(options.ackWaitMs),
    max_ack_pending: options.maxAckPending,
    max_deliver: -1,
    filter_subject: options.filterSubject,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
  };
  for (let attempt = 0; ; attempt += 1) {
    let info = await consumerInfo(jsm, options.stream);
    try {
      if (info === undefined) {
        info = await jsm.consumers.add(options.stream, wanted);
      } else if (info.config.ack_wait !== wanted.ack_wait || info.config.max_ack_pending !== wanted.max_ack_pending) {
        info = await jsm.consumers.update(options.stream, EFFECTOR_CONSUMER, { ack_wait: wanted.ack_wait, max_ack_pending: wanted.max_ack_pending });
      }
    } catch (error) {
      // Another replica created or changed it at the same moment: look again.
      if (attempt < 3) continue;
      throw error;
    }
    if (info.config.filter_subject !== options.filterSubject) {
      throw new EffectorConfigError(
        `consumer ${EFFECTOR_CONSUMER} on ${options.stream} filters ${String(info.config.filter_subject)}, expected ${options.filterSubject}; delete it to let the effector recreate it`,
      );
    }
    return info;
  }
}

async function consumerInfo(jsm: JetStreamManager, stream: string): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(stream, EFFECTOR_CONSUMER);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return undefined;
    throw error;
  }
}
