/**
 * The benchmark's knobs: flags (`npm run bench -- --events 5000`), each with an environment
 * fallback (`BENCH_EVENTS=5000 npm run bench`), defaulting to the figures the design asks for.
 * Runtime defaults (partitions, max_ack_pending, stream settings) come from `#config`, so the
 * benchmark follows the runtime's configuration instead of copying it.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig, SERVICE_NODE_FLAGS, type RuntimeConfig } from '#config';
import { PHASE_NAMES, type PhaseName } from './report/bench-result.js';
import type { SystemName } from './system-under-test.js';

/** Everything one benchmark run is parameterized by. */
export interface BenchOptions {
  /** N: events per throughput phase. */
  readonly events: number;
  /** K: keys of the throughput phases. */
  readonly keys: number;
  /** Events in flight end to end during throughput phases (closed loop). */
  readonly window: number;
  /** Unmeasured events before each throughput phase (they also create every key's state). */
  readonly warmupEvents: number;
  /** Simulated model latency of the model agent (and the baseline's stand-in), ms. */
  readonly modelLatencyMs: number;
  /** Keys of the overhead phase (model agent, one event in flight per key). */
  readonly overheadKeys: number;
  /** Sequential events per key in the overhead phase. */
  readonly overheadEventsPerKey: number;
  /** Unmeasured sequential events per key before the overhead phase. */
  readonly overheadWarmupPerKey: number;
  /** Sequential events of each run of the unloaded phases (one key, one event in flight in all), and of each run's warm-up (decision 0094). */
  readonly unloadedEvents: number;
  /** Which phases to run (all by default). */
  readonly phases: readonly PhaseName[];
  /** Runtime inbox partitions (`AGENTS_PARTITIONS`). */
  readonly partitions: number;
  /** Baseline inbox partitions: 1 = one unfiltered consumer; P = P filtered consumers like the runtime. */
  readonly baselinePartitions: number;
  /** Which systems to run, in order. */
  readonly systems: readonly SystemName[];
  /** `AGENTS_ACTIVATION_TIMEOUT_MS` for the activator, when set. */
  readonly activationTimeoutMs: number | undefined;
  /** A run fails when outputs are missing and none arrived for this long. */
  readonly stallTimeoutMs: number;
  /** Where `<timestamp>.json` and `latest.md` go. */
  readonly resultsDir: string;
  /** `node` flags of every service and baseline process: the services' own (`SERVICE_NODE_FLAGS`), then `--node-flags` (e.g. `--cpu-prof`). */
  readonly nodeFlags: readonly string[];
  /** Extra environment for the runtime's services (experiments, e.g. `NEST_LOG_LEVEL=log`). */
  readonly serviceEnv: Readonly<Record<string, string>>;
  /**
   * Baseline clients keep the client's default async traces, while the runtime's services connect
   * with `noAsyncTraces` (see `connectNats`): an experiment knob. Off by default, so both systems
   * use the same client options.
   */
  readonly baselineAsyncTraces: boolean;
  /**
   * One unmeasured runtime/baseline pair before each main phase's measured pairs (`--no-lead-in`
   * skips it; decision 0084): the phase change then lands on no measured run.
   */
  readonly leadIn: boolean;
  /** Activator counts of the activators dimension (no-op throughput with 1, 2, 3 activators); empty: not measured. */
  readonly activators: readonly number[];
  /** Live-key counts of the live-keys dimension, ascending; empty: not measured. */
  readonly liveKeys: readonly number[];
  /** Bare KV updates per live-keys row (the store alone, from the load generator). */
  readonly bareKvUpdates: number;
  /** Bare KV updates in flight. */
  readonly bareKvInFlight: number;
  /** Runtime/baseline pairs of each throughput and latency phase (A B A B …); the figure is the median pair's ratio. */
  readonly pairs: number;
  /** Pairs of fresh runs of each live-keys row (each on keys no other run of the row touched). */
  readonly liveKeysPairs: number;
  /** Rounds of the tracing dimension: each restarts the runtime with tracing off and at each ratio, one pair per restart (decision 0088). */
  readonly tracingPairs: number;
  /** Measured events of each run of the tracing dimension (and of each restart's warm-up): 3 × N unless given (decision 0086). */
  readonly tracingEvents: number;
  /** Hold the run to `bench/targets.ts` and exit non-zero naming each target missed. */
  readonly check: boolean;
  /** Parent-based sampling ratios of the tracing dimension (no-op throughput with OTLP export to a local receiver); empty: not measured. */
  readonly tracing: readonly number[];
  /** Cached-key counts of the memory dimension (activator RSS), ascending; empty: not measured. */
  readonly memoryKeys: readonly number[];
  /** Round trips per system of the hops dimension (a protocol-traced server, hop by hop); 0: not measured. */
  readonly hops: number;
  /** The runtime configuration defaults the services run with. */
  readonly runtimeDefaults: Pick<RuntimeConfig, 'activator' | 'ingress' | 'streams' | 'effector'>;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number');
  return n;
}

