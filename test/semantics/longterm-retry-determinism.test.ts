// Layer 3, the long-term retry-determinism gate (seed 000): an activation whose long-term flush
// landed but whose state commit failed is retried; the retry flushes byte-identical upserts that
// converge on one row per key, with zero extra model calls; and a delayed duplicate of the flush at
// seq N never regresses a row a later activation wrote at N+1. Real activator module in-process
// (the commit fault is injected into the real KV state store), real nats-server, real SQLite.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentsClient } from '#client';
import { encodeInboxEnvelope, encodeLongTermRecord, type ActivationContext, type LongTermRecord, type LongTermScope, type LongTermStore, type SearchOptions, type StateStore, type StoredActor } from '#core';
import { InProcessLongTermStore, openLongTermBackend, rowFromBytes, UpsertVerdict } from '#longterm';
import { FakeLlm, matchAny, respondWithChat } from '#providers';
import { encodeKeyToken, keyFromText, partitionOf } from '#routing';
import { StateStoreUnavailable } from '#transport';
import { collect, startNatsServer } from '../harness/index.js';
import { startActivatorInProcess } from './activator-under-test.js';

/** Saves what the model answered under a per-event key and a fixed `summary` key. */
const agent = {
  name: 'lt-gate',
  async handler(ctx: ActivationContext) {
    const reply = await ctx.callModel({ model: 'fake-1', messages: [{ role: 'user', content: ctx.eventText() }] });
    ctx.memory.longterm.save(`answer/${ctx.eventText()}`, reply.text, { type: 'episodic' });
    ctx.memory.longterm.save('summary', `last: ${reply.text}`, { type: 'thread_summary' });
    return { kind: 'complete' as const, output: { seq: ctx.seq } };
  },
};

/** Fails the first commit once, before writing: the flush before it has landed. */
class FailFirstCommit implements StateStore {
  private fired = false;
  constructor(private readonly inner: StateStore) {}
  load(stateKey: string): Promise<StoredActor | undefined> {
    return this.inner.load(stateKey);
  }
  async commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    if (this.fired) return this.inner.commit(stateKey, bytes, expectedRevision);
    this.fired = true;
    throw new StateStoreUnavailable('injected commit fault after the long-term flush');
  }
}

/** Records every flushed batch's record bytes on its way to the real store. */
class RecordingStore implements LongTermStore {
  readonly flushes: Uint8Array[][] = [];
  constructor(private readonly inner: LongTermStore) {}
  load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    return this.inner.load(scope, key, nowMs);
  }
  search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    return this.inner.search(scope, prefix, nowMs, options);
  }
  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    this.flushes.push(records.map(encodeLongTermRecord));
    await this.inner.upsert(records);
  }
}

describe('long-term retry determinism gate', () => {
  it('converges a retried flush on identical rows with no extra model call, and never regresses a newer row', async () => {
    await using server = await startNatsServer();
    const backend = await openLongTermBackend(`sqlite://${join(mkdtempSync(join(tmpdir(), 'lt-gate-')), 'lt.db')}`);
    const store = new RecordingStore(new InProcessLongTermStore(backend));
    const fake = new FakeLlm({ rules: [[matchAny(), respondWithChat((request) => `answer to ${JSON.stringify(request.messages)}`)]] });
    const activator = await startActivatorInProcess({ natsUrl: server.url, agents: [agent], provider: fake, longterm: store, wrapStore: (s) => new FailFirstCommit(s) });
    const client = await AgentsClient.connect({ url: server.url, partitions: 4 });
    try {
      const key = keyFromText('lt-key');
      const token = encodeKeyToken(key);
      const outputs = await collect(client.nc, 'agents.output.lt-gate.>');
      const publish = (text: string, n: number) =>
        client.js.publish(
          `agents.inbox.${partitionOf(token, 4)}.lt-gate.${token}.event`,
          encodeInboxEnvelope({ entityKey: key, eventTimeMs: 1_800_000_000_000 + n, payload: { kind: 'event', event: new TextEncoder().encode(text) } }),
          { msgID: `lt-gate-${n}` },
        );

      await publish('one', 1);
      await outputs.waitForCount(1);
      // The failed attempt flushed, the retry flushed again: byte for byte the same upserts.
      expect(store.flushes).toHaveLength(2);
      expect(store.flushes[1]!.map((b) => Buffer.from(b).toString('hex'))).toEqual(store.flushes[0]!.map((b) => Buffer.from(b).toString('hex')));
      expect(fake.callCount).toBe(1);
      const scope = { entityKey: key, agent: 'lt-gate' };
      const rows = await backend.search(scope, '', Date.now(), { limit: 10 });
      expect(rows.map((r) => r.key)).toEqual(['answer/one', 'summary']);
      const firstSummary = rows.find((r) => r.key === 'summary')!;

      await publish('two', 2);
      await outputs.waitForCount(2);
      const newer = (await backend.load(scope, 'summary', Date.now()))!;
      expect(newer.seq).toBeGreaterThan(firstSummary.seq);

      // A delayed duplicate of the first flush arrives now: refused, the newer row untouched.
      const verdicts = await backend.applyRows(store.flushes[0]!.map(rowFromBytes));
      expect(verdicts[store.flushes[0]!.findIndex((b) => Buffer.from(b).includes(Buffer.from('summary')))]).toBe(UpsertVerdict.Stale);
      expect(Buffer.from(encodeLongTermRecord((await backend.load(scope, 'summary', Date.now()))!)).equals(Buffer.from(encodeLongTermRecord(newer)))).toBe(true);
    } finally {
      await client.close();
      await activator.close();
      await backend.close();
    }
  });
});
