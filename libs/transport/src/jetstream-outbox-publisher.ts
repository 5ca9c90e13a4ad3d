import { HeaderName, RetryableError, type OutboxEntryDoc, type OutboxPublisher } from '#core';
import { toMsgHdrs } from './message-headers.js';
import type { PubAckPipeline } from './pub-ack-pipeline.js';

/** A publish was not acknowledged by its stream; it may or may not be stored. */
export class PublishUnacknowledged extends RetryableError {
  override readonly name = 'PublishUnacknowledged';
}

/**
 * Publishes outbox entries with `Nats-Msg-Id` = the entry's derived id, all in flight at once,
 * resolving when every stream acknowledged. A republish inside the stream's duplicate window is
 * acknowledged as a duplicate and stores nothing, so retries and crash recovery are safe.
 */
export class JetStreamOutboxPublisher implements OutboxPublisher {
  constructor(private readonly acks: PubAckPipeline) {}

  async publish(entries: readonly OutboxEntryDoc[]): Promise<void> {
    // One entry (an output, an intent, a record) is by far the common case: no array of promises.
    if (entries.length === 1) {
      try {
        await this.send(entries[0] as OutboxEntryDoc);
      } catch (error) {
        throw new PublishUnacknowledged(`outbox publish failed: ${(error as Error).message}`, { cause: error });
      }
      return;
    }
    const results = await Promise.allSettled(entries.map((entry) => this.send(entry)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) {
      const reason = failed.reason as Error;
      throw new PublishUnacknowledged(`outbox publish failed: ${reason.message}`, { cause: reason });
    }
  }

  private send(entry: OutboxEntryDoc): Promise<unknown> {
    const headers = toMsgHdrs(entry.headers);
    headers.set(HeaderName.MsgId, entry.msgId);
    return this.acks.publish(entry.subject, entry.payload, headers);
  }
}

