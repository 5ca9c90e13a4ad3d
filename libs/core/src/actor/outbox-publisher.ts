import type { OutboxEntryDoc } from './actor-document.js';

/**
 * Publishes committed outbox entries with `Nats-Msg-Id = entry.msgId`, resolving once every
 * entry is acknowledged by its stream. Re-publishing the same entries is safe within the
 * streams' duplicate window. Rejects (retryably) when any entry was not acknowledged.
 */
export interface OutboxPublisher {
  publish(entries: readonly OutboxEntryDoc[]): Promise<void>;
}
