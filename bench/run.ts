/**
 * `npm run bench`: one run, one private nats-server, two systems measured the same way.
 *
 * 1. Start a private nats-server (free loopback ports, temp store, max_payload 8 MiB).
 * 2. Start both systems side by side (the runtime's ingress + activator (+ effector) processes,
 *    and the bare-JetStream baseline's forwarder + worker (+ effector) processes; the idle one
 *    only heartbeats). Run the phases (see `phases.ts`): each throughput phase as `--pairs`
 *    interleaved pairs (runtime, baseline, runtime, baseline, …; the ratio is taken pair by pair
 *    and the figure is the median pair), each latency phase as pairs too (each delta the median
 *    over the pairs). Record a sample key's stored state size per agent.
 * 3. The tracing dimension: restart the runtime with tracing off and pair its no-op throughput
 *    with the baseline again (the reference); then, for each ratio in `--tracing`, restart it
 *    exporting spans over OTLP (parent-based ratio sampler) to a local receiver and pair it the
 *    same way; the cost is 1 − that ratio ÷ the reference's. Stop both.
 * 4. The activators dimension: for each count in `--activators`, the runtime with that many
 *    activator processes, once they own the partitions as assigned, runs the no-op throughput phase.
 * 5. The live-keys dimension: for each count in `--live-keys` (ascending), make that many keys live
 *    in both state buckets, measure bare KV updates over them, then the no-op throughput phase of
 *    each system over them, as `--pairs` interleaved pairs of fresh processes, each run on keys of
 *    its own (decision 0082).
 * 6. The memory dimension: for each count in `--memory-keys` (ascending), activate that many
 *    distinct keys on one runtime whose cache holds them all, and read the activator's RSS.
 * 7. The hops dimension (`--hops N`): a second nats-server that traces every protocol message;
 *    each system runs `roundtrip-unloaded` for N round trips on it, and the trace gives each hop's
 *    median (`report/hop-timeline.ts`). Stop that server.
 * 8. Compare, write `bench/results/<timestamp>.json` and `bench/results/latest.md`, print the
 *    markdown on stdout (progress goes to stderr). With `--check`, hold the run to
 *    `bench/targets.ts` and exit 1 naming each target missed. Any missing output, error record
 *    or dead process fails the run with a non-zero exit.
 */
import { jetstream, jetstreamManager, StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createTopology } from '#routing';
import { MODEL_AGENT, NOOP_AGENT, TOOL_AGENT } from './agents/bench-agents.js';
import { startBaselineSystem } from './baseline/baseline-system.js';
import { BaselineNames } from './baseline/baseline-topology.js';
import { parseBenchOptions, type BenchOptions } from './bench-options.js';
import { describeCoreSpeeds, measureCoreSpeeds } from './infra/core-speeds.js';
import { machineFacts } from './infra/machine-facts.js';
import { startNatsServer, type BenchNatsServer } from './infra/nats-server.js';
import { hopRows } from './report/hop-timeline.js';
import { bareKvUpdates, liveKeyToken, prepopulateLiveKeys, refreshRevisions, spreadIndices } from './live-keys/live-keys.js';
import { pairSchedule } from './pair-schedule.js';
import { keyTokens, needsEffector, planLiveKeysPhase, planPhases, runPhase, warmRestarted, type PhaseContext, type PhasePlan } from './phases.js';
import { startOtlpSink } from './infra/otlp-sink.js';
import { runLoad } from './load/load-generator.js';
import {
  RESULT_FORMAT,
  THROUGHPUT_PHASES,
  type ActivatorsRow,
  type BenchResult,
  type HopsRun,
  type LiveKeysRow,
  type MemoryRow,
  type PhaseName,
  type PhaseResult,
  type SystemResult,
  type ThroughputPair,
  type LatencyPair,
  type TracingReference,
  type TracingRun,
} from './report/bench-result.js';
import { checkTargets, renderCheck } from './report/check-targets.js';
import { compareSystems, latencyPairOf, median, medianLatencyPair, medianPair, medianPairBy, pairOf, spread, tracingCost, tracingCpuCost, tracingReference, tracingRuntimeCost } from './report/compare-systems.js';
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
  /** Extra environment for the runtime's services (tracing, a config file). */
  readonly env?: Readonly<Record<string, string>>;
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
      extraEnv: { ...options.serviceEnv, ...shape.env },
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
    const context = phaseContext(bench, system);
    const phases: PhaseResult[] = [];
    for (const plan of plans) phases.push(await runPhase(context, plan));
    return await after(system, phases);
  } finally {
    log(`stopping ${name}`);
    await system.stop();
  }
}

