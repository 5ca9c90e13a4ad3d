import type { JetStreamManager } from '@nats-io/jetstream';
import type { Topology } from '#routing';
import type { ConsumerLagSample } from '#telemetry';

/**
 * The lag of the partition consumers this activator owns, from one consumer listing of the inbox
 * stream (one paged listing however many partitions): a consumer counts when its filter is an owned
 * partition's and its name carries that partition's current epoch.
 */
export async function samplePartitionLag(jsm: JetStreamManager, topology: Topology, owned: ReadonlyMap<number, number>): Promise<ConsumerLagSample[]> {
  if (owned.size === 0) return [];
  const stream = topology.streams.inbox.name;
  const byFilter = new Map([...owned].map(([partition, epoch]) => [topology.inboxPartitionFilter(partition), { partition, epoch }]));
  const samples: ConsumerLagSample[] = [];
  for await (const info of jsm.consumers.list(stream)) {
    const match = byFilter.get(info.config.filter_subject ?? '');
    if (match === undefined || !info.name.endsWith(`-e${match.epoch}`)) continue;
    samples.push({ stream, consumer: info.name, partition: match.partition, pending: info.num_pending, ackPending: info.num_ack_pending });
  }
  return samples;
}
