/**
 * The shape of `bench/results/<timestamp>.json`: everything one run measured, the machine it ran
 * on and the options it ran with, so a figure can always be traced back to its conditions.
 */
import type { BenchOptions } from '../bench-options.js';
import type { CoreSpeeds } from '../infra/core-speeds.js';
import type { MachineFacts } from '../infra/machine-facts.js';
import type { LoadShape } from '../load/load-generator.js';
import type { LatencySummary, ThroughputSummary } from '../stats/summaries.js';
import type { SystemName } from '../system-under-test.js';
import type { HopRow } from './hop-timeline.js';

/** Version tag of the results format. */
export const RESULT_FORMAT = 'nats-agents-bench/4';

/** The phases each system runs, in order. */
export const PHASE_NAMES = ['noop-throughput', 'noop-unloaded', 'model-throughput', 'model-low-concurrency', 'roundtrip-unloaded', 'roundtrip-low-concurrency', 'roundtrip-throughput'] as const;

/** One of {@link PHASE_NAMES}. */
export type PhaseName = (typeof PHASE_NAMES)[number];

/** The phases that measure throughput (the others measure latency with little queueing). */
export const THROUGHPUT_PHASES: readonly PhaseName[] = ['noop-throughput', 'model-throughput', 'roundtrip-throughput'];

/** What one measured phase observed. */
export interface PhaseResult {
  readonly phase: PhaseName;
  readonly agent: string;
  readonly shape: LoadShape;
  readonly keys: number;
  readonly events: number;
  readonly warmupEvents: number;
  /** Nominal model latency per activation in this phase (0 for the no-op agent). */
  readonly modelLatencyMs: number;
  readonly durationMs: number;
  readonly throughput: ThroughputSummary;
  /** Publish → output observed, per event. */
  readonly latencyMs: LatencySummary;
  /** Latency − nominal model latency (only for phases with a model call). */
  readonly overheadMs: LatencySummary | undefined;
  /** Outputs observed twice (republishes; the stream deduplicates, a core subscriber sees both). */
  readonly duplicates: number;
  /** Outputs of a key observed after a later output of the same key (must be 0). */
  readonly outOfOrder: number;
  /** Outputs of earlier runs observed during this one. */
  readonly strays: number;
  /** CPU ms per event of each participant (nats-server, services or baseline roles, load generator). */
  readonly cpuMsPerEvent: Readonly<Record<string, number>>;
  /** CPU ms per wall ms of each participant over the measured run (1.0 = one core busy). */
  readonly cpuCores: Readonly<Record<string, number>>;
  /** Messages the server stored per event, by stream (KV buckets are `KV_<bucket>` streams). */
  readonly storedPerEvent: Readonly<Record<string, number>>;
  /** Cores used by everything else on the machine during the measured run (noise). */
  readonly otherCores: number | undefined;
}

/** One system's phases. */
export interface SystemResult {
  readonly system: SystemName;
  /** Inbox partitions (runtime: `AGENTS_PARTITIONS`; baseline: consumers). */
  readonly partitions: number;
  /**
   * One result per phase; of a throughput phase, the run of the pair whose ratio is the median
   * (every pair is in `pairs`); of a latency phase, the run of the pair whose p50 delta is the
   * median (every pair is in `latencyPairs`).
   */
  readonly phases: readonly PhaseResult[];
  /** Size of one key's stored state after the run, per agent (bytes). */
  readonly stateBytes: Readonly<Record<string, number>>;
}

/**
 * One runtime run and the baseline run right after it, of the same throughput phase: the pair's
 * ratio cancels most of what the machine did to both (A B A B …, the ratio taken pair by pair).
 */
export interface ThroughputPair {
  readonly runtime: PhaseResult;
  readonly baseline: PhaseResult;
  /** Runtime ÷ baseline steady throughput. */
  readonly ratio: number;
}

/**
 * One runtime run and the baseline run right after it, of the same latency phase: a single window
 * per system let these figures pass in one run and fail in the next with the same code, so they
 * are paired like throughput (A B A B …) and the figure is the median pair's.
 */