function phaseList(value: string): PhaseName[] {
  if (value.trim() === 'none') return [];
  const names = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  for (const name of names) if (!(PHASE_NAMES as readonly string[]).includes(name)) throw new InvalidArgumentError(`unknown phase '${name}' (${PHASE_NAMES.join(', ')})`);
  if (names.length === 0) throw new InvalidArgumentError("name at least one phase, or 'none'");
  return names as PhaseName[];
}

/** `1,2,3` → [1, 2, 3] (ascending, distinct); `none` → []. */
export function countList(value: string): number[] {
  if (value.trim() === 'none') return [];
  const counts = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map((s) => positiveInt(s.replace(/_/g, '')));
  if (counts.length === 0) throw new InvalidArgumentError("name at least one count, or 'none'");
  return [...new Set(counts)].sort((a, b) => a - b);
}

/** `0.1,1` → [0.1, 1] (distinct, ascending, each in (0, 1]); `none` → []. */
export function ratioList(value: string): number[] {
  if (value.trim() === 'none') return [];
  const ratios = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map(Number);
  if (ratios.length === 0) throw new InvalidArgumentError("name at least one ratio, or 'none'");
  for (const r of ratios) if (!Number.isFinite(r) || r <= 0 || r > 1) throw new InvalidArgumentError(`sampling ratios are in (0, 1], got '${value}'`);
  return [...new Set(ratios)].sort((a, b) => a - b);
}

