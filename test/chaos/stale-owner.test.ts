// Layer 3, chaos: a paused activator resumes after its leases expired and a successor took over; only a real process frozen with SIGSTOP shows what a stale owner's in-flight work does on resume.
//
// Activator `stale` owns every partition and holds activations in flight (the counter agent
// sleeps inside them) when it is frozen with SIGSTOP. Its leases lapse, `fresh` takes the
// partitions over (new epochs, consumers restarted from the ack floor) and re-runs the held
// events: the short ones (SLOW_MS) it commits before `stale` is resumed, the long ones (SLOWER_MS)
// are still running in `fresh` when it is. On SIGCONT the stale process's activations finish at
// once, so it tries to commit both kinds: the first over state a newer epoch wrote, the second over
// state nobody has written since it read it. Neither may land: no state document may be written
// under any epoch the stale owner held, it must drop every partition, and per key every event is
// still applied exactly once, in order. Then every key gets one more event, with the stale
// process back as an ordinary member (it rejoins and may be handed partitions under new epochs).
import { jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { startCluster, type ServiceHandle } from '../harness/index.js';
import {
  acquisitions,
  counterStateKey,
  currentStates,
  exactlyOnceViolations,
  LEASE_TTL_MS,
  readAll,
  recordStateWrites,
  releases,
  reportedPartitions,
  startActivator,
  waitUntil,
} from './chaos-support.js';

const PARTITIONS = 4;
/** Held activations `fresh` finishes before the stale process resumes. */
const SLOW_MS = 2_500;
/** Held activations still running in `fresh` when the stale process resumes. */
const SLOWER_MS = 8_000;
const FAST = Array.from({ length: 8 }, (_, i) => `fast-${i}`);
const SLOW = Array.from({ length: 6 }, (_, i) => `slow-${i}`);
const SLOWER = Array.from({ length: 6 }, (_, i) => `slower-${i}`);

describe('a stale activator resumed after its leases expired', () => {
  it('is fenced: it writes no state and publishes nothing new, drops its partitions, and every event is still applied once', async () => {
    await using cluster = await startCluster({
      agentModules: ['test/fixtures/agents/counter.agent.mjs'],
      partitions: PARTITIONS,
      services: ['ingress'],
      env: { AGENTS_LEASE_TTL_MS: String(LEASE_TTL_MS) },
    });
    const nc = cluster.client.nc;
    const jsm = await jetstreamManager(nc);
    const outputsStored = async (): Promise<number> => (await jsm.streams.info('AGENTS_OUTPUT')).state.messages;
    const publish = (keys: readonly string[], n: number, sleepMs = 0) => Promise.all(keys.map((key) => cluster.client.publishEvent('counter', key, { n, ...(sleepMs > 0 ? { sleepMs } : {}) })));
    const started: ServiceHandle[] = [];
    let frozen: ServiceHandle | undefined;
    try {
      const stale = await startActivator(cluster.env, 'stale');
      started.push(stale);
      await waitUntil(() => reportedPartitions(stale)?.length === PARTITIONS, 15_000, 'the stale-to-be activator to own every partition');

      // It commits some state of its own, then takes the slow events and holds them in flight.
      await publish(FAST, 0);
      await waitUntil(async () => (await outputsStored()) === FAST.length, 15_000, 'the first outputs');
      await publish(SLOW, 0, SLOW_MS);
      await publish(SLOWER, 0, SLOWER_MS);
      const held = SLOW.length + SLOWER.length;
      await waitUntil(
        async () => {
          let pending = 0;
          for await (const c of jsm.consumers.list('AGENTS_INBOX') as AsyncIterable<ConsumerInfo | null>) pending += c?.num_ack_pending ?? 0;
          return pending === held;
        },
        SLOW_MS / 2,
        `${held} activations in flight`,
      );
      process.kill(stale.process.pid!, 'SIGSTOP');
      frozen = stale;
      const staleEpochs = new Set(acquisitions(stale).map((a) => a.epoch));
      const staleHeld = reportedPartitions(stale) ?? [];
      const writes = await recordStateWrites(nc);

      // A successor takes over once the leases lapse and re-runs what was held; new events flow.
      started.push(await startActivator(cluster.env, 'fresh'));
      await publish(FAST, 1);
      const byFresh = (keys: readonly string[]) => keys.every((key) => writes.writes.some((w) => w.stateKey === counterStateKey(key) && w.ownerEpoch > Math.max(...staleEpochs)));
      await waitUntil(() => byFresh(SLOW) && byFresh(FAST), 30_000, 'the successor to commit the slow and the new fast events');
      // Precondition of the second half: the slower activations are still running in `fresh`.
      expect(writes.writes.filter((w) => SLOWER.some((key) => counterStateKey(key) === w.stateKey))).toEqual([]);
      const beforeResume = await currentStates(nc);

      process.kill(stale.process.pid!, 'SIGCONT');
      frozen = undefined;
      // It notices its leases are gone and drops every partition it held.
      await waitUntil(
        () => staleHeld.every((p) => releases(stale).some((r) => r.partition === p && r.reason === 'lost')),
        15_000,
        () => `the resumed activator to drop partitions [${staleHeld.join(',')}] as lost; released: ${JSON.stringify(releases(stale))}`,
      );
      await waitUntil(async () => (await outputsStored()) === FAST.length * 2 + held, 30_000, 'the slower activations to complete in the successor');
      const afterResume = await currentStates(nc);
      // What the successor had committed before the resume is untouched: same revisions, same epochs.
      for (const key of [...FAST, ...SLOW]) {
        expect(afterResume.get(counterStateKey(key)), key).toEqual(beforeResume.get(counterStateKey(key)));
      }

      // Liveness with the resumed process back as a member: one more event per key.
      await publish(FAST, 2);
      await publish([...SLOW, ...SLOWER], 1);
      const total = FAST.length * 3 + held * 2;
      await waitUntil(async () => (await outputsStored()) === total, 30_000, `all ${total} outputs`);
      await writes.stop();

      // Nothing was written under an epoch the stale process held, before or after its resume.
      expect(writes.writes.filter((w) => staleEpochs.has(w.ownerEpoch))).toEqual([]);
      // Per key: each event once, in order; each output stored once; state at the event count.
      const expected = new Map<string, number>([...FAST.map((k) => [k, 3] as const), ...[...SLOW, ...SLOWER].map((k) => [k, 2] as const)]);
      const outputs = await readAll(nc, 'AGENTS_OUTPUT');
      expect(outputs).toHaveLength(total);
      expect(exactlyOnceViolations(outputs, expected, await currentStates(nc))).toEqual([]);
    } finally {
      if (frozen !== undefined) process.kill(frozen.process.pid!, 'SIGCONT');
      await Promise.all(started.map((h) => h.kill()));
    }
  }, 120_000);
});
