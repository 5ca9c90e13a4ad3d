/**
 * Reads every message currently stored in a stream (optionally only those on one subject), in
 * stream order: what a downstream consumer would see, duplicates included if any were stored.
 * Reads by sequence through the stream API, so no consumer is involved.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/** One stored message. */
export interface StoredMessage {
  readonly subject: string;
  readonly seq: number;
  readonly data: Uint8Array;
  readonly msgId: string | undefined;
  readonly header: (name: string) => string | undefined;
}

export async function readStream(nc: NatsConnection, stream: string, subject?: string): Promise<StoredMessage[]> {
  const jsm = await jetstreamManager(nc);
  const { state } = await jsm.streams.info(stream);
  const out: StoredMessage[] = [];
  if (state.messages === 0) return out;
  const seqs = Array.from({ length: state.last_seq - state.first_seq + 1 }, (_, i) => state.first_seq + i);
  for (let i = 0; i < seqs.length; i += 200) {
    const batch = await Promise.all(
      seqs.slice(i, i + 200).map((seq) => jsm.streams.getMessage(stream, { seq }).catch(() => null)),
    );
    for (const msg of batch) {
      if (msg === null || (subject !== undefined && msg.subject !== subject)) continue;
      out.push({
        subject: msg.subject,
        seq: msg.seq,
        data: msg.data,
        msgId: msg.header?.get('Nats-Msg-Id') || undefined,
        header: (name) => (msg.header?.has(name) ? msg.header.get(name) : undefined),
      });
    }
  }
  return out;
}