function envAssignment(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('expected NAME=VALUE');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

function systemList(value: string): SystemName[] {
  const names = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  for (const name of names) if (name !== 'runtime' && name !== 'baseline') throw new InvalidArgumentError(`unknown system '${name}' (runtime, baseline)`);
  if (names.length === 0) throw new InvalidArgumentError('name at least one system');
  return names as SystemName[];
}

/**
 * Parses `argv` (as `process.argv`) and the environment into {@link BenchOptions}.
 *
 * @throws {Error} (via commander: usage printed, process exits) on an invalid flag.
 */
export function parseBenchOptions(argv: readonly string[], defaultResultsDir: string): BenchOptions {
  const defaults = loadConfig({ env: {} });
  const numeric = (flags: string, description: string, env: string, fallback: number | undefined, parse: (v: string) => number = positiveInt): Option => {
    const option = new Option(flags, description).env(env).argParser(parse);
    return fallback === undefined ? option : option.default(fallback);
  };
  const program = new Command('bench')
    .description('Runtime vs bare-JetStream benchmark on a private nats-server (see docs/performance.md).')
    .addOption(numeric('--events <n>', 'N: events per throughput phase', 'BENCH_EVENTS', 20_000))
    .addOption(numeric('--keys <n>', 'K: keys of the throughput phases', 'BENCH_KEYS', 1_000))
    .addOption(numeric('--window <n>', 'events in flight end to end in throughput phases (default: K)', 'BENCH_WINDOW', undefined))
    .addOption(numeric('--warmup-events <n>', 'unmeasured events before each throughput phase (default: 2 x K)', 'BENCH_WARMUP_EVENTS', undefined, nonNegativeInt))
    .addOption(numeric('--model-latency-ms <ms>', 'FakeLlm latency of the model agent', 'BENCH_MODEL_LATENCY_MS', 50, nonNegativeNumber))
    .addOption(numeric('--overhead-keys <n>', 'keys of the overhead phase (model agent, one event in flight per key)', 'BENCH_OVERHEAD_KEYS', 50))
    .addOption(numeric('--overhead-events-per-key <n>', 'sequential events per key in the overhead phase', 'BENCH_OVERHEAD_EVENTS_PER_KEY', 96))
    .addOption(numeric('--overhead-warmup-per-key <n>', 'unmeasured sequential events per key before it', 'BENCH_OVERHEAD_WARMUP_PER_KEY', 16, nonNegativeInt))
    .addOption(numeric('--unloaded-events <n>', 'sequential events of each run of the unloaded phases (one key, one in flight), and of the warm-up before it', 'BENCH_UNLOADED_EVENTS', 1_000))
    .addOption(new Option('--phases <list>', `main phases to run (${PHASE_NAMES.join(', ')}), or 'none' (only the dimensions)`).env('BENCH_PHASES').argParser(phaseList).default([...PHASE_NAMES]))
    .addOption(numeric('--partitions <n>', 'runtime inbox partitions (AGENTS_PARTITIONS)', 'BENCH_PARTITIONS', defaults.partitions))
    .addOption(numeric('--baseline-partitions <n>', 'baseline inbox partitions (1 = one unfiltered consumer)', 'BENCH_BASELINE_PARTITIONS', 1))
    .addOption(new Option('--systems <list>', 'systems to run, in order').env('BENCH_SYSTEMS').argParser(systemList).default(['runtime', 'baseline'] satisfies SystemName[]))
    .addOption(numeric('--activation-timeout-ms <ms>', 'AGENTS_ACTIVATION_TIMEOUT_MS for the activator', 'BENCH_ACTIVATION_TIMEOUT_MS', undefined))
    .addOption(numeric('--stall-timeout-ms <ms>', 'fail when outputs are missing and none arrived for this long', 'BENCH_STALL_TIMEOUT_MS', 30_000))
    .addOption(new Option('--results-dir <dir>', 'where results are written').env('BENCH_RESULTS_DIR').default(defaultResultsDir))
    .addOption(new Option('--node-flags <flags>', 'extra node flags for services and baseline processes, space-separated').env('BENCH_NODE_FLAGS').default(''))
    .addOption(new Option('--service-env <NAME=VALUE>', 'extra environment for the runtime services (repeatable)').argParser(envAssignment).default({}))
    .addOption(new Option('--activators <list>', "activator counts of the activators dimension (no-op throughput), or 'none'").env('BENCH_ACTIVATORS').argParser(countList).default([1, 2, 3]))
    .addOption(new Option('--live-keys <list>', "live-key counts of the live-keys dimension (ascending; keys stay live), or 'none'").env('BENCH_LIVE_KEYS').argParser(countList).default([1_000, 100_000]))
    .addOption(numeric('--bare-kv-updates <n>', 'bare KV updates per live-keys row', 'BENCH_BARE_KV_UPDATES', 20_000))
    .addOption(numeric('--bare-kv-in-flight <n>', 'bare KV updates in flight', 'BENCH_BARE_KV_IN_FLIGHT', 64))
    .addOption(numeric('--pairs <n>', 'runtime/baseline pairs of each throughput and latency phase (A B A B …; the median pair is the figure)', 'BENCH_PAIRS', 5))
    .addOption(new Option('--no-lead-in', "skip the unmeasured lead-in pair before each main phase's pairs (quick experiments; decision 0084)").env('BENCH_NO_LEAD_IN'))
    .addOption(numeric('--live-keys-pairs <n>', 'runtime/baseline pairs of fresh runs of each live-keys row', 'BENCH_LIVE_KEYS_PAIRS', 5))
    .addOption(numeric('--tracing-pairs <n>', 'rounds of the tracing dimension: one restart and one pair each for the tracing-off reference and each ratio', 'BENCH_TRACING_PAIRS', 5))
    .addOption(new Option('--tracing-events <n>', "measured events of each run of the tracing dimension (default: 3 x N)").env('BENCH_TRACING_EVENTS').argParser(positiveInt))
    .addOption(new Option('--check', 'hold the run to bench/targets.ts; exit non-zero naming each target missed').env('BENCH_CHECK').default(false))
    .addOption(new Option('--tracing <ratios>', "sampling ratios of the tracing dimension (no-op throughput, OTLP to a local receiver), or 'none'").env('BENCH_TRACING').argParser(ratioList).default([0.1, 1]))
    .addOption(
      numeric(
        '--hops <n>',
        "round trips per system of the hops dimension (roundtrip-unloaded on a second nats-server that traces every protocol message: each hop's median in both systems), or 0",
        'BENCH_HOPS',
        0,
        nonNegativeInt,
      ),
    )
    .addOption(new Option('--memory-keys <list>', "cached-key counts of the memory dimension (activator RSS), or 'none'").env('BENCH_MEMORY_KEYS').argParser(countList).default([10_000, 100_000]))
    .addOption(new Option('--baseline-async-traces', "baseline clients keep the client's async traces (experiment; by default they connect with noAsyncTraces, as the runtime's services do)").env('BENCH_BASELINE_ASYNC_TRACES').default(false))
    .showHelpAfterError()
    .parse([...argv]);
  const o = program.opts<{
    events: number;
    keys: number;
    window?: number;
    warmupEvents?: number;
    modelLatencyMs: number;
    overheadKeys: number;
    overheadEventsPerKey: number;
    overheadWarmupPerKey: number;
    unloadedEvents: number;
    phases: PhaseName[];
    partitions: number;
    baselinePartitions: number;
    systems: SystemName[];
    activationTimeoutMs?: number;
    stallTimeoutMs: number;
    resultsDir: string;
    nodeFlags: string;
    serviceEnv: Record<string, string>;
    baselineAsyncTraces: boolean;
    activators: number[];
    liveKeys: number[];
    bareKvUpdates: number;
    bareKvInFlight: number;
    pairs: number;
    leadIn: boolean;
    liveKeysPairs: number;
    tracingPairs: number;
    tracingEvents?: number;
    check: boolean;
    tracing: number[];
    memoryKeys: number[];
    hops: number;
  }>();
  return {
    events: o.events,
    keys: o.keys,
    window: o.window ?? o.keys,
    warmupEvents: o.warmupEvents ?? 2 * o.keys,
    modelLatencyMs: o.modelLatencyMs,
    overheadKeys: o.overheadKeys,
    overheadEventsPerKey: o.overheadEventsPerKey,
    overheadWarmupPerKey: o.overheadWarmupPerKey,
    unloadedEvents: o.unloadedEvents,
    phases: o.phases,
    partitions: o.partitions,
    baselinePartitions: o.baselinePartitions,
    systems: o.systems,
    activationTimeoutMs: o.activationTimeoutMs,
    stallTimeoutMs: o.stallTimeoutMs,
    resultsDir: o.resultsDir,
    // The services' own flags, given to the baseline's processes too: both systems run the same Node.
    nodeFlags: [...SERVICE_NODE_FLAGS, ...o.nodeFlags.split(' ').filter((f) => f.length > 0)],
    serviceEnv: o.serviceEnv,
    baselineAsyncTraces: o.baselineAsyncTraces,
    activators: o.activators,
    liveKeys: o.liveKeys,
    bareKvUpdates: o.bareKvUpdates,
    bareKvInFlight: o.bareKvInFlight,
    pairs: o.pairs,
    leadIn: o.leadIn,
    liveKeysPairs: o.liveKeysPairs,
    tracingPairs: o.tracingPairs,
    tracingEvents: o.tracingEvents ?? 3 * o.events,
    check: o.check,
    tracing: o.tracing,
    memoryKeys: o.memoryKeys,
    hops: o.hops,
    runtimeDefaults: { activator: defaults.activator, ingress: defaults.ingress, streams: defaults.streams, effector: defaults.effector },
  };
}
