/**
 * The two summaries the benchmark reports: a latency distribution (nearest-rank percentiles over
 * every sample, never over per-run means) and throughput over the steady window of a run (the
 * middle of its completions, so ramp-up and drain do not dilute the rate).
 */

/** A latency distribution in ms. */
export interface LatencySummary {
  readonly samples: number;
  readonly min: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Throughput of one run, in completions per second. */
export interface ThroughputSummary {
  /** Completions per second between the `from` and `to` quantiles of completion times. */
  readonly steadyPerSecond: number;
  /** The steady window as completion quantiles, e.g. [0.1, 0.9]. */
  readonly steadyWindow: readonly [number, number];
  /** Length of the steady window in ms. */
  readonly steadyWindowMs: number;
  /** All completions / (first publish → last completion). */
  readonly overallPerSecond: number;
}

/** Nearest-rank percentile `q` (0..1) of ascending `sorted`. */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

/** Summarizes `values` (ms), shifted by `minus` (e.g. the nominal model latency). */
export function summarizeLatency(values: Float64Array, minus = 0): LatencySummary {
  const sorted = Float64Array.from(values, (v) => v - minus).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    samples: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/**
 * Throughput from ascending completion times (ms from the first publish): the rate between the
 * `from` and `to` quantiles (default the middle 80 %), and the overall rate.
 */
export function summarizeThroughput(completionsMs: Float64Array, from = 0.1, to = 0.9): ThroughputSummary {
  const n = completionsMs.length;
  const first = Math.floor(from * n);
  const last = Math.max(first, Math.ceil(to * n) - 1);
  const windowMs = (completionsMs[last] ?? 0) - (completionsMs[first] ?? 0);
  const total = completionsMs[n - 1] ?? 0;
  return {
    steadyPerSecond: windowMs > 0 ? ((last - first) * 1_000) / windowMs : Number.NaN,
    steadyWindow: [from, to],
    steadyWindowMs: windowMs,
    overallPerSecond: total > 0 ? (n * 1_000) / total : Number.NaN,
  };
}
