/**
 * `npm run bench`: one run, one private nats-server, two systems measured the same way.
 *
 * 1. Start a private nats-server (free loopback ports, temp store, max_payload 8 MiB).
 * 2. For each system (the runtime's ingress + activator (+ effector) processes, then the
 *    bare-JetStream baseline's forwarder + worker (+ effector) processes): start it, run the
 *    phases (see `phases.ts`), record a sample key's stored state size, stop it.
 * 3. The activators dimension: for each count in `--activators`, the runtime with that many
 *    activator processes, once they own the partitions as assigned, runs the no-op throughput phase.
 * 4. The live-keys dimension: for each count in `--live-keys` (ascending), make that many keys live
 *    in both state buckets, measure bare KV updates over them, then the no-op throughput phase of
 *    each system over them.
 * 5. Compare, write `bench/results/<timestamp>.json` and `bench/results/latest.md`, print the
 *    markdown on stdout (progress goes to stderr). Any missing output, error record or dead
 *    process fails the run with a non-zero exit.
 */
import { jetstream, jetstreamManager, StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTopology } from '#routing';
import { MODEL_AGENT, NOOP_AGENT, TOOL_AGENT } from './agents/bench-agents.js';
import { startBaselineSystem } from './baseline/baseline-system.js';
import { BaselineNames } from './baseline/baseline-topology.js';
import { parseBenchOptions, type BenchOptions } from './bench-options.js';
import { machineFacts } from './infra/machine-facts.js';
import { startNatsServer, type BenchNatsServer } from './infra/nats-server.js';
import { bareKvUpdates, liveKeyToken, prepopulateLiveKeys, refreshRevisions, spreadIndices } from './live-keys/live-keys.js';
import { keyTokens, needsEffector, planLiveKeysPhase, planPhases, runPhase, type PhaseContext, type PhasePlan } from './phases.js';
import { RESULT_FORMAT, type ActivatorsRow, type BenchResult, type LiveKeysRow, type PhaseResult, type SystemResult } from './report/bench-result.js';
import { compareSystems } from './report/compare-systems.js';
import { renderMarkdown } from './report/markdown-report.js';
import { writeResults } from './report/write-results.js';
import { startRuntimeSystem } from './runtime/runtime-system.js';
import { storedStateBytes } from './state-size.js';
import type { SystemName, SystemUnderTest } from './system-under-test.js';

