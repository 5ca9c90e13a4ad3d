/**
 * The phases every system runs, and how one phase is measured: an unmeasured warm-up of the same
 * shape (it also creates each key's state, so the measured run exercises updates, not creates),
 * then the measured run with the CPU time of every participant metered around it.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { MODEL_AGENT, NOOP_AGENT, TOOL_AGENT } from './agents/bench-agents.js';
import type { BenchOptions } from './bench-options.js';
import { startCpuMeter, type CpuParticipant } from './infra/process-cpu.js';
import { storedBetween, streamLastSeqs } from './infra/stream-writes.js';
import { runLoad, type LoadShape } from './load/load-generator.js';
import { MODEL_LOW_PACE } from './load/start-offsets.js';
import type { PhaseName, PhaseResult } from './report/bench-result.js';
import { summarizeLatency, summarizeThroughput } from './stats/summaries.js';
import type { SystemUnderTest } from './system-under-test.js';

/** One phase's plan. */
export interface PhasePlan {
  readonly phase: PhaseName;
  /** Distinguishes runs of the same phase in one benchmark (e.g. `a2`, `lk100000`); part of the correlation tag. */
  readonly variant?: string;
  readonly agent: string;
  readonly keys: readonly string[];
  /** Keys of the warm-up when not `keys`. */
  readonly warmupKeys?: readonly string[];
  readonly warmup: LoadShape;
  readonly measured: LoadShape;
  readonly modelLatencyMs: number;
}