function phaseContext(bench: Bench, system: SystemUnderTest): PhaseContext {
  return {
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
}

/**
 * Runs `plan` as `count` (default `--pairs`) interleaved runtime/baseline pairs (variant
 * `<prefix>r<n>`), each made into a pair by `pairOf` and logged with `describe`. With `--lead-in`
 * (the default) an unmeasured pair runs first (see {@link pairSchedule}, decision 0084).
 */
async function runInterleaved<P>(
  bench: Bench,
  systems: Readonly<Record<SystemName, SystemUnderTest>>,
  plan: PhasePlan,
  prefix: string,
  pairOf: (runtime: PhaseResult, baseline: PhaseResult) => P,
  describe: (pair: P) => string,
  count = bench.options.pairs,
  leadIn = bench.options.leadIn,
): Promise<P[]> {
  const pairs: P[] = [];
  for (const { variant, measured } of pairSchedule(count, leadIn, prefix)) {
    const runtime = await runPhase(phaseContext(bench, systems.runtime), { ...plan, variant });
    const baseline = await runPhase(phaseContext(bench, systems.baseline), { ...plan, variant });
    const pair = pairOf(runtime, baseline);
    if (!measured) {
      log(`${plan.phase} ${variant}: ${describe(pair)} (lead-in, not measured)`);
      continue;
    }
    log(`${plan.phase} ${variant}: ${describe(pair)}`);
    pairs.push(pair);
  }
  return pairs;
}

/** A throughput phase's pairs (see {@link runInterleaved}). */
function runPairs(bench: Bench, systems: Readonly<Record<SystemName, SystemUnderTest>>, plan: PhasePlan, prefix = '', count = bench.options.pairs, leadIn = bench.options.leadIn): Promise<ThroughputPair[]> {
  return runInterleaved(bench, systems, plan, prefix, pairOf, (pair) => `runtime ÷ baseline ${pair.ratio.toFixed(3)}`, count, leadIn);
}

/** A latency phase's pairs (see {@link runInterleaved}). */
function runLatencyPairs(bench: Bench, systems: Readonly<Record<SystemName, SystemUnderTest>>, plan: PhasePlan): Promise<LatencyPair[]> {
  return runInterleaved(bench, systems, plan, '', latencyPairOf, (pair) => `runtime − baseline p50 ${pair.deltaMs.p50.toFixed(2)} ms, p99 ${pair.deltaMs.p99.toFixed(2)} ms; p50 ratio ${pair.ratioP50.toFixed(3)}`);
}

/** What the main phases (and the tracing dimension, which needs their baseline) measured. */
interface MainMeasurements {
  readonly systems: SystemResult[];
  readonly pairs: Partial<Record<PhaseName, ThroughputPair[]>>;
  readonly latencyPairs: Partial<Record<PhaseName, LatencyPair[]>>;
  readonly tracing: TracingMeasurements;
}

/** The tracing dimension: its tracing-off reference and one run per sampling ratio. */
interface TracingMeasurements {
  readonly runs: TracingRun[];
  readonly reference: TracingReference | undefined;
}

/**
 * The main phases with both systems running side by side: throughput phases in interleaved
 * pairs (both systems present), latency phases once per system. Then the tracing dimension.
 */
async function measureSystems(bench: Bench): Promise<MainMeasurements> {
  const { options } = bench;
  const plans = planPhases(options);
  if (plans.length === 0) return { systems: [], pairs: {}, latencyPairs: {}, tracing: { runs: [], reference: undefined } };
  const shape: StartShape = { activators: 1, effector: needsEffector(plans) };
  const running: Partial<Record<SystemName, SystemUnderTest>> = {};
  try {
    for (const name of options.systems) {
      log(`starting ${name}`);
      running[name] = await startSystem(name, bench.server, options, bench.nc, shape);
    }
    const both = running.runtime !== undefined && running.baseline !== undefined ? { runtime: running.runtime, baseline: running.baseline } : undefined;
    const phases: Record<SystemName, PhaseResult[]> = { runtime: [], baseline: [] };
    const pairs: Partial<Record<PhaseName, ThroughputPair[]>> = {};
    const latencyPairs: Partial<Record<PhaseName, LatencyPair[]>> = {};
    for (const plan of plans) {
      if (both !== undefined) {
        // Both systems present: every phase runs as interleaved pairs; the tables show the median pair.
        const shown = THROUGHPUT_PHASES.includes(plan.phase)
          ? medianPair((pairs[plan.phase] = await runPairs(bench, both, plan)))
          : medianLatencyPair((latencyPairs[plan.phase] = await runLatencyPairs(bench, both, plan)));
        if (shown !== undefined) {
          phases.runtime.push(shown.runtime);
          phases.baseline.push(shown.baseline);
        }
        continue;
      }
      for (const name of options.systems) {
        const system = running[name];
        if (system !== undefined) phases[name].push(await runPhase(phaseContext(bench, system), plan));
      }
    }
    const systems: SystemResult[] = [];
    for (const name of options.systems) {
      const system = running[name];
      if (system === undefined) continue;
      const stateBytes: Record<string, number> = {};
      for (const agent of [NOOP_AGENT, MODEL_AGENT, TOOL_AGENT]) {
        const sampleKey = plans.find((p) => p.agent === agent && p.phase.endsWith('-throughput'))?.keys[0];
        if (sampleKey !== undefined) Object.assign(stateBytes, await storedStateBytes(bench.nc, system, [agent], sampleKey));
      }
      systems.push({ system: name, partitions: name === 'runtime' ? options.partitions : options.baselinePartitions, phases: phases[name], stateBytes });
    }
    const tracing = both === undefined ? { runs: [], reference: undefined } : await measureTracing(bench, running as Record<SystemName, SystemUnderTest>, plans);
    return { systems, pairs, latencyPairs, tracing };
  } finally {
    for (const name of options.systems) {
      log(`stopping ${name}`);
      await running[name]?.stop();
    }
  }
}

/**
 * The tracing dimension, in `--tracing-pairs` rounds (decision 0088). Each round restarts the
 * runtime once with tracing off (the reference) and once per sampling ratio (spans over OTLP/HTTP
 * to a local receiver, the parent-based ratio sampler), warms each restart up (decision 0081), and
 * pairs its no-op throughput with the baseline once. Odd rounds run the reference first, even
 * rounds last, so a host that drifts within a round lands on both sides of the traced runs. Each
 * ratio's cost is the median over the rounds of its pair against the same round's reference pair:
 * a restart's luck (the core its activator lands on) and the host's drift between rounds then move
 * one round's cost, not every traced pair against every reference pair. Restarting (a fresh
 * process, an empty actor cache, after the main phases) is on both sides of every round.
 * Replaces `running.runtime` with the last restarted runtime (the caller stops it).
 */
async function measureTracing(bench: Bench, running: Record<SystemName, SystemUnderTest>, plans: readonly PhasePlan[]): Promise<TracingMeasurements> {
  const { options } = bench;
  const noop = plans.find((p) => p.phase === 'noop-throughput');
  if (noop === undefined || options.tracing.length === 0) return { runs: [], reference: undefined };
  // Runs of `--tracing-events` (3 × N by default, decision 0086): a 20,000-event run lasts about
  // 2.5 s, and one such run of either system moved a block's median by tens of percent.
  const plan: PhasePlan = { ...noop, measured: noop.measured.kind === 'window' ? { ...noop.measured, events: options.tracingEvents } : noop.measured };
  const restart = async (env: Record<string, string>, variant: string): Promise<void> => {
    await running.runtime.stop();
    running.runtime = await startSystem('runtime', bench.server, options, bench.nc, { activators: 1, effector: needsEffector(plans), env });
    // Every restart, the reference's and each ratio's alike, runs one measured run's worth of load
    // unmeasured first: the pairs then compare warm code, not JIT warm-up (decision 0081).
    await warmRestarted(phaseContext(bench, running.runtime), { ...plan, variant }, options.tracingEvents);
  };
  const sink = await startOtlpSink();
  const tracedEnv = (ratio: number): Record<string, string> => ({
    OTEL_SDK_DISABLED: 'false',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(ratio),
  });
  const referencePairs: ThroughputPair[] = [];
  const traced = options.tracing.map((ratio) => ({ ratio, pairs: [] as ThroughputPair[], requests: 0, bytes: 0 }));
  const rounds = options.tracingPairs;
  try {
    for (let round = 1; round <= rounds; round += 1) {
      // `--tracing-pairs` rounds (5 by default; decision 0082 chose five because one disturbed pair of three moved the cost by ten points).
      const order: (typeof traced[number] | undefined)[] = [undefined, ...traced];
      if (round % 2 === 0) order.reverse();
      for (const run of order) {
        const label = run === undefined ? 'toff' : `t${run.ratio}`;
        log(`tracing round ${round} of ${rounds}: restarting the runtime with ${run === undefined ? 'tracing off (the reference)' : `tracing at a ${run.ratio} parent-based sampling ratio (OTLP to ${sink.endpoint})`}`);
        await restart(run === undefined ? {} : tracedEnv(run.ratio), `${label}-q${round}`);
        const before = sink.received();
        // One pair per restart, and no lead-in pair (decision 0084): the restart's warm-up stands before it.
        const [pair] = await runPairs(bench, running, plan, `${label}-q${round}-`, 1, false);
        if (pair === undefined) throw new Error(`the tracing dimension's ${label} pair of round ${round} did not run`);
        const after = sink.received();
        if (run === undefined) {
          referencePairs.push(pair);
        } else {
          run.pairs.push(pair);
          run.requests += after.requests - before.requests;
          run.bytes += after.bytes - before.bytes;
        }
      }
    }
  } finally {
    await sink.stop();
  }
  const reference = tracingReference(referencePairs);
  log(`tracing off (the reference): runtime ÷ baseline ${reference.throughputRatio.toFixed(3)} (${referencePairs.map((p) => p.ratio.toFixed(2)).join(', ')})`);
  const runs = traced.map((run): TracingRun => {
    const { cost, roundCosts, ofMedians } = tracingCost(run.pairs, reference);
    const ratios = run.pairs.map((p) => p.ratio);
    return { ratio: run.ratio, pairs: run.pairs, throughputRatio: median(ratios), spread: spread(ratios), cost, roundCosts, costOfMedians: ofMedians, runtimeAlone: tracingRuntimeCost(run.pairs, reference), exported: { requests: run.requests, bytes: run.bytes } };
  });
  const percent = (value: number | undefined): string => `${((value ?? Number.NaN) * 100).toFixed(1)} %`;
  const cpuCost = (run: TracingRun, role: string): string => `${((tracingCpuCost(run.pairs, reference, role) ?? Number.NaN) * 100).toFixed(0)} %`;
  for (const run of runs) {
    log(
      `tracing at ${run.ratio}: cost ${percent(run.cost)}, the median of the rounds' ${run.roundCosts.map(percent).join(', ')} (of medians ${percent(run.costOfMedians)}; runtime alone ${percent(run.runtimeAlone?.cost)}, rounds ${run.runtimeAlone?.roundCosts.map(percent).join(', ') ?? '–'}); ${run.exported.requests} OTLP requests; ` +
        `CPU per event against the round's reference: activator ${cpuCost(run, 'activator')}, ingress ${cpuCost(run, 'ingress')}`,
    );
  }
  return { runs, reference };
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
    // `--live-keys-pairs` interleaved runs of each system (runtime, baseline, runtime, …), each on a
    // fresh process and on keys no other run of the row touched (decision 0082).
    const runsOf: Record<SystemName, PhaseResult[]> = { runtime: [], baseline: [] };
    const touched: number[] = [];
    for (let r = 0; r < options.liveKeysPairs; r += 1) {
      const indices = spreadIndices(options.events, liveKeys, r);
      touched.push(...indices);
      const plan = { ...planLiveKeysPhase(options, liveKeys, indices.map(liveKeyToken)), variant: `lk${liveKeys}r${r + 1}` };
      for (const name of runs) {
        runsOf[name].push(
          await withSystem(bench, name, { activators: 1, effector: false }, [plan], async (_system, [phase]) => {
            if (phase === undefined) throw new Error(`the live-keys phase (${plan.variant}) did not run`);
            return phase;
          }),
        );
      }
    }
    if (stores.baseline !== undefined) await refreshRevisions(baselineStore, [...new Set(touched)], revisions);
    const pairs = runsOf.runtime.length > 0 && runsOf.baseline.length > 0 ? runsOf.runtime.map((runtime, i) => pairOf(runtime, runsOf.baseline[i] as PhaseResult)) : [];
    const medianRun = (results: readonly PhaseResult[]): PhaseResult | undefined => medianPairBy(results, (p) => p.throughput.steadyPerSecond);
    const row: LiveKeysRow = {
      liveKeys,
      prepopulated,
      prepopulateMs,
      bareKv: { updates: options.bareKvUpdates, inFlight: options.bareKvInFlight, perSecond: bare.perSecond },
      runtime: medianRun(runsOf.runtime),
      baseline: medianRun(runsOf.baseline),
      runs: runsOf,
      ratio: median(pairs.map((p) => p.ratio)),
      spread: spread(pairs.map((p) => p.ratio)),
    };
    log(`live keys ${liveKeys.toLocaleString('en-US')}: runtime ${row.runtime?.throughput.steadyPerSecond.toFixed(0) ?? '–'}/s, baseline ${row.baseline?.throughput.steadyPerSecond.toFixed(0) ?? '–'}/s (median runs); runtime ÷ baseline ${row.ratio.toFixed(3)} (spread ${(row.spread * 100).toFixed(0)} %)`);
    rows.push(row);
  }
  return rows;
}