/** The repository root (this file runs from `dist/bench/run.js`). */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const log = (message: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

/** What a system start may vary between measurements. */
interface StartShape {
  readonly activators: number;
  readonly effector: boolean;
}

async function startSystem(name: SystemName, server: BenchNatsServer, options: BenchOptions, nc: NatsConnection, shape: StartShape): Promise<SystemUnderTest> {
  if (name === 'runtime') {
    return startRuntimeSystem({
      repoRoot: REPO_ROOT,
      natsUrl: server.url,
      partitions: options.partitions,
      modelLatencyMs: options.modelLatencyMs,
      activators: shape.activators,
      effector: shape.effector,
      activationTimeoutMs: options.activationTimeoutMs,
      nodeFlags: options.nodeFlags,
      extraEnv: options.serviceEnv,
      log,
    });
  }
  return startBaselineSystem(nc, {
    repoRoot: REPO_ROOT,
    natsUrl: server.url,
    partitions: options.baselinePartitions,
    forwarderMaxAckPending: options.runtimeDefaults.ingress.maxAckPending,
    // The runtime's total in-flight capacity (P × max_ack_pending), spread over the baseline's consumers.
    workerMaxAckPending: Math.ceil((options.partitions * options.runtimeDefaults.activator.maxAckPending) / options.baselinePartitions),
    effector: shape.effector,
    effectorMaxAckPending: options.runtimeDefaults.effector.maxInFlight,
    effectsTtlMs: options.runtimeDefaults.effector.resultTtlMs,
    modelLatencyMs: options.modelLatencyMs,
    duplicateWindowMs: options.runtimeDefaults.streams.duplicateWindowMs,
    maxAgeMs: options.runtimeDefaults.streams.inboxMaxAgeMs,
    noAsyncTraces: !options.baselineAsyncTraces,
    nodeFlags: options.nodeFlags,
  });
}

/** Everything the measurements share. */
interface Bench {
  readonly options: BenchOptions;
  readonly server: BenchNatsServer;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
}

/** Starts `name`, runs `plans` against it, hands the running system to `after`, and stops it (also on failure). */
async function withSystem<T>(bench: Bench, name: SystemName, shape: StartShape, plans: readonly PhasePlan[], after: (system: SystemUnderTest, phases: PhaseResult[]) => Promise<T>): Promise<T> {
  log(`starting ${name}${shape.activators > 1 ? ` with ${shape.activators} activators` : ''}`);
  const system = await startSystem(name, bench.server, bench.options, bench.nc, shape);
  try {
    const context: PhaseContext = {
      nc: bench.nc,
      js: bench.js,
      jsm: bench.jsm,
      system,
      sharedParticipants: [
        { name: 'nats-server', pid: bench.server.pid },
        { name: 'load-generator', pid: process.pid },
      ],
      stallTimeoutMs: bench.options.stallTimeoutMs,
      log,
    };
    const phases: PhaseResult[] = [];
    for (const plan of plans) phases.push(await runPhase(context, plan));
    return await after(system, phases);
  } finally {
    log(`stopping ${name}`);
    await system.stop();
  }
}

async function measureSystems(bench: Bench): Promise<SystemResult[]> {
  const { options } = bench;
  const plans = planPhases(options);
  if (plans.length === 0) return [];
  const systems: SystemResult[] = [];
  for (const name of options.systems) {
    systems.push(
      await withSystem(bench, name, { activators: 1, effector: needsEffector(plans) }, plans, async (system, phases) => {
        const stateBytes: Record<string, number> = {};
        for (const agent of [NOOP_AGENT, MODEL_AGENT, TOOL_AGENT]) {
          const sampleKey = plans.find((p) => p.agent === agent && p.phase.endsWith('-throughput'))?.keys[0];
          if (sampleKey !== undefined) Object.assign(stateBytes, await storedStateBytes(bench.nc, system, [agent], sampleKey));
        }
        return { system: name, partitions: name === 'runtime' ? options.partitions : options.baselinePartitions, phases, stateBytes };
      }),
    );
  }
  return systems;
}

async function measureActivators(bench: Bench): Promise<ActivatorsRow[]> {
  const { options } = bench;
  if (!options.systems.includes('runtime')) return [];
  const rows: ActivatorsRow[] = [];
  for (const activators of options.activators) {
    const plan: PhasePlan = {
      phase: 'noop-throughput',
      variant: `a${activators}`,
      agent: NOOP_AGENT,
      keys: keyTokens('tp', options.keys),
      warmup: { kind: 'window', events: options.warmupEvents, window: options.window },
      measured: { kind: 'window', events: options.events, window: options.window },
      modelLatencyMs: 0,
    };
    rows.push(
      await withSystem(bench, 'runtime', { activators, effector: false }, [plan], async (system, [phase]) => {
        if (phase === undefined) throw new Error('the activators phase did not run');
        return { activators, ownershipSettledMs: system.ownership?.settledMs ?? 0, partitionsByMember: system.ownership?.partitionsByMember ?? {}, phase };
      }),
    );
  }
  return rows;
}

async function measureLiveKeys(bench: Bench): Promise<LiveKeysRow[]> {
  const { options } = bench;
  if (options.liveKeys.length === 0) return [];
  const kvm = new Kvm(bench.nc);
  const runs = options.systems;
  const stateBucket = createTopology({ partitions: options.partitions }).buckets.state;
  // The runtime provisions its own bucket: start it once if the main phases did not.
  if (runs.includes('runtime')) {
    const exists = await bench.jsm.streams.info(`KV_${stateBucket}`).then(
      () => true,
      () => false,
    );
    if (!exists) await withSystem(bench, 'runtime', { activators: 1, effector: false }, [], () => Promise.resolve());
  }
  // The bare updates always need the baseline's bucket (created as the baseline provisions it; idempotent).
  const baselineStore = await kvm.create(BaselineNames.stateBucket, { history: 1, storage: StorageType.File, replicas: 1 });
  const stores = {
    runtime: runs.includes('runtime') ? await kvm.open(stateBucket, { bindOnly: true }) : undefined,
    baseline: runs.includes('baseline') ? baselineStore : undefined,
    partitions: options.partitions,
  };
  const maxKeys = options.liveKeys[options.liveKeys.length - 1] ?? 0;
  const revisions = new Float64Array(maxKeys);
  const rows: LiveKeysRow[] = [];
  let live = 0;
  for (const liveKeys of options.liveKeys) {
    log(`live keys ${liveKeys.toLocaleString('en-US')}: writing ${(liveKeys - live).toLocaleString('en-US')} more keys into ${stores.runtime === undefined ? 'the baseline bucket' : 'both state buckets'}`);
    const prepopulateMs = await prepopulateLiveKeys({ ...stores, baseline: baselineStore }, live, liveKeys, revisions);
    const prepopulated = liveKeys - live;
    live = liveKeys;
    log(`live keys ${liveKeys.toLocaleString('en-US')}: written in ${(prepopulateMs / 1_000).toFixed(1)} s; bare KV updates, ${options.bareKvInFlight} in flight`);
    const bare = await bareKvUpdates(baselineStore, liveKeys, revisions, options.bareKvUpdates, options.bareKvInFlight, liveKeys);
    log(`live keys ${liveKeys.toLocaleString('en-US')}: bare KV ${bare.perSecond.toFixed(0)} updates/s (${bare.rereads} re-read)`);
    const touched = spreadIndices(options.events, liveKeys);
    const keys = touched.map(liveKeyToken);
    const plan = planLiveKeysPhase(options, liveKeys, keys);
    const measured: Partial<Record<SystemName, PhaseResult>> = {};
    for (const name of runs) {
      measured[name] = await withSystem(bench, name, { activators: 1, effector: false }, [plan], (_system, [phase]) => Promise.resolve(phase));
    }
    if (stores.baseline !== undefined) await refreshRevisions(baselineStore, touched, revisions);
    rows.push({
      liveKeys,
      prepopulated,
      prepopulateMs,
      bareKv: { updates: options.bareKvUpdates, inFlight: options.bareKvInFlight, perSecond: bare.perSecond },
      runtime: measured.runtime,
      baseline: measured.baseline,
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv, join(REPO_ROOT, 'bench', 'results'));
  const startedAt = new Date().toISOString();
  const machine = machineFacts(REPO_ROOT);
  log(`${machine.cpuModel} × ${machine.cores}, Node ${machine.node}, nats-server ${machine.natsServer}`);
  const server = await startNatsServer();
  log(`private nats-server at ${server.url} (store ${server.dir})`);
  const nc = await connect({ servers: server.url, name: 'bench-load-generator' });
  const bench: Bench = { options, server, nc, js: jetstream(nc), jsm: await jetstreamManager(nc) };
  let systems: SystemResult[];
  let activators: ActivatorsRow[];
  let liveKeys: LiveKeysRow[];
  try {
    systems = await measureSystems(bench);
    activators = await measureActivators(bench);
    liveKeys = await measureLiveKeys(bench);
  } finally {
    await nc.close().catch(() => undefined);
    await server.stop();
  }

  const runtime = systems.find((s) => s.system === 'runtime');
  const baseline = systems.find((s) => s.system === 'baseline');
  const result: BenchResult = {
    format: RESULT_FORMAT,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine,
    options,
    systems,
    comparison: runtime !== undefined && baseline !== undefined ? compareSystems(runtime, baseline) : undefined,
    activators,
    liveKeys,
  };
  const markdown = renderMarkdown(result);
  const written = await writeResults(options.resultsDir, result, markdown);
  process.stdout.write(markdown);
  log(`wrote ${written.json} and ${written.markdown}`);
}

main().catch((error: unknown) => {
  log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
