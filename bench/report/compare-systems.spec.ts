import { describe, expect, it } from 'vitest';
import type { PhaseName, PhaseResult, SystemResult } from './bench-result.js';
import { compareSystems, latencyPairOf, median, medianLatencyPair, medianPair, pairOf, referenceCpu, runtimeCpu, spread, tracingCost, tracingCpuCost, tracingReference, tracingRuntimeCost } from './compare-systems.js';

/** A phase result with only what the comparison reads. */
function phase(name: PhaseName, perSecond: number, cpuMsPerEvent: Record<string, number> = {}, p50 = 1): PhaseResult {
  const latency = { samples: 1_000, mean: p50, p50, p90: p50, p99: p50 * 2, max: p50 * 3 };
  return {
    phase: name,
    agent: 'bench-noop',
    shape: { kind: 'window', events: 100, window: 10 },
    keys: 10,
    events: 100,
    warmupEvents: 0,
    modelLatencyMs: 0,
    durationMs: 1_000,
    throughput: { steadyPerSecond: perSecond, overallPerSecond: perSecond },
    latencyMs: latency,
    overheadMs: undefined,
    duplicates: 0,
    outOfOrder: 0,
    strays: 0,
    cpuMsPerEvent,
    cpuCores: {},
    storedPerEvent: {},
    otherCores: 0,
  } as unknown as PhaseResult;
}

const system = (name: 'runtime' | 'baseline', phases: PhaseResult[]): SystemResult => ({ system: name, partitions: 16, phases, stateBytes: {} });

describe('compareSystems', () => {
  it('takes the median and the spread of the pairs, not of the runs', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
    expect(spread([0.8, 1, 1.2])).toBeCloseTo(0.4);
    expect(spread([0.5])).toBe(0);
  });

  it('rates each throughput phase by its median pair ratio and shows that pair', () => {
    const pairs = [pairOf(phase('noop-throughput', 500), phase('noop-throughput', 1_000)), pairOf(phase('noop-throughput', 900), phase('noop-throughput', 1_000)), pairOf(phase('noop-throughput', 800), phase('noop-throughput', 1_000))];
    const shown = medianPair(pairs);
    expect(shown?.ratio).toBeCloseTo(0.8);
    const comparison = compareSystems(system('runtime', [shown!.runtime]), system('baseline', [shown!.baseline]), { 'noop-throughput': pairs });
    expect(comparison.throughputRatio['noop-throughput']).toBeCloseTo(0.8);
    expect(comparison.throughputPairs['noop-throughput']).toEqual([0.5, 0.9, 0.8]);
    expect(comparison.throughputSpread['noop-throughput']).toBeCloseTo(0.5);
  });

  it('compares CPU per event role by role (activator vs worker, ingress vs forwarder), median over the pairs', () => {
    const pair = (activator: number, worker: number) =>
      pairOf(phase('noop-throughput', 1_000, { activator, ingress: 0.2, 'nats-server': 1 }), phase('noop-throughput', 1_000, { 'baseline-worker': worker, 'baseline-forwarder': 0.1, 'nats-server': 1 }));
    const pairs = [pair(0.3, 0.1), pair(0.2, 0.1), pair(0.5, 0.1)];
    const comparison = compareSystems(system('runtime', [pairs[0]!.runtime]), system('baseline', [pairs[0]!.baseline]), { 'noop-throughput': pairs });
    expect(comparison.cpuRatio.activator).toBeCloseTo(3);
    expect(comparison.cpuRatio.ingress).toBeCloseTo(2);
  });

  it('subtracts latencies of the sequential phases, and falls back to one pair without pairs', () => {
    const comparison = compareSystems(system('runtime', [phase('noop-unloaded', 100, {}, 1.5), phase('model-throughput', 50)]), system('baseline', [phase('noop-unloaded', 100, {}, 1), phase('model-throughput', 100)]));
    expect(comparison.latencyDeltaMs['noop-unloaded']).toEqual({ p50: 0.5, p99: 1 });
    expect(comparison.throughputRatio['model-throughput']).toBe(0.5);
    expect(comparison.throughputSpread['model-throughput']).toBe(0);
  });

  it('rates each latency phase by the median over its pairs, p50 and p99 each, and shows the median-p50 pair', () => {
    const pair = (runtimeP50: number, baselineP50: number) => latencyPairOf(phase('roundtrip-low-concurrency', 100, {}, runtimeP50), phase('roundtrip-low-concurrency', 100, {}, baselineP50));
    // Deltas p50 2, 9, 4 (p99 4, 18, 8); p50 ratios 1.2, 1.9, 1.4.
    const pairs = [pair(12, 10), pair(19, 10), pair(14, 10)];
    const shown = medianLatencyPair(pairs);
    expect(shown?.deltaMs.p50).toBe(4);
    const comparison = compareSystems(system('runtime', [shown!.runtime]), system('baseline', [shown!.baseline]), {}, { 'roundtrip-low-concurrency': pairs });
    expect(comparison.latencyDeltaMs['roundtrip-low-concurrency']).toEqual({ p50: 4, p99: 8 });
    expect(comparison.latencyRatioP50['roundtrip-low-concurrency']).toBeCloseTo(1.4);
  });
});

