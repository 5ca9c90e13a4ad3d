// Layer 3: ingress high availability needs real processes and a real lease bucket — three ingress
// replicas and one activator on a private nats-server; the active replica is SIGKILLed while events
// stream in, a standby takes the ingest lease over, and every event still reaches its key exactly
// once and in publish order (the counter agent's output carries the event's `n` and the per-key count).
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeKeyToken, keyFromText } from '#routing';
import { bearer, readStream, startCluster, startService, type ServiceHandle, type TestCluster, until } from '../harness/index.js';

const LEASE_TTL_MS = 3_000;
const KEYS = 250;
const PER_KEY = 20;
const TOTAL = KEYS * PER_KEY;
/** The active replica dies once this many events have reached the inbox (of 5,000). */
const KILL_AT_INBOX = 1_000;

const text = new TextDecoder();
const keyOf = (i: number): string => `ha-${i}`;

const consuming = /ingress consuming AGENTS_INGEST from seq (\d+) \(epoch (\d+)/;
const isActive = (replica: ServiceHandle): boolean => replica.lines.some((line) => consuming.test(line));
/**
 * Whether a replica consumes right now: its latest role line says so. Under load a 3 s lease can
 * lapse and move between the standbys, so "ever consumed" does not name the current holder.
 */
const consumesNow = (replica: ServiceHandle): boolean => {
  const role = replica.lines.filter((line) => consuming.test(line) || line.includes('ingress stopped consuming') || line.includes('ingress standing by')).at(-1);
  return role !== undefined && consuming.test(role);
};

function httpBase(replica: ServiceHandle): string {
  for (const line of replica.lines) {
    const match = /HTTP listening on (\S+)/.exec(line);
    if (match?.[1] !== undefined) return match[1];
  }
  throw new Error('replica is not listening');
}

/** True when every consumer of `stream` has delivered and had acknowledged everything. */
async function quiet(jsm: JetStreamManager, stream: string): Promise<boolean> {
  for await (const info of jsm.consumers.list(stream)) if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
  return true;
}

describe('ingress: one active replica, hot standbys', () => {
  let cluster: TestCluster;
  let jsm: JetStreamManager;
  const replicas: ServiceHandle[] = [];

  beforeAll(async () => {
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/counter.agent.mjs'],
      services: ['activator'],
      env: { AGENTS_LEASE_TTL_MS: String(LEASE_TTL_MS) },
    });
    for (let i = 0; i < 3; i += 1) replicas.push(await startService('ingress', { ...cluster.env }));
    jsm = await jetstreamManager(cluster.client.nc);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await cluster?.stop();
  });

  it('lets exactly one replica consume while the others stand by and still accept HTTP', async () => {
    expect(replicas.filter(isActive)).toHaveLength(1);
    const standbys = replicas.filter((r) => !isActive(r));
    for (const standby of standbys) await standby.waitForLine(/ingress standing by: ingress lease held by /, 5_000);

    const response = await fetch(`${httpBase(standbys[0]!)}/v1/agents/counter/events/via-standby`, { method: 'POST', headers: bearer(undefined, { 'content-type': 'application/json' }), body: JSON.stringify({ n: 0 }) });
    expect(response.status).toBe(202);
    await until(async () => (await readStream(cluster.client.nc, 'AGENTS_OUTPUT', 'agents.output.counter.via-standby')).length === 1, 10_000, 'the output of the event posted to a standby', 10);
    const [output] = await readStream(cluster.client.nc, 'AGENTS_OUTPUT', 'agents.output.counter.via-standby');
    expect(JSON.parse(text.decode(output!.data))).toEqual({ n: 0, count: 1, seq: 0 });
  });

  it('delivers every event exactly once and in publish order per key while the active replica is SIGKILLed mid-stream', async () => {
    const active = replicas.find(isActive)!;
    const standbys = replicas.filter((r) => r !== active);
    const firstEpoch = Number(consuming.exec(active.lines.find((l) => consuming.test(l))!)![2]);

    // Interleaved: every key gets its n-th event before any key gets its (n+1)-th.
    const publishing = (async () => {
      for (let n = 0; n < PER_KEY; n += 1) {
        await Promise.all(Array.from({ length: KEYS }, (_, i) => cluster.client.publishEvent('counter', keyOf(i), { n })));
      }
    })();
    await until(async () => (await jsm.streams.info('AGENTS_INBOX')).state.messages >= KILL_AT_INBOX, 30_000, `${KILL_AT_INBOX} events in the inbox`, 10);
    const killedAt = Date.now();
    await active.kill();
    const inboxAtKill = (await jsm.streams.info('AGENTS_INBOX')).state.messages;
    await publishing;
    expect(inboxAtKill).toBeLessThan(TOTAL + 1);

    // A standby takes over, within about one lease TTL, from the dead replica's ack floor.
    const takeover = await Promise.race(standbys.map((s) => s.waitForLine(consuming, LEASE_TTL_MS * 3).then((m) => ({ s, m }))));
    const failoverMs = Date.now() - killedAt;
    // The lease expires at most one TTL after the last renewal; then one standby tick and the consumer reset.
    expect(failoverMs).toBeLessThan(LEASE_TTL_MS + 2_500);
    expect(Number(takeover.m[2])).toBeGreaterThan(firstEpoch);
    expect(Number(takeover.m[1])).toBeLessThanOrEqual(TOTAL + 1);

    await until(async () => (await jsm.streams.info('AGENTS_OUTPUT')).state.messages >= TOTAL + 1, 90_000, `${TOTAL} outputs`, 10);
    await until(async () => (await quiet(jsm, 'AGENTS_INGEST')) && (await quiet(jsm, 'AGENTS_INBOX')), 30_000, 'ingest and inbox consumers to be fully acknowledged', 10);

    const stored = await readStream(cluster.client.nc, 'AGENTS_OUTPUT');
    const byKey = new Map<string, { n: number; count: number }[]>();
    for (const msg of stored) {
      const token = msg.subject.split('.').pop()!;
      byKey.set(token, [...(byKey.get(token) ?? []), JSON.parse(text.decode(msg.data)) as { n: number; count: number }]);
    }
    const expected = Array.from({ length: PER_KEY }, (_, n) => ({ n, count: n + 1 }));
    for (let i = 0; i < KEYS; i += 1) {
      const outputs = (byKey.get(encodeKeyToken(keyFromText(keyOf(i)))) ?? []).map(({ n, count }) => ({ n, count }));
      expect(outputs, keyOf(i)).toEqual(expected);
    }
    expect(stored).toHaveLength(TOTAL + 1);
    // The measured failover and kill point, for the run log.
    console.info(`ingress failover: ${failoverMs} ms after SIGKILL (lease TTL ${LEASE_TTL_MS} ms); killed with ${inboxAtKill}/${TOTAL} events forwarded; successor started at ingest seq ${takeover.m[1]}`);
  });

  it('hands the lease to the last standby right after its drain when the active replica is SIGTERMed, and the flow goes on', async () => {
    const alive = replicas.filter((r) => r.process.exitCode === null && r.process.signalCode === null);
    await until(() => alive.filter(consumesNow).length === 1, LEASE_TTL_MS * 3, 'exactly one live replica consuming', 10);
    const active = alive.find(consumesNow)!;
    const standby = alive.find((r) => r !== active)!;
    expect(consumesNow(standby)).toBe(false);
    await active.stop();
    const stoppedAt = Date.now();
    expect(active.lines.some((l) => l.includes('ingress stopped consuming (shutdown)')), active.lines.slice(-12).join('\n')).toBe(true);
    await standby.waitForLine(consuming, LEASE_TTL_MS);
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE_TTL_MS / 2);

    const response = await fetch(`${httpBase(standby)}/v1/agents/counter/events/after-handover`, { method: 'POST', headers: bearer(undefined, { 'content-type': 'application/json' }), body: JSON.stringify({ n: 0 }) });
    expect(response.status).toBe(202);
    await until(async () => (await readStream(cluster.client.nc, 'AGENTS_OUTPUT', 'agents.output.counter.after-handover')).length === 1, 10_000, 'the output after the handover', 10);
  });
});
