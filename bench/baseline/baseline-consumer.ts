/**
 * The pull consumer both baseline roles read with: durable, explicit ack, the runtime's ack wait
 * and max_ack_pending, delivery from the start, consumed with `consume()` and the same client
 * buffer (256) the runtime's services use.
 */
import { AckPolicy, DeliverPolicy, ReplayPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/** Messages buffered client-side per pull, as in ingress and the activator. */
export const CONSUME_BATCH = 256;

/** The runtime's default ack wait (ingress and activator). */
const ACK_WAIT_MS = 30_000;

/** One baseline consumer. */
export interface BaselineConsumerSpec {
  readonly stream: string;
  readonly name: string;
  /** Subject filter; `undefined` consumes the whole stream. */
  readonly filterSubject: string | undefined;
  readonly maxAckPending: number;
}

/** Creates the consumer and starts consuming it. */
export async function openBaselineConsumer(jsm: JetStreamManager, js: JetStreamClient, spec: BaselineConsumerSpec): Promise<ConsumerMessages> {
  await jsm.consumers.add(spec.stream, {
    durable_name: spec.name,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_ack_pending: spec.maxAckPending,
    max_deliver: -1,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ...(spec.filterSubject !== undefined ? { filter_subject: spec.filterSubject } : {}),
  });
  const consumer = await js.consumers.get(spec.stream, spec.name);
  return consumer.consume({ max_messages: Math.min(CONSUME_BATCH, spec.maxAckPending) });
}
