/**
 * How many messages the server stored while a phase ran, from the streams' last sequences
 * (KV buckets are streams too). Divided by the events, it shows whether the two systems did the
 * same broker work: each activation should store one ingest message, one inbox message, one
 * state revision and one output.
 */
import type { JetStreamManager } from '@nats-io/jetstream';

/** Last sequence of every stream on the server, by stream name. */
export async function streamLastSeqs(jsm: JetStreamManager): Promise<Map<string, number>> {
  const seqs = new Map<string, number>();
  for await (const info of jsm.streams.list()) seqs.set(info.config.name, info.state.last_seq);
  return seqs;
}

/** Messages stored per stream between two {@link streamLastSeqs} snapshots (streams with none left out). */
export function storedBetween(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): Record<string, number> {
  const stored: Record<string, number> = {};
  for (const [name, last] of after) {
    const delta = last - (before.get(name) ?? 0);
    if (delta > 0) stored[name] = delta;
  }
  return stored;
}
