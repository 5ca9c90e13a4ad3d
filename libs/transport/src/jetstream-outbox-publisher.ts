import type { JetStreamClient } from '@nats-io/jetstream';
import { RetryableError, type OutboxEntryDoc, type OutboxPublisher } from '#core';
import { toMsgHdrs } from './message-headers.js';

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
  constructor(
    private readonly js: JetStreamClient,
    private readonly timeoutMs: number,
  ) {}

  async publish(entries: readonly OutboxEntryDoc[]): Promise<void> {
    const results = await Promise.allSettled(
      entries.map((entry) =>
        this.js.publish(entry.subject, entry.payload, {
          msgID: entry.msgId,
          headers: toMsgHdrs(entry.headers),
          timeout: this.timeoutMs,
        }),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) {
      const reason = failed.reason as Error;
      throw new PublishUnacknowledged(`outbox publish failed: ${reason.message}`, { cause: reason });
    }
  }
}
