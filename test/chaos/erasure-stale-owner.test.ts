// Layer 3, chaos: an erasure while the key's owner is frozen mid-activation; only a real process under SIGSTOP shows that the eraser does not wait forever on a member that stopped answering, and that the frozen owner, once resumed, cannot bring the erased key back.
//
// Two activators share the partitions. Key `k` lives on `a2`, which is running a slow activation
// for it when it is frozen with SIGSTOP. The erasure asks every member to acknowledge the pause:
// `a2` cannot, so the eraser waits until `a2`'s membership lapses (one lease TTL) and then erases
// with `a1` alone, which meanwhile takes `a2`'s partitions over and holds the redelivered element
// behind the pause. When `a2` is resumed its activation finishes and tries to commit: the lease
// guard refuses it. Nothing of `k` may reappear — no state, no output — and `k` starts afresh.
import { jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { describe, expect, it } from 'vitest';
import { encodeKeyToken, keyFromText } from '#routing';
import { collect, readStream, startCluster, type ServiceHandle } from '../harness/index.js';
import { counterStateKey, counterSubject, LEASE_TTL_MS, releases, reportedPartitions, startActivator, waitUntil } from './chaos-support.js';

const PARTITIONS = 4;
const SLOW_MS = 6_000;
const text = new TextDecoder();

describe('an erasure while the key\'s owner is frozen', () => {
  it('completes without the frozen member, and the resumed owner writes nothing of the erased key', async () => {
    await using cluster = await startCluster({
      agentModules: ['test/fixtures/agents/counter.agent.mjs'],
      partitions: PARTITIONS,
      services: ['memory-store', 'ingress'],
      env: { AGENTS_LEASE_TTL_MS: String(LEASE_TTL_MS) },
    });
    const nc = cluster.client.nc;
    const jsm = await jetstreamManager(nc);
    const started: ServiceHandle[] = [];
    let frozen: ServiceHandle | undefined;
    try {
      const a1 = await startActivator(cluster.env, 'a1');
      started.push(a1);
      const a2 = await startActivator(cluster.env, 'a2');
      started.push(a2);
      await waitUntil(
        () => (reportedPartitions(a1)?.length ?? 0) + (reportedPartitions(a2)?.length ?? 0) === PARTITIONS && (reportedPartitions(a2)?.length ?? 0) > 0,
        30_000,
        'the two activators to split the partitions',
      );
      const onA2 = new Set(reportedPartitions(a2));
      const key = Array.from({ length: 64 }, (_, i) => `frozen-${i}`).find((k) => onA2.has(cluster.client.topology.partitionOf(encodeKeyToken(keyFromText(k)))))!;

      const outputs = await collect(nc, counterSubject(key));
      await cluster.client.publishEvent('counter', key, { n: 0 });
      await outputs.waitForCount(1, 15_000);
      // A slow activation of the key is running on a2 when it is frozen.
      await cluster.client.publishEvent('counter', key, { n: 1, sleepMs: SLOW_MS });
      await waitUntil(
        async () => {
          let pending = 0;
          for await (const c of jsm.consumers.list('AGENTS_INBOX') as AsyncIterable<ConsumerInfo | null>) pending += c?.num_ack_pending ?? 0;
          return pending === 1;
        },
        SLOW_MS / 2,
        'the slow activation in flight',
      );
      process.kill(a2.process.pid!, 'SIGSTOP');
      frozen = a2;

      const report = await cluster.client.erase(key, { requestedBy: 'chaos', timeoutMs: 60_000 });
      expect(report.erased).toMatchObject({ KV_AGENTS_STATE: 1 });

      process.kill(a2.process.pid!, 'SIGCONT');
      frozen = undefined;
      // The resumed owner finds its leases gone and drops the key's partition without committing.
      await waitUntil(
        () => releases(a2).some((r) => onA2.has(r.partition) && r.reason === 'lost'),
        15_000,
        () => `a2 to drop its partitions as lost; released: ${JSON.stringify(releases(a2))}`,
      );
      // Give a late commit or publish every chance to show up, then look.
      await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_TTL_MS));
      const state = await (await new Kvm(nc).open('AGENTS_STATE')).get(counterStateKey(key));
      expect(state === null || state.operation !== 'PUT', 'the erased key has no state').toBe(true);
      expect(await readStream(nc, 'AGENTS_OUTPUT', counterSubject(key))).toEqual([]);
      expect(await readStream(nc, 'AGENTS_INBOX')).not.toContainEqual(expect.objectContaining({ subject: expect.stringContaining(encodeKeyToken(keyFromText(key))) as unknown }));

      // The key starts afresh.
      await cluster.client.publishEvent('counter', key, { n: 0 });
      const after = await outputs.waitForCount(2, 15_000);
      expect(JSON.parse(text.decode(after[after.length - 1]!.data))).toMatchObject({ n: 0, count: 1 });
    } finally {
      if (frozen !== undefined) process.kill(frozen.process.pid!, 'SIGCONT');
      await Promise.all(started.map((h) => h.kill()));
    }
  }, 120_000);
});
