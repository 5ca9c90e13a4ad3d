// Layer 3, chaos: keys suspended on deadlines and on tool intents outlive the SIGKILL of their owner; only a real process crash shows that the successor rebuilds the timer schedule from the KV index and resumes the keys.
//
// One activator holds every partition while keys suspend: half on an approval whose deadline is
// placed by the event time (as the lifecycle suite does) a few seconds ahead, half on a tool
// intent. It is SIGKILLed (no drain, no hand-back), then the tool results are published and a new
// activator starts; it gets the partitions once the dead one's leases lapse. The deadlines must
// fire from the successor's rebuilt schedule, every tool result must resume its key there, and
// every key must produce exactly one output, stored once.
import { jetstreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { decodeActorDocument } from '#core';
import { answerTool, startCluster, storedIntents, type ServiceHandle } from '../harness/index.js';
import { LEASE_TTL_MS, linesMatching, readAll, reportedPartitions, startActivator, waitUntil } from './chaos-support.js';

const PARTITIONS = 4;
/** How far ahead of the publish the approval deadlines fall: after the kill, around the takeover. */
const DEADLINE_AHEAD_MS = 6_000;
const DEADLINE_KEYS = Array.from({ length: 10 }, (_, i) => `deadline-${i}`);
const TOOL_KEYS = Array.from({ length: 10 }, (_, i) => `tool-${i}`);
const text = new TextDecoder();

describe('suspended keys on a SIGKILLed activator', () => {
  it('still time out on their deadlines and still resume on tool results, on the new owner', async () => {
    await using cluster = await startCluster({
      agentModules: ['test/fixtures/agents/lifecycle.agent.mjs'],
      modelScript: 'test/fixtures/models/echo-model.mjs',
      partitions: PARTITIONS,
      services: ['ingress'],
      env: { AGENTS_LEASE_TTL_MS: String(LEASE_TTL_MS) },
    });
    const nc = cluster.client.nc;
    const jsm = await jetstreamManager(nc);
    const started: ServiceHandle[] = [];
    try {
      const first = await startActivator(cluster.env, 'first');
      started.push(first);
      await waitUntil(() => reportedPartitions(first)?.length === PARTITIONS, 15_000, 'the first activator to own every partition');

      // Suspend every key on the first activator: approvals with a deadline a few seconds ahead
      // (deadline = event time + timeoutMs), and tool calls (default 24 h deadline).
      const publishedAt = Date.now();
      await Promise.all(DEADLINE_KEYS.map((key) => cluster.client.publishEvent('lifecycle', key, { script: 'approval', timeoutMs: DEADLINE_AHEAD_MS })));
      await Promise.all(TOOL_KEYS.map((key) => cluster.client.publishEvent('lifecycle', key, { script: 'tool', amount: 7 })));
      const intents = await waitUntil(
        async () => {
          const found = await Promise.all(TOOL_KEYS.map(async (key) => (await storedIntents(cluster.client, 'lifecycle', key))[0]));
          const approvals = await Promise.all(DEADLINE_KEYS.map(async (key) => (await storedIntents(cluster.client, 'lifecycle', key)).length));
          return found.every((i) => i !== undefined) && approvals.every((n) => n === 1) ? found : undefined;
        },
        DEADLINE_AHEAD_MS / 2,
        'every key to suspend on the first activator',
      );
      expect((await jsm.streams.info('AGENTS_OUTPUT')).state.messages).toBe(0);

      // Crash the owner well before the deadlines, then answer the tools while nobody owns anything.
      expect(Date.now() - publishedAt).toBeLessThan(DEADLINE_AHEAD_MS - 1_500);
      await first.kill();
      await Promise.all(intents.map((intent) => answerTool(cluster.client, intent!, 'after-kill')));

      const second = await startActivator(cluster.env, 'second');
      started.push(second);
      const outputs = (): Promise<Map<string, string[]>> =>
        readAll(nc, 'AGENTS_OUTPUT').then((stored) => {
          const byKey = new Map<string, string[]>();
          for (const m of stored) {
            const key = m.subject.slice('agents.output.lifecycle.'.length);
            byKey.set(key, [...(byKey.get(key) ?? []), text.decode(m.data)]);
          }
          return byKey;
        });
      const all = [...DEADLINE_KEYS, ...TOOL_KEYS];
      const done = await waitUntil(async () => {
        const byKey = await outputs();
        return all.every((key) => byKey.has(key)) ? byKey : undefined;
      }, 30_000, 'an output for every suspended key');

      // The successor rebuilt the schedule of every suspended key from the timer index…
      expect(reportedPartitions(second)).toEqual([0, 1, 2, 3]);
      const rescheduled = linesMatching(second, /partition \d+: \d+ keys with timers rescheduled/).reduce((sum, line) => sum + Number(/: (\d+) keys/.exec(line)![1]), 0);
      expect(rescheduled).toBe(all.length);
      // …fired each deadline there (deny: the agent resumes timed out), and resumed each tool call.
      for (const key of DEADLINE_KEYS) expect(done.get(key), key).toEqual(['timeout-denied:approval']);
      for (const key of TOOL_KEYS) expect(done.get(key), key).toEqual(['resumed:ok:"after-kill"']);
      // Nothing else was produced, and no key is left suspended or holding a timer.
      expect((await readAll(nc, 'AGENTS_OUTPUT')).length).toBe(all.length);
      expect((await jsm.streams.info('AGENTS_ERRORS')).state.messages).toBe(0);
      for (const m of await readAll(nc, 'KV_AGENTS_STATE')) {
        const doc = decodeActorDocument(m.data);
        expect({ key: m.subject, timers: doc.timers.length, suspended: doc.continuation !== undefined }).toEqual({ key: m.subject, timers: 0, suspended: false });
      }
    } finally {
      await Promise.all(started.map((h) => h.kill()));
    }
  }, 90_000);
});
