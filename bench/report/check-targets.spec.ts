import { describe, expect, it } from 'vitest';
import type { BenchTarget } from '../targets.js';
import { TARGETS } from '../targets.js';
import type { BenchResult, Comparison } from './bench-result.js';
import { checkTargets, renderCheck } from './check-targets.js';

const comparison = (over: Partial<Comparison> = {}): Comparison => ({ throughputRatio: {}, throughputPairs: {}, throughputSpread: {}, cpuRatio: {}, latencyDeltaMs: {}, latencyRatioP50: {}, ...over });

/** A result holding only a comparison (every other dimension empty). */
const result = (c: Comparison | undefined): BenchResult => ({ systems: [], comparison: c, activators: [], liveKeys: [], pairs: {}, latencyPairs: {}, tracing: [], memory: [], failures: [], coreSpeeds: { start: undefined, end: undefined } }) as unknown as BenchResult;

const ratioTarget: BenchTarget = { id: 'noop', figure: 'no-op ratio', bound: 'min', limit: 0.8, unit: 'ratio', measure: (r) => r.comparison?.throughputRatio['noop-throughput'] };
const cpuTarget: BenchTarget = { id: 'cpu', figure: 'cpu ratio', bound: 'max', limit: 1.5, unit: 'ratio', measure: (r) => r.comparison?.cpuRatio.activator };

