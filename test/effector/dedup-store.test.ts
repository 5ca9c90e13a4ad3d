// Layer 3: the dedup store contract (K29) against a real nats-server 2.9 — the KV adapter's
// compare-and-set claims, takeovers and completions — and against the in-memory store the unit
// specs use, through one shared suite. Plus what only KV has: the bucket TTL comes from
// effector.resultTtlMs, and a record nobody can read holds the intent.
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopology } from '#routing';
import { provision, PubAckPipeline } from '#transport';
import { ClaimRecordUnreadable } from '../../apps/effector/src/dedup/dedup-errors.js';
import { InMemoryDedupStore } from '../../apps/effector/src/dedup/in-memory-dedup-store.js';
import { KvDedupStore } from '../../apps/effector/src/dedup/kv-dedup-store.js';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';
import { dedupStoreConformance } from './dedup-conformance.js';

const topology = createTopology({ partitions: 4 });
const streams = { replicas: 1, duplicateWindowMs: 120_000, inboxMaxAgeMs: 3_600_000, outputMaxAgeMs: 3_600_000, auditMaxAgeMs: 0 };
let server: NatsServerHandle;
let nc: NatsConnection;
let kv: KV;
let acks: PubAckPipeline;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  await provision(nc, await jetstreamManager(nc), topology, streams, { effectsTtlMs: 3_600_000 });
  kv = await new Kvm(nc).open(topology.buckets.effects, { bindOnly: true });
  acks = new PubAckPipeline(nc, { timeoutMs: 5_000, monotonicMs: () => performance.now() });
});

afterAll(async () => {
  acks?.close();
  await nc?.close();
  await server?.stop();
});

dedupStoreConformance('KvDedupStore (nats-server)', () => ({ open: (nowMs) => new KvDedupStore(kv, acks, topology.buckets.effects, nowMs) }));

dedupStoreConformance('InMemoryDedupStore', () => {
  let shared: InMemoryDedupStore | undefined;
  return { open: (nowMs) => (shared ??= new InMemoryDedupStore(nowMs)) };
});

describe('KvDedupStore on JetStream', () => {
  it('holds an intent whose record it cannot read instead of claiming it', async () => {
    await kv.put('unreadable-intent', new TextEncoder().encode('C:legacy-token'));
    const store = new KvDedupStore(kv, acks, topology.buckets.effects, () => Date.now());
    await expect(store.claim('unreadable-intent', { token: 't', leaseMs: 1_000 })).rejects.toBeInstanceOf(ClaimRecordUnreadable);
  });

  it('completes a claim nobody touched with one write and no read, and falls back to reading when the record moved on', async () => {
    const reads: string[] = [];
    const spy = nc.subscribe('$JS.API.>', { callback: (_e, m) => { if (/MSG\.GET|DIRECT\.GET/.test(m.subject)) reads.push(m.subject); } });
    await nc.flush();
    const store = new KvDedupStore(kv, acks, topology.buckets.effects, () => Date.now());
    const claimed = await store.claim('complete-direct', { token: 'mine', leaseMs: 60_000 });
    if (claimed.kind !== 'claimed') throw new Error(`expected a claim, got ${claimed.kind}`);
    expect(await store.complete('complete-direct', claimed.claim, new Uint8Array([1]), 60_000)).toBe(true);
    await nc.flush();
    expect(reads).toEqual([]);
    // A repeat with the same bytes meets a moved-on revision: it reads, and reads it as already done.
    expect(await store.complete('complete-direct', claimed.claim, new Uint8Array([1]), 60_000)).toBe(true);
    await nc.flush();
    expect(reads.length).toBeGreaterThan(0);
    expect(await store.claim('complete-direct', { token: 'other', leaseMs: 60_000 })).toEqual({ kind: 'done', result: new Uint8Array([1]) });
    spy.unsubscribe();
  });

  it('claims again after a release left a delete marker', async () => {
    const store = new KvDedupStore(kv, acks, topology.buckets.effects, () => Date.now());
    const first = await store.claim('released-intent', { token: 't1', leaseMs: 60_000 });
    if (first.kind !== 'claimed') throw new Error('expected a claim');
    expect(await store.release('released-intent', first.claim)).toBe(true);
    expect((await kv.get('released-intent'))?.operation).toBe('DEL');
    expect(await store.claim('released-intent', { token: 't2', leaseMs: 60_000 })).toMatchObject({ kind: 'claimed', claim: { token: 't2' } });
  });
});

describe('provisioning of the effects bucket', () => {
  const ttlOf = async (): Promise<number> => {
    const info = await (await jetstreamManager(nc)).streams.info(`KV_${topology.buckets.effects}`);
    return Math.round(info.config.max_age / 1_000_000);
  };

  it('sets and asserts the TTL the effector passes (effector.resultTtlMs)', async () => {
    expect(await ttlOf()).toBe(3_600_000);
    const report = await provision(nc, await jetstreamManager(nc), topology, streams, { effectsTtlMs: 7_200_000 });
    expect(report.updated).toEqual([topology.buckets.effects]);
    expect(await ttlOf()).toBe(7_200_000);
  });

  it('keeps the TTL when a service that does not know it provisions', async () => {
    const report = await provision(nc, await jetstreamManager(nc), topology, streams);
    expect(report.updated).toEqual([]);
    expect(await ttlOf()).toBe(7_200_000);
  });

  it('lowers the TTL below the bucket duplicate window by lowering the window too', async () => {
    await provision(nc, await jetstreamManager(nc), topology, streams, { effectsTtlMs: 30_000 });
    expect(await ttlOf()).toBe(30_000);
  });
});
