/**
 * Reads what a stream holds on a filter, in stream order, through an ordered consumer (a
 * read-only, server-side-ephemeral consumer: nothing is acknowledged, nothing left behind).
 * Keeps only the newest `limit` messages, so a view stays bounded however long the stream is.
 */
import { DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import { fromMsgHdrs } from '#transport';

/** One stored message. */
export interface StoredMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: readonly { readonly name: string; readonly value: string }[];
  /** When the stream stored it (epoch ms). */
  readonly storedAtMs: number;
}

/** What to read. */
export interface StoredMessagesQuery {
  readonly stream: string;
  readonly filter: string;
  /** Keep the newest this many. */
  readonly limit: number;
  /** Only messages stored at or after this time (epoch ms). */
  readonly sinceMs?: number;
}

/** The newest `limit` messages of `stream` on `filter`, oldest first. */
export async function storedMessages(js: JetStreamClient, query: StoredMessagesQuery): Promise<StoredMessage[]> {
  const consumer = await js.consumers.get(query.stream, {
    filter_subjects: query.filter,
    ...(query.sinceMs === undefined ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(query.sinceMs).toISOString() }),
  });
  const { num_pending: pending } = await consumer.info();
  const out: StoredMessage[] = [];
  if (pending === 0) return out;
  const messages = await consumer.consume();
  try {
    for await (const msg of messages) {
      out.push({ seq: msg.seq, subject: msg.subject, data: msg.data, headers: fromMsgHdrs(msg.headers), storedAtMs: Math.floor(msg.info.timestampNanos / 1_000_000) });
      if (out.length > query.limit) out.shift();
      if (msg.info.pending === 0) break;
    }
  } finally {
    await messages.close();
  }
  return out;
}
