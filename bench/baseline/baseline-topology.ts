/**
 * Names and provisioning of the bare-JetStream baseline: an ingest-like stream (events and tool
 * results), an inbox-like stream (optionally split into partitions by subject), an output stream,
 * an intents stream, a journal stream (the model answers, as the runtime's replay journal), a KV bucket for per-key state and one for the effector's claims, created with the same stream settings the runtime provisions (file storage,
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
  intentsStream: 'BENCH_INTENTS',
  journalStream: 'BENCH_JOURNAL',
  stateBucket: 'BENCH_STATE',
  effectsBucket: 'BENCH_EFFECTS',
  forwarderConsumer: 'bench-forwarder',
  effectorConsumer: 'bench-effector',
  workerConsumer: (partition: number) => `bench-worker-p${partition}`,
} as const;

/** What enters the ingest stream: events from the load generator, tool results from the effector. */
export type BaselineLane = 'events' | 'results';

/** `bench.events.<agent>.<key>`: where the load generator publishes. */
export function baselineEventSubject(agent: string, key: string): string {
  return `${BASELINE_PREFIX}.events.${agent}.${key}`;
}

/** `bench.results.<agent>.<key>`: where the baseline effector publishes a tool result. */
export function baselineResultSubject(agent: string, key: string): string {
  return `${BASELINE_PREFIX}.results.${agent}.${key}`;
}

/** `bench.intents.<agent>.<tool>`: where the worker publishes a tool intent. */
export function baselineIntentSubject(agent: string, tool: string): string {
  return `${BASELINE_PREFIX}.intents.${agent}.${tool}`;
}

/** `bench.inbox.<partition>.<agent>.<key>.<lane>`: where the forwarder republishes. */
export function baselineInboxSubject(partition: number, agent: string, key: string, lane: BaselineLane): string {
  return `${BASELINE_PREFIX}.inbox.${partition}.${agent}.${key}.${lane}`;
}

/** The filter of one inbox partition's consumer; `undefined` (the whole stream) when there is one partition. */
export function baselineInboxFilter(partition: number, partitions: number): string | undefined {
  return partitions === 1 ? undefined : `${BASELINE_PREFIX}.inbox.${partition}.>`;
}

/** `bench.output.<agent>.<key>`: where the worker publishes outputs. */
export function baselineOutputSubject(agent: string, key: string): string {
  return `${BASELINE_PREFIX}.output.${agent}.${key}`;
}

/** `bench.journal.<agent>.<key>`: where the worker records a model agent's answer (the runtime's replay journal). */
export function baselineJournalSubject(agent: string, key: string): string {
  return `${BASELINE_PREFIX}.journal.${agent}.${key}`;
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
  /** TTL of the effects bucket (the runtime's `effector.resultTtlMs`). */
  readonly effectsTtlMs: number;
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
  await jsm.streams.add({ ...common, name: BaselineNames.ingestStream, subjects: [`${BASELINE_PREFIX}.events.>`, `${BASELINE_PREFIX}.results.>`] });
  await jsm.streams.add({ ...common, name: BaselineNames.inboxStream, subjects: [`${BASELINE_PREFIX}.inbox.>`] });
  await jsm.streams.add({ ...common, name: BaselineNames.outputStream, subjects: [`${BASELINE_PREFIX}.output.>`] });
  await jsm.streams.add({ ...common, name: BaselineNames.intentsStream, subjects: [`${BASELINE_PREFIX}.intents.>`] });
  await jsm.streams.add({ ...common, name: BaselineNames.journalStream, subjects: [`${BASELINE_PREFIX}.journal.>`] });
  await new Kvm(nc).create(BaselineNames.stateBucket, { history: 1, storage: StorageType.File, replicas: 1 });
  await new Kvm(nc).create(BaselineNames.effectsBucket, { history: 1, storage: StorageType.File, replicas: 1, ttl: settings.effectsTtlMs });
}
