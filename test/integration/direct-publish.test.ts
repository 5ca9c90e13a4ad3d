// Layer 3: direct publishing skips ingress, so only real services show that the activator applies
// the ingress rules itself — each refusal as the same error record, committed or (for an unknown
// agent) published without state, and the partition never held.
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeActorDocument, decodeErrorRecord, ErrorReason, type ErrorRecordFields } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { collect, readStream, startCluster, type TestCluster, until } from '../harness/index.js';

const text = new TextDecoder();

/** A record with its key as text, for comparison. */
function readable(record: ErrorRecordFields): Omit<ErrorRecordFields, 'entityKey'> & { key: string } {
  const { entityKey, ...rest } = record;
  return { ...rest, key: text.decode(entityKey) };
}

describe('direct publishing into the inbox', () => {
  let cluster: TestCluster;
  let jsm: JetStreamManager;
  let state: KV;

  beforeAll(async () => {
    cluster = await startCluster({ agentModules: ['test/fixtures/agents/counter.agent.mjs'], env: { AGENTS_LEASE_TTL_MS: '3000' } });
    jsm = await jetstreamManager(cluster.client.nc);
    state = await new Kvm(cluster.client.nc).open('AGENTS_STATE');
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  /** The consumer of `key`'s partition has nothing pending and nothing unacknowledged. */
  async function partitionIdle(key: string): Promise<boolean> {
    const filter = `agents.inbox.${cluster.client.topology.partitionOf(encodeKeyToken(keyFromText(key)))}.>`;
    for await (const info of jsm.consumers.list('AGENTS_INBOX')) {
      if (info.config.filter_subject === filter) return info.num_pending === 0 && info.num_ack_pending === 0;
    }
    return false;
  }

  async function expectRecord(subject: string, publish: () => Promise<unknown>): Promise<ErrorRecordFields> {
    const errors = await collect(cluster.client.nc, subject);
    await publish();
    const [msg] = await errors.waitForCount(1, 20_000);
    errors.close();
    return decodeErrorRecord(msg!.data);
  }

  it('runs direct events in publish order per key, skipping ingress, and stores a repeated msgId once', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.counter.direct-1');
    const published = [];
    for (let n = 0; n < 10; n += 1) published.push(cluster.client.publishDirect('counter', 'direct-1', { n }, { msgId: `direct-1-${n}` }));
    await Promise.all(published);
    const again = await cluster.client.publishDirect('counter', 'direct-1', { n: 9 }, { msgId: 'direct-1-9' });
    expect(again.duplicate).toBe(true);
    expect(again.stream).toBe('AGENTS_INBOX');
    await outputs.waitForCount(10, 20_000);
    outputs.close();
    expect(outputs.messages.map((m) => JSON.parse(text.decode(m.data)) as unknown)).toEqual(Array.from({ length: 10 }, (_, n) => ({ n, count: n + 1, seq: n })));
    const ingested = await readStream(cluster.client.nc, 'AGENTS_INGEST');
    expect(ingested.filter((m) => m.subject.endsWith('.direct-1'))).toHaveLength(0);
    await until(() => partitionIdle('direct-1'), 10_000, 'the partition to settle', 10);
    const stored = await readStream(cluster.client.nc, 'AGENTS_OUTPUT', 'agents.output.counter.direct-1');
    expect(stored).toHaveLength(10);
  });

  it('answers each kind of bad direct input with its error record, commits only lastAppliedSeq, and keeps the key going', async () => {
    // A direct event's clock is its inbox message's stream timestamp, never the time the client wrote.
    const sentAt = Date.now();
    const malformed = await expectRecord('agents.errors.counter.malformed_input', () => cluster.client.publishDirect('counter', 'bad-d', 'not json', { eventTimeMs: 1_700_000_000_000 }));
    expect(readable(malformed)).toMatchObject({ agent: 'counter', key: 'bad-d', reason: ErrorReason.MalformedInput, detail: 'the event must be JSON' });
    expect(malformed.eventTimeMs).toBeGreaterThanOrEqual(sentAt - 5);

    const large = await expectRecord('agents.errors.counter.payload_too_large', () => cluster.client.publishDirect('counter', 'bad-d', new Uint8Array(300 * 1024)));
    expect(large.detail).toBe(`${300 * 1024} bytes exceed the ${256 * 1024}-byte limit`);
    expect(text.decode(large.entityKey)).toBe('bad-d');

    const longKey = await expectRecord('agents.errors.counter.key_invalid', () => cluster.client.publishDirect('counter', 'k'.repeat(300), {}));
    expect(longKey.detail).toBe('entity key is 300 bytes; the limit is 256');

    // Refusals committed like any failure: lastAppliedSeq moved, the actor did not (seq 0, no memory).
    const before = decodeActorDocument((await state.get('counter.bad-d'))!.value);
    expect({ seq: before.seq, memory: before.memory.entries.length }).toEqual({ seq: 0, memory: 0 });
    expect(before.lastAppliedSeq).toBeGreaterThan(0);

    const answer = await cluster.client.publishAndWait('counter', 'bad-d', { n: 1 });
    expect(answer.kind === 'output' && JSON.parse(answer.output.text)).toEqual({ n: 1, count: 1, seq: 0 });
    const direct = await collect(cluster.client.nc, 'agents.output.counter.bad-d');
    await cluster.client.publishDirect('counter', 'bad-d', { n: 2 });
    const [next] = await direct.waitForCount(1, 20_000);
    direct.close();
    expect(JSON.parse(text.decode(next!.data))).toEqual({ n: 2, count: 2, seq: 1 });
    await until(() => partitionIdle('bad-d'), 10_000, 'the partition to settle', 10);
  });

  it('records unknown_agent for a direct event of an agent nobody hosts, writes no state and holds nothing', async () => {
    const sentAt = Date.now();
    const record = await expectRecord('agents.errors.nobody.unknown_agent', () => cluster.client.publishDirect('nobody', 'lost-1', { n: 1 }, { eventTimeMs: 1_700_000_000_001 }));
    expect(readable(record)).toMatchObject({ agent: 'nobody', key: 'lost-1', reason: ErrorReason.UnknownAgent, detail: "no agent named 'nobody' is deployed" });
    expect(record.eventTimeMs).toBeGreaterThanOrEqual(sentAt - 5);
    await until(() => partitionIdle('lost-1'), 5_000, 'the refused element to be acknowledged', 10);
    expect(await state.get('nobody.lost-1')).toBeNull();

    // The key's partition is not held: a good event on a key of the same partition runs at once.
    const answer = await cluster.client.publishAndWait('counter', 'lost-1', { n: 7 }, { timeoutMs: 10_000 });
    expect(answer.kind).toBe('output');
    const activator = cluster.services.get('activator')!;
    expect(activator.lines.filter((l) => l.includes('nobody.lost-1') && l.includes('held'))).toEqual([]);
    expect(activator.lines.some((l) => l.includes('nobody.lost-1: direct element refused (unknown_agent)'))).toBe(true);
    expect(await readStream(cluster.client.nc, 'AGENTS_ERRORS', 'agents.errors.nobody.unknown_agent')).toHaveLength(1);
  });
});
