// Layer 3: the activator's timer index against a private nats-server: its entry writes and deletes
// go through the pipelined publisher, and the bucket reads them exactly as KV writes (a put is a
// PUT entry with the encoded timers, a delete a DEL marker a fresh owner skips), so a partition's
// next owner loads the same index whichever client wrote it. An entry is a lower bound (decision
// 0068): a key that suspends again keeps it, and a key left without timers loses it after a delay,
// never over an entry another owner wrote since.
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimerKind, type TimerDoc, type TimerOwner } from '#core';
import { createTopology, encodeKeyToken, timerIndexKey } from '#routing';
import { provision, PubAckPipeline } from '#transport';
import { KvTimerIndex } from '../../apps/activator/src/kv-timer-index.js';
import { TimerScheduler } from '../../apps/activator/src/timer-scheduler.js';
import { decodeTimerIndexEntry } from '../../apps/activator/src/timer-index-entry.js';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';

const topology = createTopology({ partitions: 4 });
const streams = { replicas: 1, duplicateWindowMs: 120_000, inboxMaxAgeMs: 3_600_000, outputMaxAgeMs: 3_600_000, auditMaxAgeMs: 0 };
const DELETE_DELAY_MS = 300;
const ownerOf = (key: string): TimerOwner => {
  const entityKey = new TextEncoder().encode(key);
  return { stateKey: `refunds.${encodeKeyToken(entityKey)}`, agent: 'refunds', entityKey };
};
const deadline = (id: string, dueAtMs: number): TimerDoc => ({ timerId: id, kind: TimerKind.Deadline, dueAtMs });
const DUE = 1_800_000_000_000;