export interface LatencyPair {
  readonly runtime: PhaseResult;
  readonly baseline: PhaseResult;
  /** Runtime − baseline overhead (latency for no-op and round trip) at p50 and p99, ms. */
  readonly deltaMs: { readonly p50: number; readonly p99: number };
  /** Runtime ÷ baseline latency p50. */
  readonly ratioP50: number;
}

/** A run of a ratio whose spread across pairs exceeds this ((max − min) ÷ median) is flagged. */
export const NOISY_SPREAD = 0.15;

/** Runtime ÷ baseline, for the phases both ran. */
export interface Comparison {
  /** Steady throughput ratio per throughput phase: the median of the pairs' ratios. */
  readonly throughputRatio: Partial<Record<PhaseName, number>>;
  /** Every pair's ratio, in run order. */
  readonly throughputPairs: Partial<Record<PhaseName, readonly number[]>>;
  /** (max − min) ÷ median of the pairs' ratios (0 with one pair). */
  readonly throughputSpread: Partial<Record<PhaseName, number>>;
  /**
   * CPU per no-op event, runtime role ÷ its baseline role (`activator` ÷ `baseline-worker`,
   * `ingress` ÷ `baseline-forwarder`): the median over the no-op throughput pairs.
   */
  readonly cpuRatio: Readonly<Record<string, number>>;
  /**
   * Runtime − baseline latency (unloaded no-op, round trips) or overhead (low-concurrency model) per
   * latency phase, ms: p50 and p99 each the median over the phase's pairs.
   */
  readonly latencyDeltaMs: Partial<Record<PhaseName, { readonly p50: number; readonly p99: number }>>;
  /** Runtime ÷ baseline latency p50 per latency phase: the median over its pairs. */
  readonly latencyRatioP50: Partial<Record<PhaseName, number>>;
}

/** The no-op throughput phase with one runtime of `activators` activator processes. */
export interface ActivatorsRow {
  readonly activators: number;
  /** From the first activator's start until every activator consumed its rendezvous share. */
  readonly ownershipSettledMs: number;
  /** Partitions each activator consumed during the measurement. */
  readonly partitionsByMember: Readonly<Record<string, number>>;
  readonly phase: PhaseResult;
}

/** The no-op throughput phase over `liveKeys` keys that all have state, for both systems, and the bare store alone. */
export interface LiveKeysRow {
  readonly liveKeys: number;
  /** Keys written by the pre-population of this row (earlier rows' keys stay live), and how long it took. */
  readonly prepopulated: number;
  readonly prepopulateMs: number;
  /** Bare `kv.update` at cached revisions of random live keys, `inFlight` at a time, from the load generator (no streams, no services). */
  readonly bareKv: { readonly updates: number; readonly inFlight: number; readonly perSecond: number };
  /**
   * Each system's run with the median throughput of its `--pairs` runs (each on a fresh process,
   * on keys no other run of the row touched): the figure of the row, and of the live-keys target.
   */
  readonly runtime: PhaseResult | undefined;
  readonly baseline: PhaseResult | undefined;
  /** Every run of each system, in run order; the i-th runs of the two systems are a pair. */
  readonly runs: { readonly runtime: readonly PhaseResult[]; readonly baseline: readonly PhaseResult[] };
  /** Median of the pairs' ratios (runtime ÷ baseline), and their spread; NaN without pairs. */
  readonly ratio: number;
  readonly spread: number;
}

