/**
 * Names and provisioning of the bare-JetStream baseline: an ingest-like stream, an inbox-like
 * stream (optionally split into partitions by subject), an output stream and a KV bucket for
 * per-key state, created with the same stream settings the runtime provisions (file storage,
 * limits retention, the same duplicate window and max age) so the server does the same work per
 * message. Only `@nats-io/*` is used: nothing of the runtime is involved.
 */
import fnv1a from '@sindresorhus/fnv1a';
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/transport-node';

/** Subject prefix of every baseline subject. */
export const BASELINE_PREFIX = 'bench';

/** Stream and bucket names of the baseline. */
export const BaselineNames = {
  ingestStream: 'BENCH_INGEST',
  inboxStream: 'BENCH_INBOX',
  outputStream: 'BENCH_OUTPUT',
  stateBucket: 'BENCH_STATE',
  forwarderConsumer: 'bench-forwarder',
  workerConsumer: (partition: number) => `bench-worker-p${partition}`,
} as const;

/** `bench.events.<agent>.<key>`: where the load generator publishes. */
export function baselineEventSubject(agent: string, key: string): string {
  return `${BASELINE_PREFIX}.events.${agent}.${key}`;
}

/** `bench.inbox.<partition>.<agent>.<key>`: where the forwarder republishes. */
export function baselineInboxSubject(partition: number, agent: string, key: string): string {
  return `${BASELINE_PREFIX}.inbox.${partition}.${agent}.${key}`;
}

/** The filter of one inbox partition's consumer; `undefined` (the whole stream) when there is one partition. */
export function baselineInboxFilter(partition: number, partitions: number): string | undefined {
  return partitions === 1 ? undefined : `${BASELINE_PREFIX}.inbox.${partition}.>`;
}

/** `bench.output.<agent>.<key>`: where the worker publishes outputs. */
export function baselineOutputSubject(agent: string, key: string): string {
  return `${BASELINE_PREFIX}.output.${agent}.${key}`;
}

/** `<agent>.<key>`: the KV key of a key's state in {@link BaselineNames.stateBucket}. */
export function baselineStateKey(agent: string, key: string): string {
  return `${agent}.${key}`;
}

/** The key's partition: FNV-1a 32 of the key mod P (the runtime's function, without its validation). */
export function baselinePartitionOf(key: string, partitions: number): number {
  return partitions === 1 ? 0 : Number(fnv1a(key, { size: 32 }) % BigInt(partitions));
}

/** Stream settings copied from the runtime's provisioning. */
export interface BaselineStreamSettings {
  readonly duplicateWindowMs: number;
  readonly maxAgeMs: number;
}

/** Creates the baseline's streams and KV bucket on a fresh server. */
export async function provisionBaseline(nc: NatsConnection, jsm: JetStreamManager, settings: BaselineStreamSettings): Promise<void> {
  const common = {
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    num_replicas: 1,
    duplicate_window: nanos(settings.duplicateWindowMs),
    max_age: nanos(settings.maxAgeMs),
  } satisfies Partial<StreamConfig>;
  await jsm.streams.add({ ...common, name: BaselineNames.ingestStream, subjects: [`${BASELINE_PREFIX}.events.>`] });
  await jsm.streams.add({ ...common, name: BaselineNames.inboxStream, subjects: [`${BASELINE_PREFIX}.inbox.>`] });
  await jsm.streams.add({ ...common, name: BaselineNames.outputStream, subjects: [`${BASELINE_PREFIX}.output.>`] });
  await new Kvm(nc).create(BaselineNames.stateBucket, { history: 1, storage: StorageType.File, replicas: 1 });
}
