import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { EffectorConfigSchema, type RuntimeConfig } from '#config';
import type { Topology } from '#routing';

/** Provisioning could not make the server hold the configuration the runtime needs. */
export class ProvisioningError extends Error {
  override readonly name = 'ProvisioningError';
}

/** Bytes kept free in a state document for headers and protocol overhead. */
const DOCUMENT_HEADROOM_BYTES = 64 * 1024;

/**
 * A full working memory (1 MiB) plus a full replay cache (100 KiB), a continuation and an outbox
 * of outputs fit in one state document only with a raised max_payload; the project's own
 * nats-server config sets 8 MiB.
 */
export const RECOMMENDED_MAX_PAYLOAD = 8 * 1024 * 1024;
const MINIMUM_FULL_STATE_PAYLOAD = 2 * 1024 * 1024;

/** What provisioning did, and what the connected server allows. */
export interface ProvisionReport {
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly unchanged: readonly string[];
  /** The server's max_payload. */
  readonly maxPayload: number;
  /** The largest state document the activator may write on this server. */
  readonly maxDocumentBytes: number;
  /** Human-readable warnings (e.g. max_payload too small for a full state document). */
  readonly warnings: readonly string[];
}

/** Lease and membership heartbeats expire after this long without renewal (bucket max_age). */
export const LEASE_TTL_MS = 15_000;

/** The effects bucket's TTL when a provisioner that was not told `effectsTtlMs` creates it: the default of `effector.resultTtlMs`. */
export const DEFAULT_EFFECTS_TTL_MS: number = EffectorConfigSchema.parse({}).resultTtlMs;

/** What provisioning needs beyond stream sizing. */
export interface ProvisionOptions {
  /**
   * The effects bucket's TTL (`effector.resultTtlMs`): how long a completed intent's result is
   * kept for redeliveries; a record older than this reads as never seen. The effector passes it
   * and provisioning sets and asserts it. Left out (other services, the CLI), an existing
   * bucket keeps its TTL — so services started with different settings never fight over it — and
   * a missing one is created with {@link DEFAULT_EFFECTS_TTL_MS}.
   */
  readonly effectsTtlMs?: number;
  /**
   * TTL of the lease and membership buckets (`activator.leaseTtlMs`): how long a partition stays
   * with a silent owner. Absent: existing buckets keep theirs, missing ones get {@link LEASE_TTL_MS}.
   */
  readonly leaseTtlMs?: number;
}

/** The replay journal's retention: `streams.journalMaxAgeMs`, else the inbox's. */
export function journalMaxAgeMs(streams: Pick<RuntimeConfig['streams'], 'inboxMaxAgeMs' | 'journalMaxAgeMs'>): number {
  return streams.journalMaxAgeMs ?? streams.inboxMaxAgeMs;
}

/** The largest state document the activator may write on a server with `maxPayload`. */
export function maxDocumentBytesFor(maxPayload: number): number {
  return Math.max(64 * 1024, maxPayload - DOCUMENT_HEADROOM_BYTES);
}

/**
 * Creates or updates every stream and KV bucket of the topology, idempotently: run it at every
 * service start and from the CLI, in any order, as often as you like. After each create or
 * update it asserts the configuration the *server returned*, because nats-server 2.9 silently
 * drops fields it does not know (a bucket TTL or a duplicate window that did not stick would
 * otherwise go unnoticed). The effects bucket's TTL comes from `options.effectsTtlMs` (the
 * effector's `resultTtlMs`); see {@link ProvisionOptions} for callers that leave it out.
 */
