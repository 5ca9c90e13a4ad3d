/**
 * The runtime-versus-baseline figures: steady throughput ratios of the throughput phases, and
 * the runtime's extra latency (no-op unloaded, round trip at low concurrency) or overhead (model,
 * low concurrency), percentile by percentile.
 */
import { THROUGHPUT_PHASES, type Comparison, type PhaseName, type SystemResult } from './bench-result.js';

/** Compares `runtime` with `baseline` over the phases both ran. */
export function compareSystems(runtime: SystemResult, baseline: SystemResult): Comparison {
  const throughputRatio: Partial<Record<PhaseName, number>> = {};
  const latencyDeltaMs: Partial<Record<PhaseName, { p50: number; p99: number }>> = {};
  for (const r of runtime.phases) {
    const b = baseline.phases.find((p) => p.phase === r.phase);
    if (b === undefined) continue;
    if (THROUGHPUT_PHASES.includes(r.phase)) {
      throughputRatio[r.phase] = r.throughput.steadyPerSecond / b.throughput.steadyPerSecond;
    } else {
      const rs = r.overheadMs ?? r.latencyMs;
      const bs = b.overheadMs ?? b.latencyMs;
      latencyDeltaMs[r.phase] = { p50: rs.p50 - bs.p50, p99: rs.p99 - bs.p99 };
    }
  }
  return { throughputRatio, latencyDeltaMs };
}