describe('tracingReference', () => {
  const pairAt = (ratio: number) => pairOf(phase('noop-throughput', 1_000 * ratio), phase('noop-throughput', 1_000));

  it('takes its ratio and spread over its pairs, one per round', () => {
    const reference = tracingReference([1.0, 0.8, 1.02].map(pairAt));
    expect(reference.throughputRatio).toBeCloseTo(1.0);
    expect(reference.pairs.map((p) => p.ratio)).toEqual([1.0, 0.8, 1.02]);
    expect(reference.spread).toBeCloseTo((1.02 - 0.8) / 1.0);
  });
});

describe('tracingCost', () => {
  const pairAt = (ratio: number) => pairOf(phase('noop-throughput', 1_000 * ratio), phase('noop-throughput', 1_000));

  it('takes each round\'s traced pair against the same round\'s reference pair, so a round the host slowed for both costs nothing', () => {
    // Round 2 ran on a slow host: its reference and its traced pair both fell to 0.6 and 0.57.
    const reference = tracingReference([1.0, 0.6, 1.0].map(pairAt));
    const { cost, roundCosts, ofMedians } = tracingCost([0.95, 0.57, 0.9].map(pairAt), reference);
    expect(roundCosts.map((c) => Number(c.toFixed(3)))).toEqual([0.05, 0.05, 0.1]);
    expect(cost).toBeCloseTo(0.05);
    // Taken as a ratio of medians, the slow round's traced pair is no longer set against its own reference.
    expect(ofMedians).toBeCloseTo(0.1);
  });

  it('refuses rounds that do not match', () => {
    expect(() => tracingCost([pairAt(1)], tracingReference([pairAt(1), pairAt(1)]))).toThrow(/1 traced pairs against 2 reference pairs/);
  });
});

describe('tracingRuntimeCost', () => {
  /** A pair of a runtime run at `runtime` events/s and a baseline run at `baseline`. */
  const pairOfRates = (runtime: number, baseline: number) => pairOf(phase('noop-throughput', runtime), phase('noop-throughput', baseline));

  it('sets each round\'s traced runtime against that round\'s reference runtime, so a baseline run that ran fast or slow moves nothing', () => {
    // Round 2's reference baseline ran 30 % fast: the paired cost of that round goes negative, the runtime's own does not.
    const reference = tracingReference([pairOfRates(1_000, 1_000), pairOfRates(1_000, 1_300), pairOfRates(800, 800)]);
    const traced = [pairOfRates(900, 1_000), pairOfRates(880, 1_000), pairOfRates(720, 800)];
    const alone = tracingRuntimeCost(traced, reference);
    expect(alone.roundCosts.map((c) => Number(c.toFixed(3)))).toEqual([0.1, 0.12, 0.1]);
    expect(alone.cost).toBeCloseTo(0.1);
    expect(tracingCost(traced, reference).roundCosts[1]).toBeLessThan(0);
  });

  it('refuses rounds that do not match', () => {
    expect(() => tracingRuntimeCost([pairOfRates(1, 1)], tracingReference([pairOfRates(1, 1), pairOfRates(1, 1)]))).toThrow(/1 traced pairs against 2 reference pairs/);
  });
});

describe('tracingCpuCost', () => {
  /** A pair whose runtime spent `activator` ms of CPU per event; the throughput ratio is beside the point. */
  const pairWithCpu = (activator: number, ratio = 1) => pairOf(phase('noop-throughput', 1_000 * ratio, { activator, ingress: 0.05 }), phase('noop-throughput', 1_000));

  it('compares each round\'s traced CPU per event with that round\'s reference, the median round, whatever the throughput ratios did', () => {
    // The host moved the reference between rounds (0.1, 0.12, 0.08 ms); each traced run paid 30 % over its own round's.
    const reference = tracingReference([0.1, 0.12, 0.08].map((cpu) => pairWithCpu(cpu, 1.2)));
    const traced = [0.13, 0.156, 0.104].map((cpu) => pairWithCpu(cpu, 0.9));
    expect(tracingCpuCost(traced, reference, 'activator')).toBeCloseTo(0.3);
    expect(tracingCpuCost(traced, reference, 'ingress')).toBeCloseTo(0);
    expect(runtimeCpu(traced, 'activator')).toBeCloseTo(0.13);
    expect(referenceCpu(reference, 'activator')).toBeCloseTo(0.1);
  });

  it('has no figure for a role some run did not record', () => {
    const reference = tracingReference([pairWithCpu(0.1)]);
    expect(tracingCpuCost([pairWithCpu(0.13)], reference, 'effector')).toBeUndefined();
    expect(tracingCpuCost([], reference, 'activator')).toBeUndefined();
    expect(runtimeCpu([], 'activator')).toBeUndefined();
  });
});
