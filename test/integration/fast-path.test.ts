// Layer 3: the fast path through real processes and a real nats-server — publish to a subject,
// ingress routes it, the activator runs the agent and commits to KV, the output appears.
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeActorDocument } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { bearer, collect, startCluster, type TestCluster } from '../harness/index.js';

const text = new TextDecoder();

describe('the fast path', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/counter.agent.mjs', 'test/fixtures/agents/ring.agent.mjs'],
      modelScript: 'test/fixtures/models/echo-model.mjs',
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('runs many keys at once, each key in publish order, with the KV counter equal to the events', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `customer-${i}`);
    const perKey = 25;
    const outputs = await collect(cluster.client.nc, 'agents.output.counter.>');
    // Interleave keys so every partition sees many keys in flight at once.
    const publishes: Promise<unknown>[] = [];
    for (let n = 0; n < perKey; n += 1) {
      for (const key of keys) publishes.push(cluster.client.publishEvent('counter', key, { n }));
    }
    await Promise.all(publishes);
    await outputs.waitForCount(keys.length * perKey);

    const byKey = new Map<string, { n: number; count: number; seq: number }[]>();
    for (const msg of outputs.messages) {
      const token = msg.subject.split('.').pop() ?? '';
      const list = byKey.get(token) ?? [];
      list.push(JSON.parse(text.decode(msg.data)) as { n: number; count: number; seq: number });
      byKey.set(token, list);
    }
    const kv = await new Kvm(cluster.client.nc).open('AGENTS_STATE');
    for (const key of keys) {
      const list = byKey.get(encodeKeyToken(keyFromText(key))) ?? [];
      expect(list.map((o) => o.n)).toEqual(Array.from({ length: perKey }, (_, i) => i));
      expect(list.map((o) => o.count)).toEqual(Array.from({ length: perKey }, (_, i) => i + 1));
      const entry = await kv.get(`counter.${encodeKeyToken(keyFromText(key))}`);
      const doc = decodeActorDocument(entry!.value);
      expect(doc.seq).toBe(perKey);
      expect(text.decode(doc.memory.entries.find((e) => e.key === 'count')!.value.subarray(1))).toBe(String(perKey));
    }
    expect(outputs.messages).toHaveLength(keys.length * perKey);
    outputs.close();
  });

  it('accumulates working memory per key in order and keeps interleaved keys apart (A03, A04)', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.ring.>');
    for (const [key, event] of [['k1', 'a'], ['k2', 'x'], ['k1', 'b'], ['k2', 'y'], ['k1', 'c']] as const) {
      await cluster.client.publishEvent('ring', key, event);
    }
    await outputs.waitForCount(5);
    const of = (key: string): string[] =>
      outputs.messages.filter((m) => m.subject.endsWith(`.${key}`)).map((m) => text.decode(m.data));
    expect(of('k1')).toEqual(['a#0', 'a,b#1', 'a,b,c#2']);
    expect(of('k2')).toEqual(['x#0', 'x,y#1']);
    outputs.close();
  });

  it('serves a repeated model request inside one activation scope from the replay cache', async () => {
    const answer = await cluster.client.publishAndWait('ring', 'modeller', 'model-ping');
    expect(answer.kind).toBe('output');
    if (answer.kind === 'output') expect(answer.output.text).toBe('model-ping#0|echo:model-ping');
  });

  it('accepts events over HTTP and routes them through the same ordered path', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.ring.http-key');
    const response = await fetch(`${cluster.httpBase()}/v1/agents/ring/events/http-key`, { method: 'POST', headers: bearer(undefined, { 'content-type': 'application/octet-stream' }), body: 'hello' });
    expect(response.status).toBe(202);
    const body = (await response.json()) as { stream: string; seq: number };
    expect(body.stream).toBe('AGENTS_INGEST');
    const [msg] = await outputs.waitForCount(1);
    expect(text.decode(msg!.data)).toBe('hello#0');
    outputs.close();
  });
});
