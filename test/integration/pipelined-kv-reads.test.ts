// Layer 3: the hot path's KV reads against a private nats-server, case by case against what
// `kv.get` answers for the same key: values and revisions with hundreds of reads in flight, a
// missing key, delete and purge markers, a bucket that refuses direct gets, a bucket whose stream
// is gone (no answer: a timeout), and the actor-state port that reads through it (decision 0072).
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyActorDocument, encodeActorDocument } from '#core';
import { bindBucket, KvStateStore, PipelinedKvReads, PubAckPipeline, PubAckTimeout } from '#transport';
import { countKvReadRequests, startNatsServer, type NatsServerHandle } from '../harness/index.js';

const text = new TextEncoder();

describe('the pipelined KV reads', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let pipeline: PubAckPipeline;
  let writer: KV;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url, noAsyncTraces: true });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    writer = await new Kvm(js).create('reads_on', { history: 1 });
    await new Kvm(js).create('reads_off', { history: 1, allow_direct: false });
    pipeline = new PubAckPipeline(nc, { timeoutMs: 2_000, monotonicMs: () => performance.now() });
  }, 30_000);
  afterAll(async () => {
    pipeline?.close();
    await nc?.close();
    await server?.stop();
  });

  it('answers each of 500 reads in flight with its own key’s value and revision, as kv.get does, one direct get each', async () => {
    const revisions = await Promise.all(Array.from({ length: 500 }, (_, i) => writer.put(`many.k${i}`, text.encode(`value-${i}`))));
    const reads = new PipelinedKvReads(await bindBucket(js, jsm, 'reads_on'), pipeline, 'reads_on');
    let entries: Awaited<ReturnType<PipelinedKvReads['get']>>[] = [];
    const seen = await countKvReadRequests(server.url, async () => {
      entries = await Promise.all(Array.from({ length: 500 }, (_, i) => reads.get(`many.k${i}`)));
    });
    expect(seen).toEqual({ direct: 500, api: 0 });
    entries.forEach((entry, i) => {
      expect(entry).toMatchObject({ revision: revisions[i], operation: 'PUT' });
      expect(new TextDecoder().decode(entry?.value)).toBe(`value-${i}`);
    });
    for (const i of [0, 250, 499]) expect((await writer.get(`many.k${i}`))?.revision).toBe(entries[i]?.revision);
    expect(pipeline.inFlight).toBe(0);
  }, 30_000);

  it('reads a missing key as null, and a deleted or purged key as its marker at the revision kv.get gives', async () => {
    const reads = new PipelinedKvReads(await bindBucket(js, jsm, 'reads_on'), pipeline, 'reads_on');
    expect(await reads.get('never.written')).toBeNull();

    await writer.put('gone.deleted', text.encode('x'));
    await writer.delete('gone.deleted');
    await writer.put('gone.purged', text.encode('y'));
    await writer.purge('gone.purged');
    for (const [key, operation] of [
      ['gone.deleted', 'DEL'],
      ['gone.purged', 'PURGE'],
    ] as const) {
      const [ours, client] = await Promise.all([reads.get(key), writer.get(key)]);
      expect(ours).toMatchObject({ operation, revision: client?.revision });
      expect(client?.operation).toBe(operation);
      expect(ours?.value.length).toBe(0);
    }
  }, 20_000);

  it('reads a bucket that refuses direct gets through the JetStream API, with the same answers', async () => {
    const off = await new Kvm(js).open('reads_off');
    const revision = await off.put('order.7', text.encode('v7'));
    const reads = new PipelinedKvReads(await bindBucket(js, jsm, 'reads_off'), pipeline, 'reads_off');
    const seen = await countKvReadRequests(server.url, async () => {
      expect(await reads.get('order.7')).toMatchObject({ revision, operation: 'PUT' });
      expect(await reads.get('order.missing')).toBeNull();
    });
    expect(seen).toEqual({ direct: 0, api: 2 });
  }, 20_000);

  it('times out a read of a bucket whose stream is gone, as kv.get does, and keeps serving other reads', async () => {
    const doomed = await new Kvm(js).create('reads_doomed', { history: 1 });
    await doomed.put('k', text.encode('v'));
    const bound = await bindBucket(js, jsm, 'reads_doomed');
    const short = new PubAckPipeline(nc, { timeoutMs: 300, monotonicMs: () => performance.now() });
    try {
      const reads = new PipelinedKvReads(bound, short, 'reads_doomed');
      expect(await reads.get('k')).toMatchObject({ operation: 'PUT' });
      await jsm.streams.delete('KV_reads_doomed');
      // nats-server 2.9 answers a direct get of a missing stream with nothing (the JetStream API
      // is a responder, so no 503): the client's own read times out the same way.
      await expect(reads.get('k')).rejects.toBeInstanceOf(PubAckTimeout);
      const viaClient = await new Kvm(jetstream(nc, { timeout: 300 })).open('reads_doomed', { bindOnly: true, allow_direct: true });
      await expect(viaClient.get('k')).rejects.toThrow(/timeout/i);
      expect(short.inFlight).toBe(0);
      await writer.put('after.doomed', text.encode('z'));
      expect(await new PipelinedKvReads(await bindBucket(js, jsm, 'reads_on'), short, 'reads_on').get('after.doomed')).toMatchObject({ operation: 'PUT' });
    } finally {
      short.close();
    }
  }, 20_000);

  it('loads an actor’s state through the direct read: the stored document, its revision and its size', async () => {
    const doc = encodeActorDocument({ ...emptyActorDocument('fraud-triage', text.encode('card-9')), seq: 3 });
    const revision = await writer.put('fraud-triage.card-9', doc);
    const store = new KvStateStore(await bindBucket(js, jsm, 'reads_on'), pipeline, 'reads_on');
    const loaded = await store.load('fraud-triage.card-9');
    expect(loaded).toMatchObject({ revision, bytes: doc.length, doc: { seq: 3, agent: 'fraud-triage' } });
    expect(await store.load('fraud-triage.card-unknown')).toBeUndefined();
  }, 10_000);
});
