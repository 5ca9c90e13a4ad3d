/**
 * The figures `npm run bench -- --check` holds a run to (issue 10: "close to the broker"), in
 * one place. Every ratio is the runtime against the bare-JetStream baseline of the same run;
 * a target the run did not measure counts as missed, so a partial run cannot pass the check.
 */
import { MODEL_AGENT, NOOP_AGENT } from './agents/bench-agents.js';
import type { BenchResult, PhaseName } from './report/bench-result.js';

/** One target: a figure read off a run, and the bound it must keep. */
export interface BenchTarget {
  /** Stable name, printed by the check. */
  readonly id: string;
  /** What is measured, in words. */
  readonly figure: string;
  /** `max`: the figure must be ≤ limit; `min`: ≥ limit. */
  readonly bound: 'max' | 'min';
  readonly limit: number;
  /** How the figure is printed (`ratio`, `ms`, `B`, `share`). */
  readonly unit: 'ratio' | 'ms' | 'B' | 'share';
  /** The figure, or undefined when the run did not measure it (and what to run instead). */
  measure(result: BenchResult): number | undefined;
  /**
   * The same figure pair by pair, in run order, for a figure taken as the median over pairs whose
   * spread is not already reported (the latency phases, the tracing rounds): the check names a target whose pairs fall
   * on both sides of its limit, where a pass or a miss says little. Absent: no such view.
   */
  pairs?(result: BenchResult): readonly number[] | undefined;
}

const latencyDelta = (name: PhaseName, percentile: 'p50' | 'p99') => (result: BenchResult): number | undefined => result.comparison?.latencyDeltaMs[name]?.[percentile];
const latencyDeltaPairs = (name: PhaseName, percentile: 'p50' | 'p99') => (result: BenchResult): readonly number[] | undefined => result.latencyPairs[name]?.map((p) => p.deltaMs[percentile]);

/** The targets, in the order the check prints them. */
export const TARGETS: readonly BenchTarget[] = [
  { id: 'cpu-activator', figure: 'CPU per no-op activation, activator ÷ baseline worker', bound: 'max', limit: 1.5, unit: 'ratio', measure: (r) => r.comparison?.cpuRatio.activator },
  { id: 'cpu-ingress', figure: 'CPU per no-op event, ingress ÷ baseline forwarder', bound: 'max', limit: 1.5, unit: 'ratio', measure: (r) => r.comparison?.cpuRatio.ingress },
  { id: 'throughput-noop', figure: 'no-op throughput, runtime ÷ baseline (median pair)', bound: 'min', limit: 0.8, unit: 'ratio', measure: (r) => r.comparison?.throughputRatio['noop-throughput'] },
  { id: 'throughput-model', figure: 'model throughput, runtime ÷ baseline (median pair)', bound: 'min', limit: 0.75, unit: 'ratio', measure: (r) => r.comparison?.throughputRatio['model-throughput'] },
  { id: 'throughput-roundtrip', figure: 'round-trip throughput, runtime ÷ baseline (median pair)', bound: 'min', limit: 0.7, unit: 'ratio', measure: (r) => r.comparison?.throughputRatio['roundtrip-throughput'] },
  { id: 'latency-noop-unloaded-p50', figure: 'noop-unloaded p50, runtime − baseline (median pair)', bound: 'max', limit: 0.3, unit: 'ms', measure: latencyDelta('noop-unloaded', 'p50'), pairs: latencyDeltaPairs('noop-unloaded', 'p50') },
  { id: 'latency-model-low-concurrency-p50', figure: 'model-low-concurrency overhead p50, runtime − baseline (median pair)', bound: 'max', limit: 1, unit: 'ms', measure: latencyDelta('model-low-concurrency', 'p50'), pairs: latencyDeltaPairs('model-low-concurrency', 'p50') },
  { id: 'latency-model-low-concurrency-p99', figure: 'model-low-concurrency overhead p99, runtime − baseline (median pair)', bound: 'max', limit: 5, unit: 'ms', measure: latencyDelta('model-low-concurrency', 'p99'), pairs: latencyDeltaPairs('model-low-concurrency', 'p99') },
  { id: 'latency-roundtrip-unloaded-p50', figure: 'roundtrip-unloaded p50, runtime − baseline (median pair)', bound: 'max', limit: 1, unit: 'ms', measure: latencyDelta('roundtrip-unloaded', 'p50'), pairs: latencyDeltaPairs('roundtrip-unloaded', 'p50') },
  {
    id: 'latency-roundtrip-low-concurrency-p50',
    figure: 'roundtrip-low-concurrency p50, runtime ÷ baseline (median pair)',
    bound: 'max',
    limit: 1.3,
    unit: 'ratio',
    measure: (r) => r.comparison?.latencyRatioP50['roundtrip-low-concurrency'],
    pairs: (r) => r.latencyPairs['roundtrip-low-concurrency']?.map((p) => p.ratioP50),
  },
  {
    id: 'state-no-growth',
    figure: "one key's stored document, bench-model − bench-noop",
    bound: 'max',
    limit: 1_024,
    unit: 'B',
    measure: (r) => {
      const bytes = r.systems.find((s) => s.system === 'runtime')?.stateBytes;
      const model = bytes?.[MODEL_AGENT];
      const noop = bytes?.[NOOP_AGENT];
      return model === undefined || noop === undefined ? undefined : model - noop;
    },
  },
  {
    id: 'tracing-cost-10pct',
    figure: 'throughput cost of tracing at a 10 % parent-based sampling ratio (median round)',
    bound: 'max',
    limit: 0.1,
    unit: 'share',
    measure: (r) => r.tracing.find((t) => t.ratio === 0.1)?.cost,
    // Each round's cost against its own reference pair (decision 0088).
    pairs: (r) => r.tracing.find((t) => t.ratio === 0.1)?.roundCosts,
  },
  {
    id: 'live-keys-1m',
    figure: 'runtime no-op throughput at 1,000,000 live keys ÷ at 1,000 (median runs)',
    bound: 'min',
    limit: 0.8,
    unit: 'ratio',
    measure: (r) => {
      const at = (keys: number): number | undefined => r.liveKeys.find((row) => row.liveKeys === keys)?.runtime?.throughput.steadyPerSecond;
      const many = at(1_000_000);
      const few = at(1_000);
      return many === undefined || few === undefined ? undefined : many / few;
    },
  },
];
