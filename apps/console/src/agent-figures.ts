/**
 * The agents view's figures over a window, from two readings of every service's `/metrics`: the
 * counters' increase between them. Per agent: activations per second, p50 and p99 of
 * `agents_activation_duration_seconds` (interpolated inside the histogram bucket, as Prometheus's
 * `histogram_quantile` does), and error records by reason. A counter that went down (a restarted
 * process) counts from zero, as Prometheus's `increase` does. Pure.
 */
import type { MetricSample } from './prometheus-text.js';

/** One scrape of all targets at one moment. */
export interface MetricsReading {
  readonly atMs: number;
  /** Samples per target URL (a target that did not answer is absent). */
  readonly targets: ReadonlyMap<string, readonly MetricSample[]>;
}

/** One agent's figures over a window. */
export interface AgentFigures {
  readonly agent: string;
  readonly activations: number;
  readonly perSecond: number;
  /** Seconds; undefined with no activation in the window. */
  readonly p50Seconds: number | undefined;
  readonly p99Seconds: number | undefined;
  readonly errorsByReason: Readonly<Record<string, number>>;
}

/** The window the figures cover, and each agent's. */
export interface AgentsWindow {
  /** The window asked for, in ms. */
  readonly windowMs: number;
  /** What the readings really span (shorter while the console has been up for less). */
  readonly coveredMs: number;
  readonly agents: readonly AgentFigures[];
}

const ACTIVATIONS = 'agents_activations_total';
const DURATION_BUCKET = 'agents_activation_duration_seconds_bucket';
const ERRORS = 'agents_error_records_total';

/** The figures between `older` and `newer` (`older` undefined: since the process counters began). */
export function agentFigures(older: MetricsReading | undefined, newer: MetricsReading, windowMs: number): AgentsWindow {
  const coveredMs = older === undefined ? 0 : newer.atMs - older.atMs;
  const activations = new Map<string, number>();
  const errors = new Map<string, Map<string, number>>();
  const buckets = new Map<string, Map<number, number>>();
  for (const [target, samples] of newer.targets) {
    const before = indexByKey(older?.targets.get(target) ?? []);
    for (const sample of samples) {
      const agent = sample.labels.agent;
      if (agent === undefined) continue;
      const delta = increase(before.get(sampleKey(sample)), sample.value);
      if (sample.name === ACTIVATIONS) activations.set(agent, (activations.get(agent) ?? 0) + delta);
      else if (sample.name === ERRORS) {
        const reasons = errors.get(agent) ?? new Map<string, number>();
        reasons.set(sample.labels.reason ?? 'unknown', (reasons.get(sample.labels.reason ?? 'unknown') ?? 0) + delta);
        errors.set(agent, reasons);
      } else if (sample.name === DURATION_BUCKET) {
        const le = sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
        const agentBuckets = buckets.get(agent) ?? new Map<number, number>();
        agentBuckets.set(le, (agentBuckets.get(le) ?? 0) + delta);
        buckets.set(agent, agentBuckets);
      }
    }
  }
  const names = [...new Set([...activations.keys(), ...errors.keys()])].sort();
  const seconds = Math.max(coveredMs, 1) / 1000;
  return {
    windowMs,
    coveredMs,
    agents: names.map((agent) => {
      const count = activations.get(agent) ?? 0;
      const cumulative = [...(buckets.get(agent) ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
      return {
        agent,
        activations: count,
        perSecond: older === undefined ? 0 : round(count / seconds),
        p50Seconds: quantile(0.5, cumulative),
        p99Seconds: quantile(0.99, cumulative),
        errorsByReason: Object.fromEntries([...(errors.get(agent) ?? new Map<string, number>())].filter(([, n]) => n > 0)),
      };
    }),
  };
}

function sampleKey(sample: MetricSample): string {
  return `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
}

function indexByKey(samples: readonly MetricSample[]): Map<string, number> {
  return new Map(samples.map((s) => [sampleKey(s), s.value]));
}

function increase(before: number | undefined, now: number): number {
  if (before === undefined || now < before) return now;
  return now - before;
}

/** `histogram_quantile` over cumulative buckets sorted by upper bound. */
export function quantile(q: number, cumulative: readonly (readonly [number, number])[]): number | undefined {
  const total = cumulative.at(-1)?.[1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [upper, count] of cumulative) {
    if (count >= rank) {
      if (!Number.isFinite(upper)) return lowerBound;
      const inBucket = count - lowerCount;
      return round(inBucket <= 0 ? upper : lowerBound + ((upper - lowerBound) * (rank - lowerCount)) / inBucket);
    }
    lowerBound = upper;
    lowerCount = count;
  }
  return lowerBound;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
