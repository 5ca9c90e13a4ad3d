// Layer 3: the pipelined JetStream publisher against a private nats-server, case by case against
// what `js.publish` and `kv.update` answer for the same request: acknowledgements with the stream
// sequence, duplicates inside the duplicate window, the KV revision CAS (err_code 10071), a
// subject no stream captures, a reply that never comes, and a close with waits open.
import { AckPolicy, jetstream, jetstreamManager, JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutgoingHeaders, PubAckAbandoned, PubAckNoResponders, PubAckPipeline, PubAckTimeout } from '#transport';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';

const withMsgId = (id: string) => {
  const h = headers();
  h.set('Nats-Msg-Id', id);
  return h;
};

describe('the pipelined publisher', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let kv: KV;
  let pipeline: PubAckPipeline;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url, noAsyncTraces: true });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'PIPE', subjects: ['pipe.>'], duplicate_window: 60_000_000_000 });
    kv = await new Kvm(js).create('pipe_state');
    pipeline = new PubAckPipeline(nc, { timeoutMs: 2_000, monotonicMs: () => performance.now() });
  }, 30_000);
  afterAll(async () => {
    pipeline?.close();
    await nc?.close();
    await server?.stop();
  });

  it('resolves every publish with its own stream sequence, however many are in flight', async () => {
    const acks = await Promise.all(Array.from({ length: 500 }, (_, i) => pipeline.publish(`pipe.many.${i}`, new TextEncoder().encode(String(i)), withMsgId(`many-${i}`))));
    expect(new Set(acks.map((a) => a.seq)).size).toBe(500);
    expect(acks.every((a) => a.stream === 'PIPE' && a.duplicate === false)).toBe(true);
    // Each ack names the message it answered: the stored message at that sequence carries the publish's id.
    for (const i of [0, 137, 499]) {
      const stored = await jsm.streams.getMessage('PIPE', { seq: acks[i]?.seq ?? 0 });
      expect(stored?.header.get('Nats-Msg-Id')).toBe(`many-${i}`);
    }
    expect(pipeline.inFlight).toBe(0);
  }, 30_000);

  it('answers a republish with the same message id as a duplicate of the first, storing nothing', async () => {
    const first = await pipeline.publish('pipe.dup', new Uint8Array([1]), withMsgId('dup-1'));
    const again = await pipeline.publish('pipe.dup', new Uint8Array([1]), withMsgId('dup-1'));
    expect(again).toMatchObject({ seq: first.seq, duplicate: true });
    expect((await jsm.streams.info('PIPE')).state.last_seq).toBe(first.seq);
  }, 10_000);

  it('stores the headers of an OutgoingHeaders as the client’s own headers: every name and value, and its message id deduplicates', async () => {
    const sent = new OutgoingHeaders([
      { name: 'Agents-Agent', value: 'fraud-triage' },
      { name: 'traceparent', value: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    ]);
    sent.set('Nats-Msg-Id', 'outgoing-1');
    const first = await pipeline.publish('pipe.outgoing', new Uint8Array([7]), sent);
    const stored = await jsm.streams.getMessage('PIPE', { seq: first.seq });
    expect([...(stored?.header ?? [])].map(([name, values]) => [name, values.join()])).toEqual([
      ['Agents-Agent', 'fraud-triage'],
      ['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
      ['Nats-Msg-Id', 'outgoing-1'],
    ]);
    const again = await pipeline.publish('pipe.outgoing', new Uint8Array([7]), new OutgoingHeaders([{ name: 'Nats-Msg-Id', value: 'outgoing-1' }]));
    expect(again).toMatchObject({ seq: first.seq, duplicate: true });
  }, 10_000);

  it('enforces the KV revision condition exactly as kv.update does: a stale revision is err_code 10071', async () => {
    const created = await kv.create('k1', new Uint8Array([1]));
    const cas = (revision: number) => {
      const h = headers();
      h.set('Nats-Expected-Last-Subject-Sequence', String(revision));
      return pipeline.publish('$KV.pipe_state.k1', new Uint8Array([2]), h);
    };
    const next = await cas(created);
    expect((await kv.get('k1'))?.revision).toBe(next.seq);
    const stale = await cas(created).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(stale).toBeInstanceOf(JetStreamApiError);
    expect((stale as JetStreamApiError).code).toBe(JetStreamApiCodes.StreamWrongLastSequence);
    // The client's own update refuses the same stale revision with the same code.
    const viaClient = await kv.update('k1', new Uint8Array([3]), created).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((viaClient as JetStreamApiError).code).toBe(JetStreamApiCodes.StreamWrongLastSequence);
  }, 10_000);

  it('fails fast with no responders when no stream captures the subject', async () => {
    await expect(pipeline.publish('nowhere.at.all', new Uint8Array([1]), undefined)).rejects.toBeInstanceOf(PubAckNoResponders);
  }, 10_000);

  it('times out a publish nobody acknowledges, and ignores the reply that comes too late', async () => {
    // A plain subscriber is a responder that never answers: no 503, no ack.
    const silent = nc.subscribe('silent.subject');
    const short = new PubAckPipeline(nc, { timeoutMs: 200, monotonicMs: () => performance.now() });
    try {
      await expect(short.publish('silent.subject', new Uint8Array([1]), undefined)).rejects.toBeInstanceOf(PubAckTimeout);
      expect(short.inFlight).toBe(0);
    } finally {
      short.close();
      silent.unsubscribe();
    }
  }, 10_000);

  it('fails the waits still open when it closes, and refuses new publishes', async () => {
    const silent = nc.subscribe('silent.close');
    const closing = new PubAckPipeline(nc, { timeoutMs: 60_000, monotonicMs: () => performance.now() });
    const open = closing.publish('silent.close', new Uint8Array([1]), undefined);
    await nc.flush();
    closing.close();
    await expect(open).rejects.toBeInstanceOf(PubAckAbandoned);
    await expect(closing.publish('pipe.after', new Uint8Array([1]), undefined)).rejects.toBeInstanceOf(PubAckAbandoned);
    silent.unsubscribe();
  }, 10_000);

  it('leaves the consumers it feeds with exactly the messages it acknowledged', async () => {
    await jsm.consumers.add('PIPE', { durable_name: 'reader', ack_policy: AckPolicy.None, filter_subject: 'pipe.count.>' });
    await Promise.all(Array.from({ length: 50 }, (_, i) => pipeline.publish(`pipe.count.${i}`, new Uint8Array([i]), withMsgId(`count-${i}`))));
    expect((await jsm.consumers.info('PIPE', 'reader')).num_pending).toBe(50);
  }, 10_000);
});
