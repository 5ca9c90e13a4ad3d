/**
 * The baseline's ingress hop: pull-consume the ingest-like stream (events, and tool results for
 * the round trip) and republish each message to its key's inbox-like subject with a message id derived from the ingest sequence (so a
 * redelivery would be deduplicated), then ack. No validation, no envelope, no per-key queue:
 * publishes on one connection are stored in the order they are sent, which keeps each key's
 * order without one.
 */
import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { openBaselineConsumer } from './baseline-consumer.js';
import { baselineInboxSubject, BaselineNames, baselinePartitionOf } from './baseline-topology.js';

/** How the forwarder runs. */
export interface ForwarderOptions {
  /** Inbox partitions (subject layout `bench.inbox.<p>.<agent>.<key>`). */
  readonly partitions: number;
  /** max_ack_pending of the ingest consumer (the runtime's ingress default). */
  readonly maxAckPending: number;
  /** Called on the first failure; the process exits on it. */
  readonly onFatal: (error: Error) => void;
}

/** Starts forwarding; resolves with the message stream (stop it to end) once consuming. */
export async function startForwarder(jsm: JetStreamManager, js: JetStreamClient, options: ForwarderOptions): Promise<ConsumerMessages> {
  const messages = await openBaselineConsumer(jsm, js, {
    stream: BaselineNames.ingestStream,
    name: BaselineNames.forwarderConsumer,
    filterSubject: undefined,
    maxAckPending: options.maxAckPending,
  });
  void (async () => {
    for await (const msg of messages) {
      // bench.<events|results>.<agent>.<key>
      const [, lane, agent, key] = msg.subject.split('.');
      if ((lane !== 'events' && lane !== 'results') || agent === undefined || key === undefined) {
        options.onFatal(new Error(`not a baseline event or result subject: ${msg.subject}`));
        return;
      }
      const subject = baselineInboxSubject(baselinePartitionOf(key, options.partitions), agent, key, lane);
      js.publish(subject, msg.data, { msgID: `ingest:${msg.seq}` }).then(
        () => msg.ack(),
        (error: unknown) => options.onFatal(new Error(`forwarding ingest ${msg.seq} failed: ${(error as Error).message}`)),
      );
    }
  })().catch((error: unknown) => options.onFatal(error as Error));
  return messages;
}
