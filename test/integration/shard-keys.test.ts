// Layer 3: hot-key sharding happens in the ingress process on the way into the inbox, so only real
// services show where each event lands — an agent with `shards: 4` runs on key#0..3, chosen by the
// event bytes alone, while an answer addressed to a shard reaches that shard unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord, ErrorReason } from '#core';
import { encodeKeyToken, keyFromText, shardKey, unshardKey } from '#routing';
import { collect, startCluster, type TestCluster } from '../harness/index.js';

const text = new TextDecoder();
const utf8 = new TextEncoder();
const EVENTS = 40;

describe('hot-key sharding at ingress', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster({ agentModules: ['test/fixtures/agents/sharded.agent.mjs'], env: { AGENTS_LEASE_TTL_MS: '3000' } });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('runs each event of a hot key on the shard its bytes choose, every shard in use, each in publish order', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.hot.>');
    for (let n = 0; n < EVENTS; n += 1) await cluster.client.publishEvent('hot', 'busy', { n });
    await outputs.waitForCount(EVENTS, 20_000);
    outputs.close();

    const byShard = new Map<number, number[]>();
    for (const msg of outputs.messages) {
      const output = JSON.parse(text.decode(msg.data)) as { key: string; n: number };
      const expected = shardKey('busy', 4, utf8.encode(JSON.stringify({ n: output.n })));
      expect(output.key).toBe(expected);
      expect(msg.subject).toBe(`agents.output.hot.${encodeKeyToken(keyFromText(expected))}`);
      const { key, shard } = unshardKey(output.key);
      expect(key).toBe('busy');
      byShard.set(shard, [...(byShard.get(shard) ?? []), output.n]);
    }
    expect([...byShard.keys()].sort()).toEqual([0, 1, 2, 3]);
    for (const ns of byShard.values()) expect(ns).toEqual([...ns].sort((a, b) => a - b));
  });

  it('sends the same payload to the same shard every time', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.hot.>');
    for (let i = 0; i < 3; i += 1) await cluster.client.publishEvent('hot', 'twice', { n: 'same' });
    await outputs.waitForCount(3, 20_000);
    outputs.close();
    const keys = outputs.messages.map((m) => (JSON.parse(text.decode(m.data)) as { key: string }).key);
    expect(keys).toEqual(Array.from({ length: 3 }, () => shardKey('twice', 4, utf8.encode('{"n":"same"}'))));
  });

  it('passes a tool result addressed to a shard through unchanged instead of sharding it again', async () => {
    const errors = await collect(cluster.client.nc, 'agents.errors.hot.orphaned_result');
    const shard = 'busy#2';
    await cluster.client.js.publish(`agents.results.hot.${encodeKeyToken(keyFromText(shard))}`, utf8.encode(JSON.stringify({ intentId: 'no-such-intent', status: 'ok' })));
    const [msg] = await errors.waitForCount(1, 20_000);
    errors.close();
    const record = decodeErrorRecord(msg!.data);
    expect(record.reason).toBe(ErrorReason.OrphanedResult);
    expect(text.decode(record.entityKey)).toBe(shard);
  });
});
