/**
 * Renders a {@link BenchResult} as the short markdown report (`bench/results/latest.md`, also
 * printed): conditions first, then throughput, latency and overhead against the budgets, CPU
 * per event, and the correctness counters.
 */
import type { BenchResult, PhaseName, PhaseResult, SystemResult } from './bench-result.js';

/** beam-agents' gated budget for runtime overhead per activation (ARCHITECTURE §10). */
export const OVERHEAD_BUDGET_MS = { p50: 15, p99: 60 } as const;

/** Fewer pooled samples than this make a p99 inadmissible (beam-agents' gate discipline). */
export const MIN_SAMPLES = 1_000;

/** Cores used by other processes during a phase above which the report calls the run noisy. */
export const NOISY_OTHER_CORES = 0.2;

/** CPU table columns: the same role in either system, by process name. */
const CPU_COLUMNS: readonly (readonly [string, readonly string[]])[] = [
  ['nats-server', ['nats-server']],
  ['ingress / forwarder', ['ingress', 'baseline-forwarder']],
  ['activator / worker', ['activator', 'baseline-worker']],
  ['load generator', ['load-generator']],
];

const fmt = (value: number | undefined, digits = 1): string => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits));
const int = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? '–' : Math.round(value).toLocaleString('en-US'));

function phaseOf(system: SystemResult | undefined, phase: PhaseName): PhaseResult | undefined {
  return system?.phases.find((p) => p.phase === phase);
}

