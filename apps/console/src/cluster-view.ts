/**
 * The cluster view: for each partition its owner, epoch and lease expiry, the members the
 * activators announce, and consumer lag per partition and per stream. Everything is read fresh
 * from NATS on each call: the lease and membership buckets (one KV listing each), the inbox
 * stream's consumers (each partition consumer's name ends in `-e<epoch>`, its filter names the
 * partition) and every stream's info; only durable consumers count (ordered readers come and go). Nothing is cached, so a reading is never older than the
 * request; the live updates only tell the page when to ask again.
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { Topology } from '#routing';
import { listKvKeys } from '#transport';

/** One partition. */
export interface PartitionView {
  readonly partition: number;
  /** The lease holder (an activator's member id), or null when nobody holds the lease. */
  readonly owner: string | null;
  /** The holder's epoch (from its consumer's name), or null while unknown. */
  readonly epoch: number | null;
  /** When the lease lapses unless renewed (its last write plus the bucket's TTL). */
  readonly leaseExpiresAtMs: number | null;
  /** Inbox messages not yet delivered to the owner's consumer, and delivered but unacknowledged. */
  readonly pending: number | null;
  readonly ackPending: number | null;
}

/** One activator member. */
export interface MemberView {
  readonly id: string;
  readonly info: Readonly<Record<string, unknown>>;
  readonly lastHeartbeatMs: number;
  readonly partitions: number;
}

/** One stream and its consumers' lag. */
export interface StreamView {
  readonly name: string;
  readonly messages: number;
  readonly bytes: number;
  readonly consumers: readonly { readonly name: string; readonly pending: number; readonly ackPending: number }[];
}

/** The whole view. */
export interface ClusterView {
  readonly partitions: readonly PartitionView[];
  readonly members: readonly MemberView[];
  readonly streams: readonly StreamView[];
  readonly leaseTtlMs: number;
}

/** Where the view reads from. */
export interface ClusterSources {
  readonly topology: Topology;
  readonly jsm: JetStreamManager;
  readonly leases: KV;
  readonly members: KV;
}

/** Reads the view now. */
export async function readClusterView(sources: ClusterSources): Promise<ClusterView> {
  const { topology, jsm } = sources;
  const leaseStatus = await sources.leases.status();
  const leaseTtlMs = leaseStatus.ttl;
  const leases = await readBucket(jsm, topology.buckets.leases, sources.leases);
  const members = await readBucket(jsm, topology.buckets.members, sources.members);
  const partitionConsumers = new Map<number, { epoch: number; pending: number; ackPending: number; name: string }>();
  const streams: StreamView[] = [];
  for (const spec of Object.values(topology.streams)) {
    const info = await jsm.streams.info(spec.name).catch(() => null);
    if (info === null) continue;
    const consumers: { name: string; pending: number; ackPending: number }[] = [];
    for await (const consumer of jsm.consumers.list(spec.name)) {
      // durable consumers only: the services' own; ordered readers (the console's, the CLI's) come and go
      if (consumer.config.durable_name === undefined || consumer.config.durable_name === '') continue;
      consumers.push({ name: consumer.name, pending: consumer.num_pending, ackPending: consumer.num_ack_pending });
      if (spec.name !== topology.streams.inbox.name) continue;
      const partition = partitionOfFilter(topology, consumer.config.filter_subject ?? '');
      const epoch = /-e(\d+)$/.exec(consumer.name);
      if (partition === undefined || epoch?.[1] === undefined) continue;
      const known = partitionConsumers.get(partition);
      if (known === undefined || Number(epoch[1]) > known.epoch) {
        partitionConsumers.set(partition, { epoch: Number(epoch[1]), pending: consumer.num_pending, ackPending: consumer.num_ack_pending, name: consumer.name });
      }
    }
    streams.push({ name: spec.name, messages: info.state.messages, bytes: info.state.bytes, consumers: consumers.sort((a, b) => a.name.localeCompare(b.name)) });
  }
  const partitions: PartitionView[] = [];
  for (let p = 0; p < topology.partitions; p += 1) {
    const lease = leases.get(`p${String(p).padStart(4, '0')}`);
    const consumer = partitionConsumers.get(p);
    partitions.push({
      partition: p,
      owner: lease?.value ?? null,
      epoch: lease === undefined ? null : (consumer?.epoch ?? null),
      leaseExpiresAtMs: lease === undefined ? null : lease.writtenAtMs + leaseTtlMs,
      pending: consumer?.pending ?? null,
      ackPending: consumer?.ackPending ?? null,
    });
  }
  const owned = new Map<string, number>();
  for (const p of partitions) if (p.owner !== null) owned.set(p.owner, (owned.get(p.owner) ?? 0) + 1);
  return {
    leaseTtlMs,
    partitions,
    members: [...members]
      .map(([id, entry]) => ({ id, info: parseInfo(entry.value), lastHeartbeatMs: entry.writtenAtMs, partitions: owned.get(id) ?? 0 }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    streams,
  };
}

function partitionOfFilter(topology: Topology, filter: string): number | undefined {
  const match = new RegExp(`^${topology.prefix}\\.inbox\\.(\\d+)\\.>$`).exec(filter);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function parseInfo(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Every live key of a small bucket with its value (text) and the time of its last write. */
async function readBucket(jsm: JetStreamManager, bucket: string, kv: KV): Promise<Map<string, { value: string; writtenAtMs: number }>> {
  const out = new Map<string, { value: string; writtenAtMs: number }>();
  for (const key of await listKvKeys(jsm, bucket)) {
    const entry = await kv.get(key).catch(() => null);
    if (entry !== null && entry.operation === 'PUT') out.set(key, { value: entry.string(), writtenAtMs: entry.created.getTime() });
  }
  return out;
}
