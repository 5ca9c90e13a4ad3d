// Layer 3, correctness gate (invariant 7): a key whose stored state was written by a newer
// binary (a higher state schema version) stops — held, retried, counted, never dead-lettered —
// while other keys carry on; once a binary that reads it takes over, the key resumes losslessly.
import { Kvm } from '@nats-io/kv';
import { describe, expect, it } from 'vitest';
import { v1 } from '#proto';
import { AgentsClient } from '#client';
import { decodeActorDocument, emptyActorDocument, encodeActorDocument, encodeInboxEnvelope } from '#core';
import { FakeLlm } from '#providers';
import { encodeKeyToken, keyFromText, partitionOf } from '#routing';
import { collect, readStream, startNatsServer } from '../harness/index.js';
import { startActivatorInProcess } from './activator-under-test.js';

const text = new TextDecoder();
const counter = {
  name: 'counter',
  handler: (ctx: { memory: { getJson<T>(k: string): T | undefined; setJson(k: string, v: number): void }; seq: number }) => {
    const n = (ctx.memory.getJson<number>('n') ?? 0) + 1;
    ctx.memory.setJson('n', n);
    return { kind: 'complete' as const, output: `n=${n}#${ctx.seq}` };
  },
};

describe('state written by a newer binary', () => {
  it('holds the key without dead-lettering it, keeps other keys moving, and resumes after roll-forward', async () => {
    await using server = await startNatsServer();
    const activator = await startActivatorInProcess({ natsUrl: server.url, agents: [counter], provider: new FakeLlm() });
    const client = await AgentsClient.connect({ url: server.url, partitions: 4 });
    try {
      const kv = await new Kvm(client.nc).open('AGENTS_STATE');
      const future = keyFromText('from-the-future');
      const futureToken = encodeKeyToken(future);
      // A document as a later release would write it: version 2, with a field this one lacks.
      const newer = v1.ActorState.encode({ stateSchemaVersion: 2, agent: 'counter', entityKey: future, seq: 7 }).finish();
      await kv.put(`counter.${futureToken}`, Uint8Array.from([...newer, 0xa0, 0x06, 0x01]));

      const outputs = await collect(client.nc, 'agents.output.counter.>');
      const errors = await collect(client.nc, 'agents.errors.>');
      const publish = (key: Uint8Array, id: string) => {
        const token = encodeKeyToken(key);
        return client.js.publish(
          `agents.inbox.${partitionOf(token, 4)}.counter.${token}.event`,
          encodeInboxEnvelope({ entityKey: key, eventTimeMs: 1_800_000_000_000, payload: { kind: 'event', event: new Uint8Array(0) } }),
          { msgID: id },
        );
      };
      await publish(future, 'f1');
      await publish(keyFromText('present'), 'p1');
      await outputs.waitFor((m) => m.subject.endsWith('.present'));

      // The future key is held and counted, never dead-lettered and never overwritten.
      const retries = async () => (await activator.metrics.retries.get()).values.find((v) => v.labels.error === 'StateSchemaFromFuture')?.value ?? 0;
      await expect.poll(retries, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      expect(outputs.messages.filter((m) => m.subject.endsWith(`.${futureToken}`))).toHaveLength(0);
      expect(errors.messages).toHaveLength(0);
      expect(Buffer.from((await kv.get(`counter.${futureToken}`))!.value).subarray(0, newer.length).equals(Buffer.from(newer))).toBe(true);

      // Roll forward: a binary that understands the document rewrites it as the current version.
      await kv.put(`counter.${futureToken}`, encodeActorDocument({ ...emptyActorDocument('counter', future), seq: 7 }));
      const resumed = await outputs.waitFor((m) => m.subject.endsWith(`.${futureToken}`), 40_000);
      expect(text.decode(resumed.data)).toBe('n=1#7');
      const doc = decodeActorDocument((await kv.get(`counter.${futureToken}`))!.value);
      expect(doc.seq).toBe(8);
      expect(await readStream(client.nc, 'AGENTS_ERRORS').catch(() => [])).toEqual([]);
    } finally {
      await client.close();
      await activator.close();
    }
  });
});