/** Key tokens `<prefix>-00000`…; subject-safe, so the token is the key. */
export function keyTokens(prefix: string, count: number): string[] {
  const width = String(Math.max(0, count - 1)).length;
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(width, '0')}`);
}

/**
 * The phases in the order they run (those selected by `options.phases`):
 * - `noop-throughput`: no-op agent, K keys, closed loop with `window` in flight: saturation.
 * - `noop-unloaded`: no-op agent, one key, one event in flight in the whole system: the latency
 *   floor of an activation with nothing queued anywhere.
 *   Each run warms up with as many events as it measures (decision 0094), as both unloaded phases do.
 * - `model-throughput`: as `noop-throughput` with one model call of fixed latency per activation.
 * - `model-low-concurrency`: model agent, a modest number of keys, one event in flight per key:
 *   overhead = latency − model latency, with little queueing. The keys start spread evenly over
 *   one model latency (decision 0080): started together, they would stay in step and every cycle
 *   would offer all of them in the same millisecond. Each key's events are due every
 *   {@link MODEL_LOW_PACE} model latencies from its start (decision 0082), so the spread lasts:
 *   a closed loop falls back into step after the first pause that delays several keys at once.
 * - `roundtrip-unloaded`: round-trip agent (intent → effector → result → resume), one key, one
 *   event in flight in the whole system: the latency floor of the whole loop.
 * - `roundtrip-low-concurrency`: round-trip agent, the overhead phase's keys and events, one in
 *   flight per key: the loop's latency under moderate load (a round trip costs several times an
 *   activation's CPU, so 50 in flight is already near saturation on two cores).
 * - `roundtrip-throughput`: round-trip agent, K keys, one event in flight per key (so no event
 *   ever waits behind a suspension), N / K events per key: round trips per second at saturation.
 */
export function planPhases(options: BenchOptions): PhasePlan[] {
  const throughputKeys = keyTokens('tp', options.keys);
  const lowKeys = keyTokens('lc', options.overheadKeys);
  const unloadedKeys = keyTokens('un', 1);
  const throughput = (phase: PhaseName, agent: string, modelLatencyMs: number): PhasePlan => ({
    phase,
    agent,
    keys: throughputKeys,
    warmup: { kind: 'window', events: options.warmupEvents, window: options.window },
    measured: { kind: 'window', events: options.events, window: options.window },
    modelLatencyMs,
  });
  // One measured run's worth of warm-up before every run of an unloaded phase (decision 0094): the
  // round-trip path first runs in roundtrip-unloaded, and 50 events left its first measured pair the
  // runtime's worst in 26 of 37 checks, still warming up, even after the lead-in pair.
  const unloaded: LoadShape = { kind: 'per-key', eventsPerKey: options.unloadedEvents };
  const plans: PhasePlan[] = [
    throughput('noop-throughput', NOOP_AGENT, 0),
    {
      phase: 'noop-unloaded',
      agent: NOOP_AGENT,
      keys: unloadedKeys,
      warmup: unloaded,
      measured: unloaded,
      modelLatencyMs: 0,
    },
    throughput('model-throughput', MODEL_AGENT, options.modelLatencyMs),
    {
      phase: 'model-low-concurrency',
      agent: MODEL_AGENT,
      keys: lowKeys,
      warmup: { kind: 'per-key', eventsPerKey: options.overheadWarmupPerKey, startSpreadMs: options.modelLatencyMs, paceMs: MODEL_LOW_PACE * options.modelLatencyMs },
      measured: { kind: 'per-key', eventsPerKey: options.overheadEventsPerKey, startSpreadMs: options.modelLatencyMs, paceMs: MODEL_LOW_PACE * options.modelLatencyMs },
      modelLatencyMs: options.modelLatencyMs,
    },
    {
      phase: 'roundtrip-unloaded',
      agent: TOOL_AGENT,
      keys: keyTokens('ru', 1),
      warmup: unloaded,
      measured: unloaded,
      modelLatencyMs: 0,
    },
    {
      phase: 'roundtrip-low-concurrency',
      agent: TOOL_AGENT,
      keys: keyTokens('rl', options.overheadKeys),
      warmup: { kind: 'per-key', eventsPerKey: options.overheadWarmupPerKey },
      measured: { kind: 'per-key', eventsPerKey: options.overheadEventsPerKey },
      modelLatencyMs: 0,
    },
    {
      phase: 'roundtrip-throughput',
      agent: TOOL_AGENT,
      keys: keyTokens('rt', options.keys),
      warmup: { kind: 'per-key', eventsPerKey: Math.max(1, Math.round(options.warmupEvents / options.keys)) },
      measured: { kind: 'per-key', eventsPerKey: Math.max(1, Math.ceil(options.events / options.keys)) },
      modelLatencyMs: 0,
    },
  ];
  return plans.filter((plan) => options.phases.includes(plan.phase));
}

/** True when a plan needs the effector (runtime) or the baseline's effector role. */
export function needsEffector(plans: readonly PhasePlan[]): boolean {
  return plans.some((plan) => plan.agent === TOOL_AGENT);
}

/**
 * The no-op throughput phase over `liveKeys` keys that all have state: N events on `keys` (live
 * keys spread evenly over all of them, one event each when N ≤ live keys), event i on key
 * i mod `keys`, the usual window in flight. Its warm-up uses other keys (`lw-…`), so the measured
 * events find their keys in the store, not in a service's cache: every measured event is then
 * its key's first since the services started. Every run of the dimension is a fresh process, so
 * the warm-up is at least one measured run's worth of events (decision 0082, as decision 0081
 * does for the tracing dimension's restarts): the runs then compare warm code, not JIT warm-up.
 */
export function planLiveKeysPhase(options: BenchOptions, liveKeys: number, keys: readonly string[]): PhasePlan {
  return {
    phase: 'noop-throughput',
    variant: `lk${liveKeys}`,
    agent: NOOP_AGENT,
    keys,
    warmupKeys: keyTokens('lw', options.keys),
    warmup: { kind: 'window', events: Math.max(options.warmupEvents, options.events), window: options.window },
    measured: { kind: 'window', events: options.events, window: options.window },
    modelLatencyMs: 0,
  };
}

/** Everything a phase run needs besides its plan. */
export interface PhaseContext {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly system: SystemUnderTest;
  /** Processes metered besides the system's own (nats-server, the load generator). */
  readonly sharedParticipants: readonly CpuParticipant[];
  readonly stallTimeoutMs: number;
  /** Progress messages (stderr). */
  readonly log: (message: string) => void;
}

function eventCount(shape: LoadShape, keys: number): number {
  return shape.kind === 'window' ? shape.events : shape.eventsPerKey * keys;
}

/**
 * An unmeasured run of `events` events of `plan`'s measured shape, for a system just restarted
 * (decision 0081): its code is cold (interpreted, then optimized tier by tier), and a phase's own
 * warm-up of 2 × K events leaves the first measured run still paying for that. Nothing is metered.
 */
export async function warmRestarted(context: PhaseContext, plan: PhasePlan, events: number): Promise<void> {
  if (events <= 0) return;
  const tag = `${context.system.name}-${plan.variant === undefined ? '' : `${plan.variant}-`}restart-${plan.phase}`;
  const shape: LoadShape = plan.measured.kind === 'window' ? { ...plan.measured, events } : plan.measured;
  context.log(`${tag}: warm-up after a restart, ${eventCount(shape, plan.keys.length)} events`);
  await runLoad(context.nc, context.js, context.system, { run: `${tag}-warmup`, agent: plan.agent, keys: plan.keys, shape, stallTimeoutMs: context.stallTimeoutMs });
}

/** Runs one phase (warm-up, then measured) and summarizes it. */
export async function runPhase(context: PhaseContext, plan: PhasePlan): Promise<PhaseResult> {
  const { system } = context;
  const tag = `${system.name}-${plan.variant === undefined ? '' : `${plan.variant}-`}${plan.phase}`;
  const warmupKeys = plan.warmupKeys ?? plan.keys;
  const warmupEvents = eventCount(plan.warmup, warmupKeys.length);
  if (warmupEvents > 0) {
    context.log(`${tag}: warm-up, ${warmupEvents} events`);
    await runLoad(context.nc, context.js, system, { run: `${tag}-warmup`, agent: plan.agent, keys: warmupKeys, shape: plan.warmup, stallTimeoutMs: context.stallTimeoutMs });
  }
  const participants = [...system.processes, ...context.sharedParticipants];
  context.log(`${tag}: measuring, ${eventCount(plan.measured, plan.keys.length)} events`);
  const seqsBefore = await streamLastSeqs(context.jsm);
  const meter = startCpuMeter(participants);
  const observed = await runLoad(context.nc, context.js, system, { run: tag, agent: plan.agent, keys: plan.keys, shape: plan.measured, stallTimeoutMs: context.stallTimeoutMs });
  const cpu = meter.stop();
  const stored = storedBetween(seqsBefore, await streamLastSeqs(context.jsm));
  const storedPerEvent: Record<string, number> = {};
  for (const [stream, count] of Object.entries(stored)) storedPerEvent[stream] = observed.events > 0 ? count / observed.events : Number.NaN;
  const perEvent: Record<string, number> = {};
  const cores: Record<string, number> = {};
  for (const [name, ms] of Object.entries(cpu.byParticipant)) {
    perEvent[name] = observed.events > 0 ? ms / observed.events : Number.NaN;
    cores[name] = observed.durationMs > 0 ? ms / observed.durationMs : Number.NaN;
  }
  const result: PhaseResult = {
    phase: plan.phase,
    agent: plan.agent,
    shape: plan.measured,
    keys: plan.keys.length,
    events: observed.events,
    warmupEvents,
    modelLatencyMs: plan.modelLatencyMs,
    durationMs: observed.durationMs,
    throughput: summarizeThroughput(observed.completionsMs),
    latencyMs: summarizeLatency(observed.latenciesMs),
    overheadMs: plan.modelLatencyMs > 0 ? summarizeLatency(observed.latenciesMs, plan.modelLatencyMs) : undefined,
    duplicates: observed.duplicates,
    outOfOrder: observed.outOfOrder,
    strays: observed.strays,
    cpuMsPerEvent: perEvent,
    cpuCores: cores,
    storedPerEvent,
    otherCores: cpu.others === undefined || observed.durationMs <= 0 ? undefined : cpu.others / observed.durationMs,
  };
  context.log(
    `${tag}: ${result.throughput.steadyPerSecond.toFixed(0)}/s steady, latency p50 ${result.latencyMs.p50.toFixed(2)} ms p99 ${result.latencyMs.p99.toFixed(2)} ms` +
      (result.overheadMs ? `, overhead p50 ${result.overheadMs.p50.toFixed(2)} ms p99 ${result.overheadMs.p99.toFixed(2)} ms` : '') +
      (result.otherCores !== undefined ? `; other processes ${result.otherCores.toFixed(2)} cores` : ''),
  );
  return result;
}