describe('the timer index on the pipelined publisher', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let kv: KV;
  let acks: PubAckPipeline;
  const indexes: KvTimerIndex[] = [];
  const entryKey = (owner: TimerOwner) => timerIndexKey(topology.partitionOf(encodeKeyToken(owner.entityKey)), owner.stateKey);
  const newIndex = async (): Promise<KvTimerIndex> => {
    const index = new KvTimerIndex(kv, topology, await jetstreamManager(nc), acks, { nowMs: () => Date.now(), deleteDelayMs: DELETE_DELAY_MS });
    indexes.push(index);
    return index;
  };
  // The bucket keeps one revision per key, so writes show as the entry's revision moving on.
  const revision = async (owner: TimerOwner): Promise<number | undefined> => (await kv.get(entryKey(owner)))?.revision;
  const waitFor = async (done: () => Promise<boolean>, what: string): Promise<void> => {
    const deadlineMs = Date.now() + 5_000;
    while (!(await done())) {
      if (Date.now() > deadlineMs) throw new Error(`${what} did not happen within 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const jsm = await jetstreamManager(nc);
    await provision(nc, jsm, topology, streams, {});
    kv = await new Kvm(nc).open(topology.buckets.timers, { bindOnly: true });
    acks = new PubAckPipeline(nc, { timeoutMs: 5_000, monotonicMs: () => performance.now() });
  }, 30_000);
  afterAll(async () => {
    for (const index of indexes) index.close();
    acks?.close();
    await nc?.close();
    await server?.stop();
  });

  it('indexes a suspension’s deadline before its commit as a KV entry holding the timers', async () => {
    const owner = ownerOf('order-1');
    await (await newIndex()).beforeCommit(owner, [deadline('deadline-0-0', DUE)]);
    const entry = await kv.get(entryKey(owner));
    expect(entry?.operation).toBe('PUT');
    expect(decodeTimerIndexEntry(owner.stateKey, entry?.value ?? new Uint8Array())).toMatchObject({ timers: [deadline('deadline-0-0', DUE)] });
  }, 10_000);

  it('keeps the entry of a key left without timers for the delete delay, then drops it as a delete marker the KV reads as deleted', async () => {
    const owner = ownerOf('order-2');
    const index = await newIndex();
    await index.beforeCommit(owner, [deadline('deadline-0-0', DUE)]);
    await index.afterCommit(owner, [deadline('deadline-0-0', DUE)]);
    await index.afterCommit(owner, []);
    expect((await kv.get(entryKey(owner)))?.operation).toBe('PUT');
    await waitFor(async () => (await kv.get(entryKey(owner)))?.operation === 'DEL', 'the delayed delete');
    const keys: string[] = [];
    for await (const k of await kv.keys()) keys.push(k);
    expect(keys).not.toContain(entryKey(owner));
  }, 10_000);

  it('writes nothing for a key that suspends again within the delay: the kept entry covers the later deadline', async () => {
    const owner = ownerOf('order-3');
    const index = await newIndex();
    let first: number | undefined;
    for (let round = 0; round < 5; round += 1) {
      const timers = [deadline(`deadline-${round}-0`, DUE + round)];
      await index.beforeCommit(owner, timers);
      first ??= await revision(owner);
      await index.afterCommit(owner, timers);
      await index.afterCommit(owner, []);
    }
    expect(await revision(owner)).toBe(first);
    expect(decodeTimerIndexEntry(owner.stateKey, (await kv.get(entryKey(owner)))?.value ?? new Uint8Array())).toMatchObject({ timers: [deadline('deadline-0-0', DUE)] });
    // A deadline earlier than the entry is not covered: it is written before its commit.
    await index.beforeCommit(owner, [deadline('deadline-5-0', DUE - 1)]);
    expect(await revision(owner)).toBeGreaterThan(first!);
  }, 10_000);

  it('leaves an entry another owner wrote after this process scheduled its delete', async () => {
    const owner = ownerOf('order-4');
    const before = await newIndex();
    await before.beforeCommit(owner, [deadline('deadline-0-0', DUE)]);
    await before.afterCommit(owner, []);
    const next = await newIndex();
    await next.beforeCommit(owner, [deadline('deadline-1-0', DUE + 1)]);
    const rewritten = await revision(owner);
    await new Promise((resolve) => setTimeout(resolve, DELETE_DELAY_MS * 3));
    expect((await kv.get(entryKey(owner)))?.operation).toBe('PUT');
    expect(await revision(owner)).toBe(rewritten);
    expect(decodeTimerIndexEntry(owner.stateKey, (await kv.get(entryKey(owner)))?.value ?? new Uint8Array())).toMatchObject({ timers: [deadline('deadline-1-0', DUE + 1)] });
  }, 10_000);

  it('writes a key’s entry again before relying on one it loaded: an earlier owner’s delete may land after the load', async () => {
    const owner = ownerOf('order-6');
    const partition = topology.partitionOf(encodeKeyToken(owner.entityKey));
    const earlier = await newIndex();
    await earlier.beforeCommit(owner, [deadline('deadline-0-0', DUE)]);
    await earlier.afterCommit(owner, [deadline('deadline-0-0', DUE)]);
    await earlier.afterCommit(owner, []);
    // The next owner loads the partition while the earlier owner's delete is still to come.
    const next = await newIndex();
    const scheduler = new TimerScheduler(partition, topology, { nowMs: () => Date.now(), monotonicMs: () => performance.now(), setTimeout: () => () => undefined }, async () => undefined);
    expect(await next.attach(partition, scheduler)).toBeGreaterThanOrEqual(1);
    await waitFor(async () => (await kv.get(entryKey(owner)))?.operation === 'DEL', 'the earlier owner’s delete');
    // A later deadline would be covered by the loaded entry, but that entry is gone: it is written.
    await next.beforeCommit(owner, [deadline('deadline-1-0', DUE + 1)]);
    const entry = await kv.get(entryKey(owner));
    expect(entry?.operation).toBe('PUT');
    expect(decodeTimerIndexEntry(owner.stateKey, entry?.value ?? new Uint8Array())?.timers).toContainEqual(deadline('deadline-1-0', DUE + 1));
    scheduler.stop();
  }, 10_000);

  it('writes the same entry again on a redelivered commit, leaving one live entry', async () => {
    const owner = ownerOf('order-5');
    await (await newIndex()).beforeCommit(owner, [deadline('deadline-0-0', DUE)]);
    await (await newIndex()).beforeCommit(owner, [deadline('deadline-0-0', DUE)]);
    expect((await kv.get(entryKey(owner)))?.operation).toBe('PUT');
    expect(decodeTimerIndexEntry(owner.stateKey, (await kv.get(entryKey(owner)))?.value ?? new Uint8Array())).toMatchObject({ timers: [deadline('deadline-0-0', DUE)] });
  }, 10_000);
});
