// Layer 3, chaos: one of three clustered nats-servers is SIGKILLed mid-run; only real servers in a JetStream cluster show stream and KV leader elections, client failover and replicated state under the runtime.
//
// Three private nats-servers form a cluster on loopback; every stream and bucket is provisioned
// with three replicas. One ingress and one activator connect with all three URLs. Events flow per
// key strictly in order (the publisher retries a publish whose ack was lost under the same msg
// id, so a retry is deduplicated, never stored twice). Once a third of the outputs are stored,
// the server leading the inbox stream is SIGKILLed while the first half of the events is still
// being processed, and the second half is published into the two-server cluster. After the
// last output the killed server is restarted and one more event per key goes through the whole
// cluster again. Per key: every event applied exactly once and in order, each output stored once.
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { AgentsClient } from '#client';
import { startService, type NatsServerHandle, type ServiceHandle } from '../harness/index.js';
import { chaosSize, currentStates, exactlyOnceViolations, LEASE_TTL_MS, readAll, startActivator, startNatsCluster, waitUntil } from './chaos-support.js';

const KEYS = chaosSize('CHAOS_CLUSTER_KEYS', 200, 1_000);
const EVENTS_PER_KEY = chaosSize('CHAOS_CLUSTER_EVENTS_PER_KEY', 10, 30);
/** Few partitions: every one of them is re-created (lease, consumer) when the leases are lost with a server. */
const PARTITIONS = 4;
/**
 * Bound on each phase. Generous: nats-server 2.9 takes about 10 s to elect new stream leaders
 * after a node dies, the 3 s leases are lost meanwhile, and on two busy cores re-creating a
 * partition consumer in the degraded cluster was seen to take 5–10 s more.
 */
const PHASE_MS = Math.max(60_000, KEYS * EVENTS_PER_KEY * 10);
const TIMEOUT_MS = 3 * PHASE_MS + KEYS * EVENTS_PER_KEY * 20;
const REPLICATED = ['AGENTS_INGEST', 'AGENTS_INBOX', 'AGENTS_OUTPUT', 'KV_AGENTS_STATE', 'KV_AGENTS_LEASES', 'KV_AGENTS_MEMBERS', 'KV_AGENTS_TIMERS'];

/** True once every replica of `stream` is back and current. */
async function replicasCurrent(jsm: JetStreamManager, stream: string): Promise<boolean> {
  const { cluster } = await jsm.streams.info(stream);
  const replicas = cluster?.replicas ?? [];
  return cluster?.leader !== undefined && replicas.length === 2 && replicas.every((r) => r.current && !r.offline);
}

describe('the runtime on a three-node nats-server cluster', () => {
  it(
    'applies every event exactly once and in order while the inbox leader is SIGKILLed mid-run, and carries on once it is back',
    async () => {
      const servers: NatsServerHandle[] = await startNatsCluster(3);
      const url = servers.map((s) => s.url).join(',');
      const env = {
        NATS_URL: url,
        AGENTS_PARTITIONS: String(PARTITIONS),
        AGENTS_MODULES: 'test/fixtures/agents/counter.agent.mjs',
        AGENTS_HTTP_PORT: '0',
        AGENTS_REPLICAS: '3',
        AGENTS_LEASE_TTL_MS: String(LEASE_TTL_MS),
      };
      const services: ServiceHandle[] = [];
      let client: AgentsClient | undefined;
      const t0 = Date.now();
      const marks: string[] = [];
      const mark = (what: string): void => {
        marks.push(`${what} +${Date.now() - t0} ms`);
      };
      try {
        // One ingress (it is a single consumer of the ingest stream), one activator.
        services.push(await startService('ingress', env));
        services.push(await startActivator(env, 'clustered'));
        client = await AgentsClient.connect({ url, partitions: PARTITIONS });
        const nc = client.nc;
        const jsm = await jetstreamManager(nc, { timeout: 5_000 });
        for (const stream of REPLICATED) expect((await jsm.streams.info(stream)).config.num_replicas, stream).toBe(3);

        const keys = Array.from({ length: KEYS }, (_, i) => `c${i}`);
        // A publish whose ack is lost (leader election, reconnect) is retried under the same msg id.
        const publish = async (key: string, n: number): Promise<void> => {
          const deadline = Date.now() + 60_000;
          for (;;) {
            try {
              await client!.publishEvent('counter', key, { n }, { msgId: `${key}#${n}` });
              return;
            } catch (error) {
              if (Date.now() > deadline) throw error;
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
          }
        };
        const stored = async (): Promise<number> => {
          try {
            return (await jsm.streams.info('AGENTS_OUTPUT')).state.messages;
          } catch {
            return -1; // the stream's leader is being elected: ask again
          }
        };
        const total = KEYS * EVENTS_PER_KEY;
        // The second half of the events is published only after the kill, into the degraded cluster.
        let killed!: () => void;
        const afterKill = new Promise<void>((resolve) => (killed = resolve));
        const publishing = (async () => {
          for (let n = 0; n < EVENTS_PER_KEY; n += 1) {
            if (n === Math.floor(EVENTS_PER_KEY / 2)) await afterKill;
            await Promise.all(keys.map((key) => publish(key, n)));
          }
        })();

        await waitUntil(async () => (await stored()) >= total / 3, PHASE_MS, 'a third of the outputs');
        const leader = (await jsm.streams.info('AGENTS_INBOX')).cluster?.leader;
        const victim = servers.find((_, i) => leader === `chaos-n${i + 1}`);
        expect(victim, `the inbox leader ${leader}`).toBeDefined();
        await victim!.kill();
        mark(`killed ${leader}`);
        killed();
        const atKill = Math.max(0, await stored());
        // Processing goes on with two servers: more outputs, then all of them.
        await waitUntil(async () => (await stored()) > atKill + KEYS, PHASE_MS, 'outputs after the kill');
        mark('flowing again');
        await publishing;
        await waitUntil(async () => (await stored()) >= total, PHASE_MS, `all ${total} outputs`);
        mark('all outputs');

        // The killed server comes back and catches up; one more event per key goes through.
        await victim!.restart();
        mark('restarted');
        await waitUntil(async () => (await Promise.all(REPLICATED.map((s) => replicasCurrent(jsm, s).catch(() => false)))).every(Boolean), 60_000, 'every replica to be current again');
        mark('replicas current');
        await Promise.all(keys.map((key) => publish(key, EVENTS_PER_KEY)));
        await waitUntil(async () => (await stored()) >= total + KEYS, 60_000, 'the outputs of the last round');
        mark('last round');

        const outputs = await readAll(nc, 'AGENTS_OUTPUT');
        expect(outputs).toHaveLength(total + KEYS);
        expect(exactlyOnceViolations(outputs, new Map(keys.map((key) => [key, EVENTS_PER_KEY + 1])), await currentStates(nc))).toEqual([]);
        expect((await jsm.streams.info('AGENTS_ERRORS')).state.messages).toBe(0);
        if (process.env.CHAOS_REPORT === '1') process.stderr.write(`[chaos] cluster: ${KEYS * (EVENTS_PER_KEY + 1)} events: ${marks.join(', ')}\n`);
      } finally {
        await client?.close().catch(() => undefined);
        await Promise.all(services.map((s) => s.kill()));
        await Promise.all(servers.map((s) => s.stop()));
      }
    },
    TIMEOUT_MS,
  );
});
