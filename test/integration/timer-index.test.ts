// Layer 3: the activator's timer index against a private nats-server: its entry writes and deletes
// go through the pipelined publisher, and the bucket reads them exactly as KV writes (a put is a
// PUT entry with the encoded timers, a delete a DEL marker a fresh owner skips), so a partition's
// next owner loads the same index whichever client wrote it.
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimerKind, type TimerDoc, type TimerOwner } from '#core';
import { createTopology, encodeKeyToken, timerIndexKey } from '#routing';
import { provision, PubAckPipeline } from '#transport';
import { KvTimerIndex } from '../../apps/activator/src/kv-timer-index.js';
import { decodeTimerIndexEntry } from '../../apps/activator/src/timer-index-entry.js';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';

const topology = createTopology({ partitions: 4 });
const streams = { replicas: 1, duplicateWindowMs: 120_000, inboxMaxAgeMs: 3_600_000, outputMaxAgeMs: 3_600_000, auditMaxAgeMs: 0 };
const entityKey = new TextEncoder().encode('order-1');
const owner: TimerOwner = { stateKey: `refunds.${encodeKeyToken(entityKey)}`, agent: 'refunds', entityKey };
const deadline: TimerDoc = { timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: 1_800_000_000_000 };

describe('the timer index on the pipelined publisher', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let kv: KV;
  let acks: PubAckPipeline;
  let index: KvTimerIndex;
  const entryKey = () => timerIndexKey(topology.partitionOf(encodeKeyToken(entityKey)), owner.stateKey);

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const jsm = await jetstreamManager(nc);
    await provision(nc, jsm, topology, streams, {});
    kv = await new Kvm(nc).open(topology.buckets.timers, { bindOnly: true });
    acks = new PubAckPipeline(nc, { timeoutMs: 5_000, monotonicMs: () => performance.now() });
    index = new KvTimerIndex(kv, topology, jsm, acks);
  }, 30_000);
  afterAll(async () => {
    acks?.close();
    await nc?.close();
    await server?.stop();
  });

  it('indexes a suspension’s deadline before its commit as a KV entry holding the timers', async () => {
    await index.beforeCommit(owner, [deadline]);
    const entry = await kv.get(entryKey());
    expect(entry?.operation).toBe('PUT');
    expect(decodeTimerIndexEntry(owner.stateKey, entry?.value ?? new Uint8Array())).toMatchObject({ timers: [deadline] });
  }, 10_000);

  it('drops the entry after the commit that removed the timers, as a delete marker the KV reads as deleted', async () => {
    await index.afterCommit(owner, []);
    const entry = await kv.get(entryKey());
    expect(entry?.operation).toBe('DEL');
    const keys: string[] = [];
    for await (const k of await kv.keys()) keys.push(k);
    expect(keys).not.toContain(entryKey());
  }, 10_000);

  it('writes the same entry again on a redelivered commit, leaving one live entry', async () => {
    await index.beforeCommit(owner, [deadline]);
    const fresh = new KvTimerIndex(kv, topology, await jetstreamManager(nc), acks);
    await fresh.beforeCommit(owner, [deadline]);
    const history = await kv.history({ key: entryKey() });
    const ops: string[] = [];
    for await (const e of history) ops.push(e.operation);
    expect(ops.at(-1)).toBe('PUT');
    expect(decodeTimerIndexEntry(owner.stateKey, (await kv.get(entryKey()))?.value ?? new Uint8Array())).toMatchObject({ timers: [deadline] });
  }, 10_000);
});