export async function provision(
  nc: NatsConnection,
  jsm: JetStreamManager,
  topology: Topology,
  streams: RuntimeConfig['streams'],
  options: ProvisionOptions = {},
): Promise<ProvisionReport> {
  const created: string[] = [];
  const updated: string[] = [];
  const unchanged: string[] = [];
  const replicas = streams.replicas;
  const common = {
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    num_replicas: replicas,
    duplicate_window: nanos(streams.duplicateWindowMs),
  } satisfies Partial<StreamConfig>;

  const wanted: StreamConfig[] = [
    { ...common, name: topology.streams.ingest.name, subjects: [...topology.streams.ingest.subjects], max_age: nanos(streams.inboxMaxAgeMs) } as StreamConfig,
    { ...common, name: topology.streams.inbox.name, subjects: [...topology.streams.inbox.subjects], max_age: nanos(streams.inboxMaxAgeMs) } as StreamConfig,
    { ...common, name: topology.streams.output.name, subjects: [...topology.streams.output.subjects], max_age: nanos(streams.outputMaxAgeMs) } as StreamConfig,
    { ...common, name: topology.streams.intents.name, subjects: [...topology.streams.intents.subjects], max_age: nanos(streams.inboxMaxAgeMs) } as StreamConfig,
    { ...common, name: topology.streams.errors.name, subjects: [...topology.streams.errors.subjects], max_age: nanos(streams.outputMaxAgeMs) } as StreamConfig,
    // Erasure audit records are the proof an erasure happened: kept until an operator says otherwise.
    { ...common, name: topology.streams.audit.name, subjects: [...topology.streams.audit.subjects], max_age: nanos(streams.auditMaxAgeMs) } as StreamConfig,
    // The replay journal ages out with the inbox by default: a replay needs both (decision 0073).
    { ...common, name: topology.streams.journal.name, subjects: [...topology.streams.journal.subjects], max_age: nanos(journalMaxAgeMs(streams)) } as StreamConfig,
  ];
  for (const config of wanted) {
    const outcome = await ensureStream(jsm, config);
    (outcome === 'created' ? created : outcome === 'updated' ? updated : unchanged).push(config.name);
  }

  const kvm = new Kvm(nc);
  // `ttlMs: undefined` keeps an existing bucket's TTL (and creates a missing one with `createTtlMs`).
  const buckets: { name: string; ttlMs: number | undefined; createTtlMs: number; history: number }[] = [
    { name: topology.buckets.state, ttlMs: 0, createTtlMs: 0, history: 1 },
    { name: topology.buckets.leases, ttlMs: options.leaseTtlMs, createTtlMs: options.leaseTtlMs ?? LEASE_TTL_MS, history: 1 },
    { name: topology.buckets.members, ttlMs: options.leaseTtlMs, createTtlMs: options.leaseTtlMs ?? LEASE_TTL_MS, history: 1 },
    { name: topology.buckets.timers, ttlMs: 0, createTtlMs: 0, history: 1 },
    { name: topology.buckets.effects, ttlMs: options.effectsTtlMs, createTtlMs: options.effectsTtlMs ?? DEFAULT_EFFECTS_TTL_MS, history: 1 },
    { name: topology.buckets.erasures, ttlMs: 0, createTtlMs: 0, history: 1 },
    // One small entry per agent with a per-agent budget (its recent windows only): no TTL needed.
    { name: topology.buckets.budgets, ttlMs: 0, createTtlMs: 0, history: 1 },
  ];
  for (const bucket of buckets) {
    const streamName = `KV_${bucket.name}`;
    const existing = await streamInfo(jsm, streamName);
    let expectedTtlMs = bucket.ttlMs;
    if (existing === undefined) {
      await kvm.create(bucket.name, { history: bucket.history, ttl: bucket.createTtlMs, replicas, storage: StorageType.File });
      created.push(bucket.name);
      expectedTtlMs = bucket.createTtlMs;
    } else if (
      (bucket.ttlMs !== undefined && nanosToMs(existing.config.max_age) !== bucket.ttlMs) ||
      existing.config.num_replicas !== replicas ||
      existing.config.max_msgs_per_subject !== bucket.history
    ) {
      const maxAge = bucket.ttlMs === undefined ? existing.config.max_age : nanos(bucket.ttlMs);
      // The server refuses a duplicate window longer than max_age (a short TTL on a bucket created with a long one).
      const duplicateWindow = maxAge > 0 && existing.config.duplicate_window > maxAge ? maxAge : existing.config.duplicate_window;
      await jsm.streams.update(streamName, {
        ...existing.config,
        max_age: maxAge,
        duplicate_window: duplicateWindow,
        num_replicas: replicas,
        max_msgs_per_subject: bucket.history,
      });
      updated.push(bucket.name);
    } else {
      unchanged.push(bucket.name);
    }
    const info = await jsm.streams.info(streamName);
    if (expectedTtlMs !== undefined) assertField(streamName, 'max_age (ttl)', nanosToMs(info.config.max_age), expectedTtlMs);
    assertField(streamName, 'max_msgs_per_subject (history)', info.config.max_msgs_per_subject, bucket.history);
    assertField(streamName, 'num_replicas', info.config.num_replicas, replicas);
  }

  const maxPayload = nc.info?.max_payload ?? 1024 * 1024;
  const warnings: string[] = [];
  if (maxPayload < MINIMUM_FULL_STATE_PAYLOAD) {
    warnings.push(
      `the NATS server's max_payload is ${maxPayload} bytes: a key's full working memory (1 MiB) plus replay cache (100 KiB) does not fit in one ` +
        `state document, so activations whose state grows past ${maxDocumentBytesFor(maxPayload)} bytes will fail with StateTooLarge. ` +
        `Set max_payload to ${RECOMMENDED_MAX_PAYLOAD} in the server config (deploy/nats-server.conf.template does).`,
    );
  }
  return { created, updated, unchanged, maxPayload, maxDocumentBytes: maxDocumentBytesFor(maxPayload), warnings };
}

async function ensureStream(jsm: JetStreamManager, wanted: StreamConfig): Promise<'created' | 'updated' | 'unchanged'> {
  const existing = await streamInfo(jsm, wanted.name);
  let outcome: 'created' | 'updated' | 'unchanged';
  if (existing === undefined) {
    await jsm.streams.add(wanted);
    outcome = 'created';
  } else if (differs(existing.config, wanted)) {
    await jsm.streams.update(wanted.name, { ...existing.config, ...wanted });
    outcome = 'updated';
  } else {
    outcome = 'unchanged';
  }
  const info = await jsm.streams.info(wanted.name);
  assertField(wanted.name, 'subjects', [...info.config.subjects].sort().join(','), [...wanted.subjects].sort().join(','));
  assertField(wanted.name, 'duplicate_window', info.config.duplicate_window, wanted.duplicate_window);
  assertField(wanted.name, 'max_age', info.config.max_age, wanted.max_age);
  assertField(wanted.name, 'num_replicas', info.config.num_replicas, wanted.num_replicas);
  assertField(wanted.name, 'retention', info.config.retention, wanted.retention);
  return outcome;
}

function differs(current: StreamConfig, wanted: StreamConfig): boolean {
  return (
    [...current.subjects].sort().join(',') !== [...wanted.subjects].sort().join(',') ||
    current.duplicate_window !== wanted.duplicate_window ||
    current.max_age !== wanted.max_age ||
    current.num_replicas !== wanted.num_replicas
  );
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw error;
  }
}

function assertField(stream: string, field: string, actual: unknown, expected: unknown): void {
  if (actual !== expected) {
    throw new ProvisioningError(`${stream}: the server holds ${field} = ${String(actual)}, expected ${String(expected)} (is the server older than the feature?)`);
  }
}

function nanosToMs(value: number): number {
  return Math.round(value / 1_000_000);
}
