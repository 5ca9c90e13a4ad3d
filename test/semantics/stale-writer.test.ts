// Layer 3, correctness gate (fencing, ARCHITECTURE §4–5): a commit made on a stale revision fails
// at the server, and nothing the losing attempt computed is ever published; a newer owner epoch
// found on re-read fences the writer. The competing writer is injected at the KV store seam of
// the real activator module, so the compare-and-set that refuses the loser is the server's.
import { jetstreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { AgentsClient } from '#client';
import { decodeActorDocument, encodeActorDocument, encodeInboxEnvelope, type ActorDocument, type StateStore, type StoredActor } from '#core';
import { FakeLlm } from '#providers';
import { encodeKeyToken, keyFromText, partitionOf } from '#routing';
import { collect, readStream, startNatsServer } from '../harness/index.js';
import { startActivatorInProcess } from './activator-under-test.js';

const text = new TextDecoder();
const echo = {
  name: 'echo',
  handler: (ctx: { eventText(): string; seq: number }) => ({ kind: 'complete' as const, output: `loser:${ctx.eventText()}#${ctx.seq}` }),
};

/** Before the first commit, another writer commits `competitor(ours)` at the same revision. */
class CompetingStore implements StateStore {
  private raced = false;
  constructor(
    private readonly inner: StateStore,
    private readonly competitor: (ours: ActorDocument) => ActorDocument,
  ) {}
  load(stateKey: string): Promise<StoredActor | undefined> {
    return this.inner.load(stateKey);
  }
  async commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    if (!this.raced) {
      this.raced = true;
      await this.inner.commit(stateKey, encodeActorDocument(this.competitor(decodeActorDocument(bytes))), expectedRevision);
    }
    return this.inner.commit(stateKey, bytes, expectedRevision);
  }
}

async function race(competitor: (ours: ActorDocument) => ActorDocument) {
  const server = await startNatsServer();
  const activator = await startActivatorInProcess({
    natsUrl: server.url,
    agents: [echo],
    provider: new FakeLlm(),
    wrapStore: (store) => new CompetingStore(store, competitor),
  });
  const client = await AgentsClient.connect({ url: server.url, partitions: 4 });
  const key = keyFromText('contested');
  const token = encodeKeyToken(key);
  const publish = (event: string, id: string) =>
    client.js.publish(
      `agents.inbox.${partitionOf(token, 4)}.echo.${token}.event`,
      encodeInboxEnvelope({ entityKey: key, eventTimeMs: 1_800_000_000_000, payload: { kind: 'event', event: new TextEncoder().encode(event) } }),
      { msgID: id },
    );
  return {
    server,
    activator,
    client,
    publish,
    async close() {
      await client.close();
      await activator.close();
      await server.stop();
    },
  };
}

describe('stale writers', () => {
  it('fails the commit on a stale revision and publishes only what the winning writer committed', async () => {
    const run = await race((ours) => ({
      ...ours,
      outbox: ours.outbox.map((entry) => ({ ...entry, msgId: 'winner-msg', payload: new TextEncoder().encode('winner') })),
    }));
    try {
      const outputs = await collect(run.client.nc, 'agents.output.echo.>');
      await run.publish('a', 'e1');
      await outputs.waitForCount(1);
      const stored = await readStream(run.client.nc, 'AGENTS_OUTPUT');
      expect(stored.map((m) => text.decode(m.data))).toEqual(['winner']);
      expect(outputs.messages.map((m) => text.decode(m.data))).not.toContain('loser:a#0');
      expect(await run.activator.metrics.commitConflicts.get().then((m) => m.values[0]?.value)).toBe(1);
    } finally {
      await run.close();
    }
  });

  it('is fenced by a newer owner epoch: it stops, acks nothing and publishes nothing', async () => {
    // A newer owner's epoch is a revision of the leases bucket: one above ours, once the bucket has
    // moved past it (an epoch above every lease revision is a forged document, quarantined instead).
    const run = await race((ours) => ({ ...ours, ownerEpoch: ours.ownerEpoch + 1, lastAppliedSeq: 0, seq: 0, outbox: [] }));
    try {
      const leases = await jetstreamManager(run.client.nc);
      const leaseSeq = async (): Promise<number> => (await leases.streams.info('KV_AGENTS_LEASES')).state.last_seq;
      const start = await leaseSeq();
      const deadline = Date.now() + 60_000;
      while ((await leaseSeq()) < start + 2) {
        if (Date.now() > deadline) throw new Error('the leases bucket did not move within 60 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const fenced = new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          void run.activator.metrics.fenced.get().then((m) => {
            if ((m.values[0]?.value ?? 0) >= 1) {
              clearInterval(poll);
              resolve();
            }
          });
        }, 20);
      });
      await run.publish('a', 'e1');
      await fenced;
      expect(await readStream(run.client.nc, 'AGENTS_OUTPUT')).toEqual([]);
      const jsm = await jetstreamManager(run.client.nc);
      let acked = 0;
      for await (const consumer of jsm.consumers.list('AGENTS_INBOX')) acked += consumer.ack_floor.stream_seq;
      expect(acked).toBe(0);
    } finally {
      await run.close();
    }
  });
});