/** The no-op throughput phase of the runtime with tracing on, paired with the baseline like the main phases. */
export interface TracingRun {
  /** `OTEL_TRACES_SAMPLER_ARG` of the parent-based ratio sampler. */
  readonly ratio: number;
  /** One pair per round, in round order (decision 0088): the i-th ran beside the reference's i-th. */
  readonly pairs: readonly ThroughputPair[];
  /** Median of the pairs' ratios (runtime with tracing ÷ baseline). */
  readonly throughputRatio: number;
  readonly spread: number;
  /**
   * The share of throughput tracing costs: the median over the rounds of 1 − this round's traced
   * ratio ÷ its reference ratio ({@link TracingReference}, decision 0088).
   */
  readonly cost: number | undefined;
  /** Each round's cost, in round order. */
  readonly roundCosts: readonly number[];
  /** 1 − the median traced ratio ÷ the median reference ratio: the cost as taken before decision 0088, for comparison. */
  readonly costOfMedians: number | undefined;
  /**
   * The same rounds with the runtime against itself alone (the traced run's throughput ÷ the round's
   * reference run's), leaving out the baseline runs: a view beside the cost, not the target. Absent
   * in results written before it was added.
   */
  readonly runtimeAlone?: { readonly cost: number; readonly roundCosts: readonly number[] };
  /** OTLP export requests and bytes the local receiver took during the measured runs. */
  readonly exported: { readonly requests: number; readonly bytes: number };
}

/**
 * The tracing dimension's reference: the runtime restarted with tracing off and paired with the
 * baseline exactly as each traced restart is, once per round. Why not the main phases' no-op
 * pairs: those ran on a runtime warmed by its earlier phases, while each traced runtime is a fresh
 * process measured after them, so a cost taken against them also counted the restart.
 */
export interface TracingReference {
  /** One pair per round, in round order (decision 0088). */
  readonly pairs: readonly ThroughputPair[];
  /** Median of the pairs' ratios (runtime restarted with tracing off ÷ baseline). */
  readonly throughputRatio: number;
  readonly spread: number;
}

/** The activator's memory with this many keys' documents in its cache. */
export interface MemoryRow {
  readonly cachedKeys: number;
  /** Resident set of the activator process (`VmRSS`), bytes, a second after the last activation. */
  readonly rssBytes: number;
  /** The activator's `agents_actor_cache_entries` and `agents_actor_cache_bytes` at that moment. */
  readonly cacheEntries: number | undefined;
  readonly cacheBytes: number | undefined;
  /** Activations per second while the keys were made live (open to the whole pipeline, no pairs: not a throughput figure to steer by). */
  readonly activationsPerSecond: number;
}

/** The hops dimension: one protocol-traced `roundtrip-unloaded` run per system, hop by hop. */
export interface HopsRun {
  /** Round trips each system ran (`--hops`), and how many the trace showed whole. */
  readonly events: number;
  readonly roundTrips: Readonly<Record<SystemName, number>>;
  readonly rows: readonly HopRow[];
}

/** A whole run. */
export interface BenchResult {
  readonly format: typeof RESULT_FORMAT;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: MachineFacts;
  readonly options: BenchOptions;
  readonly systems: readonly SystemResult[];
  readonly comparison: Comparison | undefined;
  /** The activators dimension (`--activators`), when measured. */
  readonly activators: readonly ActivatorsRow[];
  /** The live-keys dimension (`--live-keys`), when measured. */
  readonly liveKeys: readonly LiveKeysRow[];
  /** Throughput pairs per throughput phase (`--pairs` each), in run order. */
  readonly pairs: Partial<Record<PhaseName, readonly ThroughputPair[]>>;
  /** Latency pairs per latency phase (`--pairs` each), in run order. */
  readonly latencyPairs: Partial<Record<PhaseName, readonly LatencyPair[]>>;
  /** The tracing dimension (`--tracing`), when measured. */
  readonly tracing: readonly TracingRun[];
  /** The tracing dimension's tracing-off reference, when the dimension was measured. */
  readonly tracingReference: TracingReference | undefined;
  /** The memory dimension (`--memory-keys`), when measured. */
  readonly memory: readonly MemoryRow[];
  /** The hops dimension (`--hops`), when measured. */
  readonly hops: HopsRun | undefined;
  /** Dimensions that failed (`<dimension>: <first line of the error>`); the run exits non-zero. */
  readonly failures: readonly string[];
  /**
   * Each core's speed before the run started anything and after it stopped everything
   * (`undefined`: could not be measured). Uneven cores are named in the report and the check.
   */
  readonly coreSpeeds: { readonly start: CoreSpeeds | undefined; readonly end: CoreSpeeds | undefined };
}