function conditions(result: BenchResult): string[] {
  const runtime = result.systems.find((s) => s.system === 'runtime');
  const baseline = result.systems.find((s) => s.system === 'baseline');
  const o = result.options;
  const m = result.machine;
  const lines = [
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.totalMemoryGiB} GiB; ${m.os}; Node ${m.node}; nats-server ${m.natsServer}; ` +
      `load average at start ${m.loadAverageAtStart.join(' / ')}; commit ${m.gitCommit?.slice(0, 10) ?? 'unknown'}. ` +
      'Server, services and load generator share the machine.',
    '',
    `Run ${result.startedAt} → ${result.finishedAt}. Throughput phases: N = ${int(o.events)} events over K = ${int(o.keys)} keys, ` +
      `closed loop with ${int(o.window)} in flight, after ${int(o.warmupEvents)} warm-up events. ` +
      `Unloaded phase: ${int(o.unloadedEvents)} sequential events on one key. ` +
      `Overhead phase: ${int(o.overheadKeys)} keys × ${int(o.overheadEventsPerKey)} sequential events (one in flight per key, ` +
      `${int(o.overheadWarmupPerKey)} warm-up each). Model latency ${o.modelLatencyMs} ms (FakeLlm timer). ` +
      `Runtime partitions: ${runtime?.partitions ?? '–'}; baseline inbox consumers: ${baseline?.partitions ?? '–'}.`,
  ];
  const experiments = [
    ...(Object.keys(o.serviceEnv).length > 0 ? [`service env ${Object.entries(o.serviceEnv).map(([k, v]) => `${k}=${v}`).join(' ')}`] : []),
    ...(o.baselineNoAsyncTraces ? ['baseline clients with noAsyncTraces'] : []),
    ...(o.nodeFlags.length > 0 ? [`node flags ${o.nodeFlags.join(' ')}`] : []),
  ];
  if (experiments.length > 0) lines.push('', `**Experiment settings:** ${experiments.join('; ')}.`);
  const noisy = result.systems.flatMap((s) => s.phases.filter((p) => (p.otherCores ?? 0) > NOISY_OTHER_CORES).map((p) => `${s.system} ${p.phase} ${fmt(p.otherCores, 2)}`));
  if (noisy.length > 0) {
    lines.push('', `**Noisy run:** other processes used CPU during measurement (cores): ${noisy.join(', ')}. Treat these figures as disturbed; rerun on a quiet machine.`);
  }
  return lines;
}

/** The markdown report of one run. */
export function renderMarkdown(result: BenchResult): string {
  const runtime = result.systems.find((s) => s.system === 'runtime');
  const out: string[] = [`# nats-agents benchmark, ${result.startedAt}`, '', ...conditions(result), ''];

  out.push('## Throughput', '', '| phase | system | steady activations/s | overall /s | latency p50 ms | p90 | p99 | max |', '|---|---|---:|---:|---:|---:|---:|---:|');
  for (const phase of ['noop-throughput', 'model-throughput'] as const) {
    for (const system of result.systems) {
      const p = phaseOf(system, phase);
      if (p === undefined) continue;
      out.push(
        `| ${phase} | ${system.system} | ${int(p.throughput.steadyPerSecond)} | ${int(p.throughput.overallPerSecond)} | ${fmt(p.latencyMs.p50)} | ${fmt(p.latencyMs.p90)} | ${fmt(p.latencyMs.p99)} | ${fmt(p.latencyMs.max)} |`,
      );
    }
    const ratio = result.comparison?.throughputRatio[phase];
    if (ratio !== undefined) out.push(`| ${phase} | **runtime ÷ baseline** | **${fmt(ratio, 2)}** | | | | | |`);
  }
  out.push(
    '',
    'Steady = outputs per second between the 10th and 90th percentile of output times. Latency = event published → its output observed, ' +
      'under that load: with a closed loop it is mostly queueing (≈ in-flight ÷ throughput).',
    '',
  );

  out.push('## Latency and overhead with little or no queueing', '');
  out.push('| phase | system | samples | latency p50 ms | p99 | overhead p50 ms | p90 | p99 | max |', '|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const phase of ['noop-unloaded', 'model-low-concurrency'] as const) {
    for (const system of result.systems) {
      const p = phaseOf(system, phase);
      if (p === undefined) continue;
      const overhead = p.overheadMs ?? p.latencyMs;
      out.push(
        `| ${phase} | ${system.system} | ${int(p.latencyMs.samples)} | ${fmt(p.latencyMs.p50)} | ${fmt(p.latencyMs.p99)} | ${fmt(overhead.p50)} | ${fmt(overhead.p90)} | ${fmt(overhead.p99)} | ${fmt(overhead.max)} |`,
      );
    }
    const delta = result.comparison?.latencyDeltaMs[phase];
    if (delta !== undefined) out.push(`| ${phase} | **runtime − baseline** | | | | **${fmt(delta.p50)}** | | **${fmt(delta.p99)}** | |`);
  }
  out.push(
    '',
    'Overhead = latency − nominal model latency (no-op: the latency itself). It spans the client publish to the ingest stream, the forwarding hop, ' +
      'the activation with its state write, the output publish and delivery to the load generator; timer slop of the simulated model call stays in it.',
    '',
  );

  const gated = phaseOf(runtime, 'model-low-concurrency');
  const noopRatio = result.comparison?.throughputRatio['noop-throughput'];
  if (gated?.overheadMs !== undefined || noopRatio !== undefined) {
    out.push('## Against the budgets', '');
    if (gated?.overheadMs !== undefined) {
      const o = gated.overheadMs;
      const verdict = (value: number, budget: number): string => (value < budget ? 'within' : '**over**');
      out.push(
        `- Runtime overhead per activation (model, ${int(o.samples)} samples${o.samples < MIN_SAMPLES ? `, **fewer than ${int(MIN_SAMPLES)}: p99 not admissible**` : ''}): ` +
          `p50 ${fmt(o.p50)} ms (${verdict(o.p50, OVERHEAD_BUDGET_MS.p50)} ${OVERHEAD_BUDGET_MS.p50} ms), p99 ${fmt(o.p99)} ms (${verdict(o.p99, OVERHEAD_BUDGET_MS.p99)} ${OVERHEAD_BUDGET_MS.p99} ms): ` +
          "beam-agents' budget, here measured end to end through the broker.",
      );
    }
    if (noopRatio !== undefined) out.push(`- No-op throughput: the runtime reaches ${fmt(noopRatio * 100, 0)} % of the bare-JetStream baseline.`);
    out.push('');
  }

  out.push('## CPU per event (ms)', '');
  out.push(
    `| phase | system | ${CPU_COLUMNS.map(([title]) => title).join(' | ')} | total | busiest process (cores) | other processes (cores) |`,
    `|---|---|${CPU_COLUMNS.map(() => '---:').join('|')}|---:|---|---:|`,
  );
  for (const system of result.systems) {
    for (const p of system.phases) {
      const cells = CPU_COLUMNS.map(([, members]) => {
        const present = members.filter((n) => p.cpuMsPerEvent[n] !== undefined);
        return present.length === 0 ? undefined : present.reduce((a, n) => a + (p.cpuMsPerEvent[n] ?? 0), 0);
      });
      const total = Object.values(p.cpuMsPerEvent).reduce((a, b) => a + b, 0);
      const busiest = Object.entries(p.cpuCores).sort((a, b) => b[1] - a[1])[0];
      out.push(
        `| ${p.phase} | ${system.system} | ${cells.map((c) => fmt(c, 3)).join(' | ')} | ${fmt(total, 3)} | ${busiest ? `${busiest[0]} (${fmt(busiest[1], 2)})` : '–'} | ${fmt(p.otherCores, 2)} |`,
      );
    }
  }
  out.push('', 'CPU = user + system time from /proc over the measured run ÷ its events (10 ms tick resolution); cores = CPU time ÷ wall time; one Node process cannot use much more than 1.0. Other processes = machine busy time (/proc/stat) − participants: noise.', '');

  out.push('## Messages stored per event', '', '| phase | system | stored per event | by stream |', '|---|---|---:|---|');
  for (const system of result.systems) {
    for (const p of system.phases) {
      const entries = Object.entries(p.storedPerEvent).sort(([a], [b]) => a.localeCompare(b));
      const total = entries.reduce((a, [, n]) => a + n, 0);
      const share = (n: number): string => (n < 0.005 ? '<0.01' : fmt(n, 2));
      out.push(`| ${p.phase} | ${system.system} | ${fmt(total, 2)} | ${entries.map(([stream, n]) => `${stream} ${share(n)}`).join(', ')} |`);
    }
  }
  out.push(
    '',
    "From the streams' last sequences around the measured run (lease and membership heartbeats included). The same broker work per event in both systems means the difference between them is client-side.",
    '',
  );

  out.push('## Correctness counters', '');
  for (const system of result.systems) {
    const dup = system.phases.reduce((a, p) => a + p.duplicates, 0);
    const ooo = system.phases.reduce((a, p) => a + p.outOfOrder, 0);
    const strays = system.phases.reduce((a, p) => a + p.strays, 0);
    const state = Object.entries(system.stateBytes).map(([agent, bytes]) => `${agent} ${int(bytes)} B`).join(', ');
    out.push(
      `- ${system.system}: every event's output observed; ${dup} duplicate deliveries, ${ooo} out-of-order outputs, ${strays} late outputs of earlier runs; ` +
        `stored state of one key after the run: ${state || '–'}.`,
    );
  }
  out.push('');
  return out.join('\n');
}
