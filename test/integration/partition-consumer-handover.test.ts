// Layer 3: handing a partition's consumer from owner to owner against a private nats-server. The
// successor starts at the oldest message its predecessors did not acknowledge: not lower, or a
// handover replays the partition's history as duplicates (an owner that acknowledged nothing
// reports an ack floor of 0 on nats-server 2.9), and not higher, or a delivered but unacknowledged
// element would be lost.
import { AckPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquirePartitionConsumer } from '#transport';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';

const STREAM = 'HANDOVER';
const text = new TextEncoder();

describe('handing a partition consumer to the next owner', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url, noAsyncTraces: true });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: STREAM, subjects: ['h.>'] });
  }, 30_000);
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  /** Publishes `count` messages to each of partitions 1 and 2, interleaved; resolves with partition 1's sequences. */
  const publishBoth = async (count: number, tag: string): Promise<number[]> => {
    const mine: number[] = [];
    for (let i = 0; i < count; i += 1) {
      mine.push((await js.publish('h.1.k', text.encode(`${tag}-${i}`))).seq);
      await js.publish('h.2.k', text.encode(`${tag}-${i}`));
    }
    return mine;
  };

  /** Fetches what the consumer delivers within a short wait, acknowledging it only when `ack`. */
  const drain = async (name: string, ack: boolean): Promise<number[]> => {
    const consumer = await js.consumers.get(STREAM, name);
    const seen: number[] = [];
    const batch = await consumer.fetch({ max_messages: 1_000, expires: 1_000 });
    for await (const msg of batch as AsyncIterable<JsMsg>) {
      seen.push(msg.seq);
      if (ack) await msg.ackAck();
    }
    return seen;
  };

  const acquire = (epoch: number) => acquirePartitionConsumer(jsm, { stream: STREAM, filterSubject: 'h.1.>', namePrefix: 'p1', epoch, ackWaitMs: 30_000, maxAckPending: 1_000 });

  it('starts after the acknowledged history even when the owner before it acknowledged nothing, and still redelivers what that owner left unacknowledged', async () => {
    const history = await publishBoth(30, 'old');
    const first = await acquire(1);
    expect(first.startSeq).toBe(1);
    expect(await drain(first.name, true)).toEqual(history);

    // The second owner holds the partition while nothing arrives: it acknowledges nothing.
    const second = await acquire(2);
    // Just past the last acknowledged message (the floor may already stand on a later message of another partition).
    expect(second.startSeq).toBeGreaterThan(history[history.length - 1]!);
    expect(second.replaced).toEqual([first.name]);
    const idle = await jsm.consumers.info(STREAM, second.name);
    expect(idle.config.ack_policy).toBe(AckPolicy.Explicit);
    expect(idle.num_pending).toBe(0);

    // The third owner takes over from the idle one: no replay of the 30 acknowledged messages.
    const third = await acquire(3);
    expect(third.startSeq).toBe(second.startSeq);
    expect((await jsm.consumers.info(STREAM, third.name)).num_pending).toBe(0);

    // Messages the third owner is delivered but never acknowledges (it crashes) go to the fourth.
    const fresh = await publishBoth(5, 'new');
    expect(await drain(third.name, false)).toEqual(fresh);
    const fourth = await acquire(4);
    expect(fourth.startSeq).toBeLessThanOrEqual(fresh[0]!);
    expect(fourth.startSeq).toBeGreaterThan(history[history.length - 1]!);
    expect(await drain(fourth.name, true)).toEqual(fresh);
  }, 30_000);
});