/** `VmRSS` of a process in bytes, or undefined when it cannot be read. */
function residentBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1_024;
  } catch {
    return undefined;
  }
}

/** The value of an unlabelled gauge in a Prometheus text exposition. */
function gauge(exposition: string, name: string): number | undefined {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(exposition);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The memory dimension: one runtime whose cache bounds exceed the largest count; for each count
 * (ascending), one no-op event to each key not yet live, then the activator's RSS and its cache
 * gauges. Keys stay live (and cached) from row to row.
 */
async function measureMemory(bench: Bench): Promise<MemoryRow[]> {
  const { options } = bench;
  if (options.memoryKeys.length === 0 || !options.systems.includes('runtime')) return [];
  const largest = options.memoryKeys[options.memoryKeys.length - 1] ?? 0;
  const dir = await mkdtemp(join(tmpdir(), 'bench-memory-'));
  const config = join(dir, 'config.json');
  // Both bounds above the largest count: every activated key stays cached (noop documents are a few hundred bytes).
  await writeFile(config, JSON.stringify({ activator: { cacheCapacity: largest + options.keys, cacheMaxBytes: (largest + options.keys) * 4_096 } }));
  const rows: MemoryRow[] = [];
  try {
    await withSystem(bench, 'runtime', { activators: 1, effector: false, env: { AGENTS_CONFIG: config } }, [], async (system) => {
      const activator = system.processes.find((p) => p.name === 'activator');
      if (activator === undefined) throw new Error('the memory dimension found no activator process');
      const opsUrl = system.opsUrls?.activator;
      log(`memory: activator RSS ${((residentBytes(activator.pid) ?? 0) / 2 ** 20).toFixed(1)} MiB with no key cached`);
      let live = 0;
      for (const count of options.memoryKeys) {
        const keys = keyTokens('mem', largest).slice(live, count);
        log(`memory: activating ${keys.length.toLocaleString('en-US')} more keys (${count.toLocaleString('en-US')} in all)`);
        const observed = await runLoad(bench.nc, bench.js, system, {
          run: `runtime-mem${count}`,
          agent: NOOP_AGENT,
          keys,
          shape: { kind: 'window', events: keys.length, window: options.window },
          stallTimeoutMs: options.stallTimeoutMs,
        });
        live = count;
        await sleep(1_000);
        const exposition = opsUrl === undefined ? '' : await fetch(`${opsUrl}/metrics`).then((r) => r.text(), () => '');
        const rss = residentBytes(activator.pid);
        if (rss === undefined) throw new Error('the activator\'s RSS could not be read');
        const row: MemoryRow = {
          cachedKeys: count,
          rssBytes: rss,
          cacheEntries: gauge(exposition, 'agents_actor_cache_entries'),
          cacheBytes: gauge(exposition, 'agents_actor_cache_bytes'),
          activationsPerSecond: observed.durationMs > 0 ? (observed.events * 1_000) / observed.durationMs : Number.NaN,
        };
        log(`memory: ${count.toLocaleString('en-US')} keys live, activator RSS ${(rss / 2 ** 20).toFixed(1)} MiB; cache ${row.cacheEntries ?? '?'} entries, ${row.cacheBytes ?? '?'} B`);
        rows.push(row);
      }
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

/**
 * Each system's `roundtrip-unloaded` on a second, protocol-traced nats-server (one system after the
 * other, each with its own warm-up), then each hop's median from the server's trace. The trace
 * slows the server, so these runs are for the hop-by-hop comparison only; the main phases ran on
 * the untraced server.
 */
async function measureHops(options: BenchOptions): Promise<HopsRun | undefined> {
  if (options.hops === 0) return undefined;
  const plan = planPhases({ ...options, phases: ['roundtrip-unloaded'], unloadedEvents: options.hops })[0];
  if (plan === undefined) return undefined;
  const server = await startNatsServer({ trace: true });
  log(`hops: traced nats-server at ${server.url}`);
  const nc = await connect({ servers: server.url, name: 'bench-load-generator' });
  try {
    const traced: Bench = { options, server, nc, js: jetstream(nc), jsm: await jetstreamManager(nc) };
    for (const name of options.systems) await withSystem(traced, name, { activators: 1, effector: true }, [{ ...plan, variant: 'hops' }], async () => undefined);
    const warmup = plan.warmup.kind === 'per-key' ? plan.warmup.eventsPerKey : 0;
    const { rows, roundTrips } = hopRows(await readFile(server.logFile, 'utf8'), plan.agent, warmup);
    log(`hops: ${roundTrips.runtime} runtime and ${roundTrips.baseline} baseline round trips read from the trace`);
    return { events: options.hops, roundTrips, rows };
  } finally {
    await nc.close().catch(() => undefined);
    await server.stop();
  }
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv, join(REPO_ROOT, 'bench', 'results'));
  const startedAt = new Date().toISOString();
  const machine = machineFacts(REPO_ROOT);
  log(`${machine.cpuModel} × ${machine.cores}, Node ${machine.node}, nats-server ${machine.natsServer}`);
  // Before anything of the run is started: each core's speed (decision 0083).
  const startSpeeds = await measureCoreSpeeds(machine.cores);
  log(`core speeds at start: ${describeCoreSpeeds(startSpeeds)}`);
  const server = await startNatsServer();
  log(`private nats-server at ${server.url} (store ${server.dir})`);
  const nc = await connect({ servers: server.url, name: 'bench-load-generator' });
  const bench: Bench = { options, server, nc, js: jetstream(nc), jsm: await jetstreamManager(nc) };
  let main: MainMeasurements;
  // A dimension that fails is named in the report and fails the run, but what the others measured is still written.
  const failures: string[] = [];
  const dimension = async <T>(name: string, measure: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await measure();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`the ${name} dimension FAILED: ${message}`);
      failures.push(`${name}: ${message.split('\n')[0] ?? ''}`);
      return [];
    }
  };
  let activators: ActivatorsRow[];
  let liveKeys: LiveKeysRow[];
  let memory: MemoryRow[];
  try {
    main = await measureSystems(bench);
    activators = await dimension('activators', () => measureActivators(bench));
    liveKeys = await dimension('live-keys', () => measureLiveKeys(bench));
    memory = await dimension('memory', () => measureMemory(bench));
  } finally {
    await nc.close().catch(() => undefined);
    await server.stop();
  }
  const [hops] = await dimension('hops', async () => [await measureHops(options)]);
  const endSpeeds = await measureCoreSpeeds(machine.cores);
  log(`core speeds at end: ${describeCoreSpeeds(endSpeeds)}`);

  const runtime = main.systems.find((s) => s.system === 'runtime');
  const baseline = main.systems.find((s) => s.system === 'baseline');
  const result: BenchResult = {
    format: RESULT_FORMAT,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine,
    options,
    systems: main.systems,
    comparison: runtime !== undefined && baseline !== undefined ? compareSystems(runtime, baseline, main.pairs, main.latencyPairs) : undefined,
    activators,
    liveKeys,
    pairs: main.pairs,
    latencyPairs: main.latencyPairs,
    tracing: main.tracing.runs,
    tracingReference: main.tracing.reference,
    memory,
    hops,
    failures,
    coreSpeeds: { start: startSpeeds, end: endSpeeds },
  };
  const check = options.check ? checkTargets(result) : undefined;
  const markdown = renderMarkdown(result, check);
  const written = await writeResults(options.resultsDir, result, markdown);
  process.stdout.write(markdown);
  log(`wrote ${written.json} and ${written.markdown}`);
  if (check !== undefined) {
    for (const line of renderCheck(check)) process.stderr.write(`${line}\n`);
    if (check.missed.length > 0) process.exitCode = 1;
  }
  if (failures.length > 0) {
    log(`FAILED dimensions: ${failures.join('; ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
