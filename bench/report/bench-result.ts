/**
 * The shape of `bench/results/<timestamp>.json`: everything one run measured, the machine it ran
 * on and the options it ran with, so a figure can always be traced back to its conditions.
 */
import type { BenchOptions } from '../bench-options.js';
import type { MachineFacts } from '../infra/machine-facts.js';
import type { LoadShape } from '../load/load-generator.js';
import type { LatencySummary, ThroughputSummary } from '../stats/summaries.js';
import type { SystemName } from '../system-under-test.js';

/** Version tag of the results format. */
export const RESULT_FORMAT = 'nats-agents-bench/2';

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
  readonly phases: readonly PhaseResult[];
  /** Size of one key's stored state after the run, per agent (bytes). */
  readonly stateBytes: Readonly<Record<string, number>>;
}

/** Runtime ÷ baseline, for the phases both ran. */
export interface Comparison {
  /** Steady throughput ratio per throughput phase. */
  readonly throughputRatio: Partial<Record<PhaseName, number>>;
  /** Runtime − baseline latency (unloaded no-op) or overhead (low-concurrency model) per sequential phase, ms. */
  readonly latencyDeltaMs: Partial<Record<PhaseName, { readonly p50: number; readonly p99: number }>>;
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
  readonly runtime: PhaseResult | undefined;
  readonly baseline: PhaseResult | undefined;
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
}
