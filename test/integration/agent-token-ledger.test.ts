// Layer 3: the per-agent token counter (KV <PREFIX>_BUDGETS) against a real nats-server 2.9. Two
// connections stand for two activators owning different partitions of one agent: their
// concurrent charges all land (revision-checked increments, none overwrites another), each
// window counts apart, and an entry keeps only its newest windows.
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWindowOf } from '#core';
import { createTopology } from '#routing';
import { KvAgentTokenLedger, provision, RETAINED_WINDOWS } from '#transport';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';

const topology = createTopology({ partitions: 4 });
const streams = { replicas: 1, duplicateWindowMs: 120_000, inboxMaxAgeMs: 3_600_000, outputMaxAgeMs: 3_600_000, auditMaxAgeMs: 0 };
const HOUR = 3_600_000;

describe('KvAgentTokenLedger on nats-server', () => {
  let server: NatsServerHandle;
  let first: NatsConnection;
  let second: NatsConnection;
  let kvA: KV;
  let kvB: KV;

  beforeAll(async () => {
    server = await startNatsServer();
    first = await connect({ servers: server.url });
    second = await connect({ servers: server.url });
    const report = await provision(first, await jetstreamManager(first), topology, streams);
    expect(report.created).toContain(topology.buckets.budgets);
    kvA = await new Kvm(first).open(topology.buckets.budgets, { bindOnly: true });
    kvB = await new Kvm(second).open(topology.buckets.budgets, { bindOnly: true });
  }, 60_000);

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await server?.stop();
  });

  it('counts every concurrent charge of two activators exactly once', async () => {
    const lost: string[] = [];
    const a = new KvAgentTokenLedger(kvA, (agent) => lost.push(agent));
    const b = new KvAgentTokenLedger(kvB, (agent) => lost.push(agent));
    const window = agentWindowOf(5 * HOUR + 123, HOUR);
    expect(window).toEqual({ startMs: 5 * HOUR, windowMs: HOUR });
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).charge('triage', window, i + 1)));
    expect(lost).toEqual([]);
    // 1 + 2 + … + 20, seen alike by both.
    expect(await a.spent('triage', window)).toBe(210);
    expect(await b.spent('triage', window)).toBe(210);
    expect(await a.spent('other-agent', window)).toBe(0);
  }, 60_000);

  it('keeps windows apart and only the newest few per agent', async () => {
    const ledger = new KvAgentTokenLedger(kvA);
    for (let w = 0; w < RETAINED_WINDOWS + 2; w += 1) await ledger.charge('rolling', agentWindowOf(w * HOUR, HOUR), 10 + w);
    expect(await ledger.spent('rolling', agentWindowOf((RETAINED_WINDOWS + 1) * HOUR, HOUR))).toBe(10 + RETAINED_WINDOWS + 1);
    // The oldest two fell out of the entry: a key lagging that far behind counts from zero.
    expect(await ledger.spent('rolling', agentWindowOf(0, HOUR))).toBe(0);
    expect(await ledger.spent('rolling', agentWindowOf(1 * HOUR, HOUR))).toBe(0);
    expect(await ledger.spent('rolling', agentWindowOf(2 * HOUR, HOUR))).toBe(12);
    // A window of another length is another counter.
    expect(await ledger.spent('rolling', agentWindowOf(2 * HOUR, 2 * HOUR))).toBe(0);
    const entry = await kvA.get('rolling');
    expect(JSON.parse(new TextDecoder().decode(entry!.value)).windows).toHaveLength(RETAINED_WINDOWS);
  }, 60_000);

  it('answers a read it cannot make with a retryable AgentLedgerUnavailable', async () => {
    const closed = await connect({ servers: server.url });
    const kv = await new Kvm(closed).open(topology.buckets.budgets, { bindOnly: true });
    await closed.close();
    await expect(new KvAgentTokenLedger(kv).spent('triage', agentWindowOf(0, HOUR))).rejects.toMatchObject({ name: 'AgentLedgerUnavailable' });
  }, 60_000);
});