describe('checkTargets', () => {
  it('meets a minimum at or above it and a maximum at or below it', () => {
    const check = checkTargets(result(comparison({ throughputRatio: { 'noop-throughput': 0.8 }, cpuRatio: { activator: 1.5 } })), [ratioTarget, cpuTarget]);
    expect(check.missed).toEqual([]);
    expect(renderCheck(check).at(-1)).toBe('all 2 targets met');
  });

  it('names each target missed, with its figure and bound', () => {
    const check = checkTargets(result(comparison({ throughputRatio: { 'noop-throughput': 0.62 }, cpuRatio: { activator: 2.4 } })), [ratioTarget, cpuTarget]);
    expect(check.missed.map((v) => v.target.id)).toEqual(['noop', 'cpu']);
    const lines = renderCheck(check);
    expect(lines[0]).toBe('MISSED noop: no-op ratio = 0.62 (target ≥ 0.80)');
    expect(lines.at(-1)).toBe('2 of 2 targets missed: noop, cpu');
  });

  it('counts a target the run did not measure as missed, so a partial run cannot pass', () => {
    const check = checkTargets(result(undefined));
    expect(check.missed).toHaveLength(TARGETS.length);
    expect(renderCheck(check)[0]).toMatch(/^MISSED cpu-activator: .* = not measured/);
  });

  it('names the ratios whose pairs disagree by more than 15 %', () => {
    const check = checkTargets(result(comparison({ throughputRatio: { 'noop-throughput': 0.9 }, throughputSpread: { 'noop-throughput': 0.2, 'model-throughput': 0.05 } })), [ratioTarget]);
    expect(check.noisy).toEqual(['noop-throughput (spread 20 %)']);
    expect(renderCheck(check).at(-1)).toMatch(/^noisy ratios/);
  });

  it('names a live-keys row whose pairs disagree by more than 15 %', () => {
    const row = (liveKeys: number, spread: number) => ({ liveKeys, spread, ratio: 1, runs: { runtime: [], baseline: [] } });
    const check = checkTargets({ ...result(comparison()), liveKeys: [row(1_000, 0.1), row(1_000_000, 0.31)] } as unknown as BenchResult, [ratioTarget]);
    expect(check.noisy).toEqual(['live keys 1000000 (spread 31 %)']);
  });

  it('names the tracing reference when its pairs, one per round, disagree by more than 15 %', () => {
    const reference = (spread: number) => ({ pairs: [], throughputRatio: 1, spread });
    expect(checkTargets({ ...result(comparison()), tracingReference: reference(0.1) } as unknown as BenchResult, [ratioTarget]).noisy).toEqual([]);
    expect(checkTargets({ ...result(comparison()), tracingReference: reference(0.24) } as unknown as BenchResult, [ratioTarget]).noisy).toEqual(['tracing reference (spread 24 %)']);
  });

  it('names a latency target whose pairs fall on both sides of its limit, met or missed, and not one whose pairs agree', () => {
    const pair = (p50: number, p99: number) => ({ deltaMs: { p50, p99 }, ratioP50: 1 });
    const p99 = TARGETS.find((t) => t.id === 'latency-model-low-concurrency-p99');
    const p50 = TARGETS.find((t) => t.id === 'latency-model-low-concurrency-p50');
    const withPairs = (pairs: ReturnType<typeof pair>[]): BenchResult => ({ ...result(comparison()), latencyPairs: { 'model-low-concurrency': pairs } }) as unknown as BenchResult;
    // Check D of run 21: p99 deltas 15.31, 1.26, 8.36, 5.52, 10.30 ms, p50 deltas all within 1 ms here.
    const check = checkTargets(withPairs([pair(0.9, 15.31), pair(0.8, 1.26), pair(0.7, 8.36), pair(0.6, 5.52), pair(0.5, 10.3)]), [p99!, p50!]);
    expect(check.split).toEqual(['latency-model-low-concurrency-p99 (15.31 ms, 1.26 ms, 8.36 ms, 5.52 ms, 10.30 ms; target ≤ 5.00 ms)']);
    expect(renderCheck(check)).toContain('split verdicts (pairs on both sides of the limit): latency-model-low-concurrency-p99 (15.31 ms, 1.26 ms, 8.36 ms, 5.52 ms, 10.30 ms; target ≤ 5.00 ms)');
    expect(checkTargets(withPairs([pair(0.9, 6), pair(0.8, 7)]), [p99!, p50!]).split).toEqual([]);
    expect(checkTargets(result(comparison()), [p99!]).split).toEqual([]);
  });

  it('reads the round-trip p50 ratio\'s pairs for its split verdict', () => {
    const ratio = TARGETS.find((t) => t.id === 'latency-roundtrip-low-concurrency-p50');
    const withRatios = (ratios: number[]): BenchResult => ({ ...result(comparison()), latencyPairs: { 'roundtrip-low-concurrency': ratios.map((ratioP50) => ({ deltaMs: { p50: 0, p99: 0 }, ratioP50 })) } }) as unknown as BenchResult;
    expect(checkTargets(withRatios([1.2, 1.35, 1.28]), [ratio!]).split).toEqual(['latency-roundtrip-low-concurrency-p50 (1.20, 1.35, 1.28; target ≤ 1.30)']);
  });

  it('reads the tracing target off the median round and names rounds on both sides of its limit', () => {
    const tracing = TARGETS.find((t) => t.id === 'tracing-cost-10pct');
    const run = (ratio: number, roundCosts: number[], cost: number) => ({ ratio, roundCosts, cost, spread: 0 });
    const withRuns = (...runs: ReturnType<typeof run>[]): BenchResult => ({ ...result(comparison()), tracing: runs }) as unknown as BenchResult;
    const check = checkTargets(withRuns(run(0.1, [0.04, 0.12, 0.08], 0.08), run(1, [0.3, 0.2, 0.25], 0.25)), [tracing!]);
    expect(check.missed).toEqual([]);
    expect(check.split).toEqual(['tracing-cost-10pct (4.0 %, 12.0 %, 8.0 %; target ≤ 10.0 %)']);
    expect(checkTargets(withRuns(run(0.1, [0.04, 0.06, 0.08], 0.06)), [tracing!]).split).toEqual([]);
  });

  it('reads the live-keys target off each row\'s median runtime run', () => {
    const live = TARGETS.find((t) => t.id === 'live-keys-1m');
    const row = (liveKeys: number, perSecond: number) => ({ liveKeys, runtime: { throughput: { steadyPerSecond: perSecond } } });
    const value = live?.measure({ ...result(undefined), liveKeys: [row(1_000, 5_000), row(1_000_000, 4_100)] } as unknown as BenchResult);
    expect(value).toBeCloseTo(0.82, 5);
  });

  it('names uneven cores, at start or at end, and says nothing of even or unmeasured ones', () => {
    const speeds = (perCore: number[]) => ({ perCore, fastestOverSlowest: Math.max(...perCore) / Math.min(...perCore) });
    const withSpeeds = (start: ReturnType<typeof speeds> | undefined, end: ReturnType<typeof speeds> | undefined): BenchResult => ({ ...result(comparison()), coreSpeeds: { start, end } }) as BenchResult;
    const uneven = checkTargets(withSpeeds(speeds([100, 100]), speeds([160, 100])), [ratioTarget]);
    expect(uneven.unevenCores).toBe('uneven cores: the same loop pinned to each core ran fastest ÷ slowest 1.00 at start, 1.60 at end');
    expect(renderCheck(uneven).at(-1)).toBe(uneven.unevenCores);
    expect(checkTargets(withSpeeds(speeds([100, 110]), undefined), [ratioTarget]).unevenCores).toBeUndefined();
    expect(checkTargets(withSpeeds(undefined, undefined), [ratioTarget]).unevenCores).toBeUndefined();
  });

  it('keeps every issue-10 target in one table with a unique id', () => {
    const ids = TARGETS.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['cpu-activator', 'cpu-ingress', 'throughput-noop', 'throughput-model', 'throughput-roundtrip', 'state-no-growth', 'tracing-cost-10pct', 'live-keys-1m']));
  });
});
