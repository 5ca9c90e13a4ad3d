/**
 * `npm run bench:partitions`: what the partition count P costs one activator on this machine.
 * For each P it starts a private nats-server and one real activator, and reports how long the
 * activator took to own all P partitions (consumer creation and lease acquisition), then, idle
 * for a fixed window, the CPU the activator and nats-server burn per second and the lease writes
 * per second (renewals every third of the lease TTL). These are the fixed costs that bound P;
 * the balance that P buys is `npm run bench:assignment`.
 */
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { startNatsServer } from '../infra/nats-server.js';
import { startNodeProcess } from '../infra/node-process.js';
import { processCpuMs } from '../infra/process-cpu.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..');
const COUNTS = (process.env.BENCH_PARTITIONS ?? '16,64,256,1024').split(',').map(Number);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 20_000);
const LEASE_TTL_MS = 15_000;

interface Row {
  readonly partitions: number;
  readonly ownAllMs: number;
  readonly activatorCpuPct: number;
  readonly natsCpuPct: number;
  readonly leaseWritesPerSec: number;
}

async function measure(partitions: number): Promise<Row> {
  const server = await startNatsServer();
  try {
    const startedAt = performance.now();
    const activator = await startNodeProcess({
      name: 'activator',
      script: join(ROOT, 'dist', 'apps', 'activator', 'src', 'main.js'),
      cwd: ROOT,
      env: {
        NATS_URL: server.url,
        AGENTS_PARTITIONS: String(partitions),
        AGENTS_MODULES: join(ROOT, 'dist', 'bench', 'agents', 'noop.agent.js'),
        AGENTS_LEASE_TTL_MS: String(LEASE_TTL_MS),
        AGENTS_OPS_PORT: '0',
        LOG_LEVEL: 'info',
      },
      ready: new RegExp(`owns ${partitions} partitions`),
      readyTimeoutMs: 300_000,
    });
    const ownAllMs = performance.now() - startedAt;
    try {
      const nc = await connect({ servers: server.url });
      const jsm = await jetstreamManager(nc);
      const leaseSeq = async (): Promise<number> => (await jsm.streams.info('KV_AGENTS_LEASES')).state.last_seq;
      await sleep(2_000);
      const cpu0 = [processCpuMs(activator.pid) ?? 0, processCpuMs(server.pid) ?? 0];
      const seq0 = await leaseSeq();
      const t0 = performance.now();
      await sleep(IDLE_MS);
      const seconds = (performance.now() - t0) / 1_000;
      const cpu1 = [processCpuMs(activator.pid) ?? 0, processCpuMs(server.pid) ?? 0];
      const seq1 = await leaseSeq();
      await nc.close();
      return {
        partitions,
        ownAllMs,
        activatorCpuPct: (cpu1[0]! - cpu0[0]!) / 10 / seconds,
        natsCpuPct: (cpu1[1]! - cpu0[1]!) / 10 / seconds,
        leaseWritesPerSec: (seq1 - seq0) / seconds,
      };
    } finally {
      await activator.stop();
    }
  } finally {
    await server.stop();
  }
}

const rows: Row[] = [];
for (const p of COUNTS) {
  process.stderr.write(`P=${p}…\n`);
  rows.push(await measure(p));
}
const lines = [
  `| P | own all partitions (s) | activator CPU idle (% of a core) | nats-server CPU idle (% of a core) | lease writes/s |`,
  '|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.partitions} | ${(r.ownAllMs / 1_000).toFixed(1)} | ${r.activatorCpuPct.toFixed(1)} | ${r.natsCpuPct.toFixed(1)} | ${r.leaseWritesPerSec.toFixed(1)} |`),
  '',
  `one activator, lease TTL ${LEASE_TTL_MS} ms, idle window ${IDLE_MS} ms`,
];
process.stdout.write(`${lines.join('\n')}\n`);
