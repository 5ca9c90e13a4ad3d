/**
 * Renders a {@link BenchResult} as the short markdown report (`bench/results/latest.md`, also
 * printed): conditions first, then throughput, latency and overhead against the budgets, CPU
 * per event, and the correctness counters.
 */
import { describeCoreSpeeds, unevenCoresRatio } from '../infra/core-speeds.js';
import { MODEL_LOW_PACE } from '../load/start-offsets.js';
import { NOISY_SPREAD, type BenchResult, type MemoryRow, type PhaseName, type PhaseResult, type SystemResult, type ThroughputPair, type TracingRun } from './bench-result.js';
import { renderCheck, type TargetCheck } from './check-targets.js';
import { referenceCpu, runtimeCpu, tracingCpuCost } from './compare-systems.js';

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
  ['activator(s) / worker', ['activator', 'baseline-worker']],
  ['effector', ['effector', 'baseline-effector']],
  ['load generator', ['load-generator']],
];

/** True when process `name` plays `member` (`activator-2` plays `activator`). */
const plays = (name: string, member: string): boolean => name === member || name.startsWith(`${member}-`);

/** Sum of `values` over the processes playing one of `members`; `undefined` when none is there. */
function sumOver(values: Readonly<Record<string, number>>, members: readonly string[]): number | undefined {
  const present = Object.keys(values).filter((name) => members.some((m) => plays(name, m)));
  return present.length === 0 ? undefined : present.reduce((a, n) => a + (values[n] ?? 0), 0);
}

const fmt = (value: number | undefined, digits = 1): string => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits));
/** CPU ms per event, as the CPU table prints it. */
const fmtCpu = (value: number | undefined): string => fmt(value, 3);
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
      `${int(o.overheadWarmupPerKey)} warm-up each; the model agent's keys start spread over one model latency, and each key's next event is due ${MODEL_LOW_PACE} model latencies after its previous one, or goes when its output arrives if later). Model latency ${o.modelLatencyMs} ms (FakeLlm timer). ` +
      `Runtime partitions: ${runtime?.partitions ?? '–'}; baseline inbox consumers: ${baseline?.partitions ?? '–'}.`,
  ];
  const speeds = result.coreSpeeds;
  if (speeds.start !== undefined || speeds.end !== undefined) {
    lines.push('', `Core speeds (the same loop pinned to each core, all at once): at start ${describeCoreSpeeds(speeds.start)}; at end ${describeCoreSpeeds(speeds.end)}.`);
    const worst = unevenCoresRatio(speeds.start, speeds.end);
    if (worst !== undefined) {
      lines.push(
        '',
        `**Uneven cores:** one core ran the loop ${worst.toFixed(2)}× as fast as another. A run is slower when the scheduler keeps its busiest process on the slower core, ` +
          'whichever system it is, so single pairs disagree: read the medians, and the spread beside them.',
      );
    }
  }
  const experiments = [
    ...(Object.keys(o.serviceEnv).length > 0 ? [`service env ${Object.entries(o.serviceEnv).map(([k, v]) => `${k}=${v}`).join(' ')}`] : []),
    ...(o.baselineAsyncTraces ? ['baseline clients with async traces (the runtime has none)'] : []),
    ...(o.nodeFlags.length > 0 ? [`node flags ${o.nodeFlags.join(' ')}`] : []),
  ];
  if (experiments.length > 0) lines.push('', `**Experiment settings:** ${experiments.join('; ')}.`);
  const measured = [
    ...result.systems.flatMap((s) => s.phases.map((p) => [`${s.system} ${p.phase}`, p] as const)),
    ...result.activators.map((r) => [`runtime with ${r.activators} activators`, r.phase] as const),
    ...result.liveKeys.flatMap((r) => [
      ...(r.runtime ? [[`runtime ${int(r.liveKeys)} live keys`, r.runtime] as const] : []),
      ...(r.baseline ? [[`baseline ${int(r.liveKeys)} live keys`, r.baseline] as const] : []),
    ]),
  ];
  const noisy = measured.filter(([, p]) => (p.otherCores ?? 0) > NOISY_OTHER_CORES).map(([label, p]) => `${label} ${fmt(p.otherCores, 2)}`);
  if (noisy.length > 0) {
    lines.push('', `**Noisy run:** other processes used CPU during measurement (cores): ${noisy.join(', ')}. Treat these figures as disturbed; rerun on a quiet machine.`);
  }
  return lines;
}

/** The markdown report of one run (with the target check when `--check` asked for it). */
export function renderMarkdown(result: BenchResult, check?: TargetCheck): string {
  const runtime = result.systems.find((s) => s.system === 'runtime');
  const out: string[] = [`# nats-agents benchmark, ${result.startedAt}`, '', ...conditions(result), ''];
  if (check !== undefined) out.push('## Targets (`--check`, bench/targets.ts)', '', '```', ...renderCheck(check), '```', '');
  if (result.failures.length > 0) out.push('## Failed dimensions', '', ...result.failures.map((f) => `- **${f}**`), '');

  out.push('## Throughput', '', '| phase | system | steady activations/s | overall /s | latency p50 ms | p90 | p99 | max |', '|---|---|---:|---:|---:|---:|---:|---:|');
  for (const phase of ['noop-throughput', 'model-throughput', 'roundtrip-throughput'] as const) {
    for (const system of result.systems) {
      const p = phaseOf(system, phase);
      if (p === undefined) continue;
      out.push(
        `| ${phase} | ${system.system} | ${int(p.throughput.steadyPerSecond)} | ${int(p.throughput.overallPerSecond)} | ${fmt(p.latencyMs.p50)} | ${fmt(p.latencyMs.p90)} | ${fmt(p.latencyMs.p99)} | ${fmt(p.latencyMs.max)} |`,
      );
    }
    const ratio = result.comparison?.throughputRatio[phase];
    const pairs = result.comparison?.throughputPairs[phase] ?? [];
    const spread = result.comparison?.throughputSpread[phase];
    if (ratio !== undefined) {
      const note = pairs.length > 1 ? `median of ${pairs.length} pairs (${pairs.map((r) => fmt(r, 2)).join(', ')}), spread ${fmt((spread ?? 0) * 100, 0)} %${(spread ?? 0) > NOISY_SPREAD ? ' **noisy**' : ''}` : 'one pair';
      out.push(`| ${phase} | **runtime ÷ baseline** | **${fmt(ratio, 2)}** | ${note} | | | | |`);
    }
  }
  out.push(
    '',
    `Each throughput phase runs as ${result.options.pairs} interleaved pairs (runtime, then baseline, repeated); the ratio is taken pair by pair and the figure is the median pair, ` +
      `whose two runs the rows above show. Spread = (max − min) ÷ median of the pairs' ratios; above ${NOISY_SPREAD * 100} % the ratio is flagged noisy. ` +
      'Steady = outputs per second between the 10th and 90th percentile of output times. Latency = event published → its output observed, ' +
      'under that load: with a closed loop it is mostly queueing (≈ in-flight ÷ throughput). roundtrip-throughput counts round trips ' +
      '(event → intent → effector → result → resume → output), one in flight per key.',
    '',
  );

  out.push('## Latency and overhead with little or no queueing', '');
  out.push('| phase | system | samples | latency p50 ms | p99 | overhead p50 ms | p90 | p99 | max |', '|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const phase of ['noop-unloaded', 'model-low-concurrency', 'roundtrip-unloaded', 'roundtrip-low-concurrency'] as const) {
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
  const latencyPairs = Object.entries(result.latencyPairs);
  if (latencyPairs.length > 0) {
    out.push(
      '',
      `Each latency phase runs as ${result.options.pairs} interleaved pairs too; the rows above show the pair whose p50 delta is the median, and each runtime − baseline figure is the median over the pairs (p50 and p99 separately). Per pair, in run order:`,
      '',
    );
    for (const [phase, pairs] of latencyPairs) {
      out.push(
        `- ${phase}: p50 delta ${pairs.map((p) => fmt(p.deltaMs.p50, 2)).join(', ')} ms; p99 delta ${pairs.map((p) => fmt(p.deltaMs.p99, 2)).join(', ')} ms; ` +
          `latency p50 runtime ÷ baseline ${pairs.map((p) => fmt(p.ratioP50, 2)).join(', ')}`,
      );
    }
  }
  out.push(
    '',
    'Overhead = latency − nominal model latency (no-op and round trip: the latency itself). It spans the client publish to the ingest stream, the forwarding hop, ' +
      'the activation with its state write, the output publish and delivery to the load generator; timer slop of the simulated model call stays in it. ' +
      'The round trip adds the intent publish, the effector (claim create, no-op tool, result record, result publish), the result back through ingress ' +
      'and a second activation with its state write.',
    '',
  );

  const gated = phaseOf(runtime, 'model-low-concurrency');
  const noopRatio = result.comparison?.throughputRatio['noop-throughput'];
  const roundTrip = phaseOf(runtime, 'roundtrip-unloaded') ?? phaseOf(runtime, 'roundtrip-low-concurrency');
  if (gated?.overheadMs !== undefined || noopRatio !== undefined || roundTrip !== undefined) {
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
    if (roundTrip !== undefined) {
      const base = phaseOf(result.systems.find((s) => s.system === 'baseline'), roundTrip.phase);
      out.push(
        `- Suspend → effector → resume round trip (no-op tool, ${int(roundTrip.latencyMs.samples)} samples, ${roundTrip.phase === 'roundtrip-unloaded' ? 'one in flight in the whole system' : 'one in flight per key'}): ` +
          `p50 ${fmt(roundTrip.latencyMs.p50)} ms, p99 ${fmt(roundTrip.latencyMs.p99)} ms` +
          (base === undefined ? '.' : `; the baseline's equivalent broker work p50 ${fmt(base.latencyMs.p50)} ms, p99 ${fmt(base.latencyMs.p99)} ms.`),
      );
    }
    out.push('');
  }

  out.push('## CPU per event (ms)', '');
  out.push(
    `| phase | system | ${CPU_COLUMNS.map(([title]) => title).join(' | ')} | total | busiest process (cores) | other processes (cores) |`,
    `|---|---|${CPU_COLUMNS.map(() => '---:').join('|')}|---:|---|---:|`,
  );
  for (const system of result.systems) {
    for (const p of system.phases) {
      const cells = CPU_COLUMNS.map(([, members]) => sumOver(p.cpuMsPerEvent, members));
      const total = Object.values(p.cpuMsPerEvent).reduce((a, b) => a + b, 0);
      const busiest = Object.entries(p.cpuCores).sort((a, b) => b[1] - a[1])[0];
      out.push(
        `| ${p.phase} | ${system.system} | ${cells.map((c) => fmt(c, 3)).join(' | ')} | ${fmt(total, 3)} | ${busiest ? `${busiest[0]} (${fmt(busiest[1], 2)})` : '–'} | ${fmt(p.otherCores, 2)} |`,
      );
    }
  }
  const cpuRatio = result.comparison?.cpuRatio ?? {};
  if (Object.keys(cpuRatio).length > 0) {
    out.push('', `CPU per no-op event, runtime role ÷ baseline role (median over the no-op pairs): ${Object.entries(cpuRatio).map(([role, r]) => `${role} ${fmt(r, 2)}×`).join(', ')}.`);
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

  out.push(...tracingSection(result), ...activatorsSection(result), ...liveKeysSection(result), ...memorySection(result), ...hopsSection(result));

  out.push('## Correctness counters', '');
  for (const system of result.systems) {
    const dup = system.phases.reduce((a, p) => a + p.duplicates, 0);
    const ooo = system.phases.reduce((a, p) => a + p.outOfOrder, 0);
    const strays = system.phases.reduce((a, p) => a + p.strays, 0);
    const state = Object.entries(system.stateBytes).map(([agent, bytes]) => `${agent} ${int(bytes)} B`).join(', ');
    out.push(
      `- ${system.system} (main phases): every event's output observed; ${dup} duplicate deliveries, ${ooo} out-of-order outputs, ${strays} late outputs of earlier runs; ` +
        `stored state of one key after the run: ${state || '–'}.`,
    );
  }
  const extra = [...result.activators.map((r) => r.phase), ...result.liveKeys.flatMap((r) => [...r.runs.runtime, ...r.runs.baseline])];
  if (extra.length > 0) {
    const sum = (f: (p: PhaseResult) => number): number => extra.reduce((a, p) => a + f(p), 0);
    out.push(
      `- activators and live-keys runs: every event's output observed; ${sum((p) => p.duplicates)} duplicate deliveries, ${sum((p) => p.outOfOrder)} out-of-order outputs, ` +
        `${sum((p) => p.strays)} late outputs of earlier runs.`,
    );
  }
  out.push('');
  return out.join('\n');
}

function tracingSection(result: BenchResult): string[] {
  if (result.tracing.length === 0) return [];
  const off = result.comparison?.throughputRatio['noop-throughput'];
  const reference = result.tracingReference;
  const out = [
    '## Tracing',
    '',
    'No-op throughput with the runtime restarted exporting spans over OTLP/HTTP (protobuf, batched) to a local receiver in the load generator, parent-based ratio sampler, ' +
      `paired with the baseline as above, in ${result.options.tracingPairs} rounds (decision 0088): each round restarts the runtime with tracing off (the reference) and once per ratio, warms each restart up, ` +
      `and runs one pair of ${int(result.options.tracingEvents)} events per system on it; odd rounds start with the reference, even rounds end with it. ` +
      `The reference: runtime ÷ baseline ${fmt(reference?.throughputRatio, 2)}, the median of its pairs (${reference?.pairs.map((p) => fmt(p.ratio, 2)).join(', ') ?? '–'}; ` +
      `spread ${fmt((reference?.spread ?? Number.NaN) * 100, 0)} %). ` +
      'Cost = the median over the rounds of 1 − (traced ratio ÷ the same round\'s reference ratio); "of medians" is 1 − (median traced ratio ÷ median reference ratio), the figure before decision 0088. ' +
      '"Runtime alone" takes the same rounds without the baseline: 1 − (the traced runtime\'s throughput ÷ the same round\'s reference runtime\'s), the median round and, in brackets, each round; it shows how much of a round\'s cost came from the baseline\'s run-to-run spread rather than from tracing. The target is the cost. ' +
      `Tracing off in the main phases (the rows above, a runtime warmed by them): runtime ÷ baseline ${fmt(off, 2)}, which is also the whole cost of the runtime with tracing off against bare JetStream. ` +
      'The CPU columns give the same cost as CPU per event of the runtime\'s processes (median over the pairs) and, in brackets, the median over the rounds of its change against the round\'s reference: ' +
      `with tracing off, activator ${fmtCpu(reference && referenceCpu(reference, 'activator'))} ms and ingress ${fmtCpu(reference && referenceCpu(reference, 'ingress'))} ms. ` +
      'They are a second view of the cost, not a steadier one: CPU per event moves with batching too (a run that keeps more in flight spends less per event).',
    '',
    '| sampling ratio | runtime ÷ baseline (median pair) | pairs | spread | cost | rounds\' costs | of medians | runtime alone (rounds) | activator CPU per event, ms | ingress CPU per event, ms | OTLP requests | exported KiB |',
    '|---:|---:|---|---:|---:|---|---:|---|---:|---:|---:|---:|',
  ];
  const cpuCell = (pairs: readonly ThroughputPair[], role: string): string => {
    const cost = reference === undefined ? undefined : tracingCpuCost(pairs, reference, role);
    return `${fmtCpu(runtimeCpu(pairs, role))}${cost === undefined ? '' : ` (${cost >= 0 ? '+' : '−'}${fmt(Math.abs(cost) * 100, 0)} %)`}`;
  };
  const runtimeAloneCell = (alone: TracingRun['runtimeAlone']): string =>
    alone === undefined ? '–' : `${fmt(alone.cost * 100, 1)} % (${alone.roundCosts.map((c) => `${fmt(c * 100, 1)} %`).join(', ')})`;
  for (const t of result.tracing) {
    out.push(
      `| ${t.ratio} | ${fmt(t.throughputRatio, 2)} | ${t.pairs.map((p) => fmt(p.ratio, 2)).join(', ')} | ${fmt(t.spread * 100, 0)} %${t.spread > NOISY_SPREAD ? ' **noisy**' : ''} | ` +
        `${t.cost === undefined ? '–' : `${fmt(t.cost * 100, 1)} %`} | ${t.roundCosts.map((c) => `${fmt(c * 100, 1)} %`).join(', ')} | ${t.costOfMedians === undefined ? '–' : `${fmt(t.costOfMedians * 100, 1)} %`} | ${runtimeAloneCell(t.runtimeAlone)} | ${cpuCell(t.pairs, 'activator')} | ${cpuCell(t.pairs, 'ingress')} | ${int(t.exported.requests)} | ${int(t.exported.bytes / 1_024)} |`,
    );
  }
  out.push('');
  return out;
}

function hopsSection(result: BenchResult): string[] {
  const hops = result.hops;
  if (hops === undefined) return [];
  const out = [
    '## Hops of a round trip',
    '',
    `\`roundtrip-unloaded\`, ${int(hops.events)} round trips per system on a second nats-server that traces every protocol message ` +
      `(${int(hops.roundTrips.runtime)} runtime and ${int(hops.roundTrips.baseline)} baseline measured round trips read whole from its log, warm-ups left out). ` +
      'Each row is the median time from the previous step to this one, stamped by the server to the microsecond: a "delivery → write" row is the time a message spent ' +
      "inside that process; a \"write → publish\" row includes the broker storing the write and the writer reading its acknowledgement. Tracing slows the server: compare the systems row by row, not with the main phases.",
    '',
    '| hop | runtime p50 ms | baseline p50 ms | runtime − baseline ms |',
    '|---|---:|---:|---:|',
  ];
  for (const row of hops.rows) {
    const delta = row.runtimeP50Ms !== undefined && row.baselineP50Ms !== undefined ? row.runtimeP50Ms - row.baselineP50Ms : undefined;
    const bold = row.hop === 'whole round trip' ? '**' : '';
    out.push(`| ${bold}${row.hop}${bold} | ${fmt(row.runtimeP50Ms, 3)} | ${fmt(row.baselineP50Ms, 3)} | ${delta === undefined ? '–' : `${delta >= 0 ? '+' : ''}${fmt(delta, 3)}`} |`);
  }
  out.push('');
  return out;
}

function memorySection(result: BenchResult): string[] {
  if (result.memory.length === 0) return [];
  const out = [
    '## Memory',
    '',
    'One runtime whose actor cache bounds exceed the largest count; one no-op event to each new key, keys staying cached from row to row, then the activator\'s resident set ' +
      '(`VmRSS`, a second after the last activation, garbage not forced out) and its cache gauges.',
    '',
    '| keys made live | activator RSS MiB | cache entries | cache encoded bytes | RSS per cached entry, B (vs first row) | activations/s while filling |',
    '|---:|---:|---:|---:|---:|---:|',
  ];
  const first = result.memory[0];
  for (const row of result.memory) {
    // Per entry actually cached (an element retried in place evicts its key, so entries can trail the keys made live).
    const held = (r: MemoryRow): number => r.cacheEntries ?? r.cachedKeys;
    const perKey = first !== undefined && row !== first && held(row) > held(first) ? (row.rssBytes - first.rssBytes) / (held(row) - held(first)) : undefined;
    out.push(`| ${int(row.cachedKeys)} | ${fmt(row.rssBytes / 2 ** 20)} | ${int(row.cacheEntries)} | ${int(row.cacheBytes)} | ${int(perKey)} | ${int(row.activationsPerSecond)} |`);
  }
  out.push('');
  return out;
}

function activatorsSection(result: BenchResult): string[] {
  if (result.activators.length === 0) return [];
  const one = result.activators.find((r) => r.activators === 1)?.phase.throughput.steadyPerSecond;
  const out = [
    '## Activators',
    '',
    `No-op throughput phase (N = ${int(result.options.events)}, K = ${int(result.options.keys)}, ${int(result.options.window)} in flight) with one ingress and 1…n activator processes, ` +
      `measured once every activator consumed its rendezvous share of the ${result.options.partitions} partitions.`,
    '',
    '| activators | partitions each | settled after s | steady activations/s | vs 1 activator | latency p50 ms | p99 | activators CPU ms/event | activators cores | nats-server cores | machine idle cores | other processes (cores) |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of result.activators) {
    const p = row.phase;
    const busy = Object.values(p.cpuCores).reduce((a, b) => a + b, 0) + (p.otherCores ?? 0);
    out.push(
      `| ${row.activators} | ${Object.values(row.partitionsByMember).join(' / ')} | ${fmt(row.ownershipSettledMs / 1_000)} | ${int(p.throughput.steadyPerSecond)} | ` +
        `${one === undefined ? '–' : fmt(p.throughput.steadyPerSecond / one, 2)} | ${fmt(p.latencyMs.p50)} | ${fmt(p.latencyMs.p99)} | ${fmt(sumOver(p.cpuMsPerEvent, ['activator']), 3)} | ` +
        `${fmt(sumOver(p.cpuCores, ['activator']), 2)} | ${fmt(p.cpuCores['nats-server'], 2)} | ${fmt(result.machine.cores - busy, 2)} | ${fmt(p.otherCores, 2)} |`,
    );
  }
  out.push('', 'Machine idle cores = cores − (participants + other processes): what was left for more activators to use.', '');
  return out;
}

function liveKeysSection(result: BenchResult): string[] {
  if (result.liveKeys.length === 0) return [];
  const o = result.options;
  const out = [
    '## Live keys',
    '',
    `Every key below has state in the store (runtime: a real encoded actor document; baseline: a 512-byte value), written straight into the buckets before the row. ` +
      `Bare KV = ${int(o.bareKvUpdates)} revision-checked \`kv.update\`s of random live keys, ${o.bareKvInFlight} in flight, from the load generator (the store alone). ` +
      `Systems = the no-op throughput phase (N = ${int(o.events)}, ${int(o.window)} in flight) on min(N, live keys) live keys spread over all of them, ` +
      `each event its key's first since the services started (warm-up: max(N, ${int(o.warmupEvents)}) events on other keys). ` +
      `Each row runs ${o.liveKeysPairs} interleaved pairs, every run a fresh process on keys no other run of the row touched (while there are enough keys); ` +
      'a system\'s figure is its median run, runtime ÷ baseline the median pair\'s ratio (spread as above).',
    '',
    '| live keys | written (keys, s) | bare KV updates/s | runtime activations/s | baseline activations/s | runtime ÷ baseline | spread | runtime p50 ms | p99 | baseline p50 ms | p99 | other processes (cores, runtime / baseline) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of result.liveKeys) {
    const r = row.runtime;
    const b = row.baseline;
    const spreadCell = Number.isNaN(row.spread) ? '–' : `${fmt(row.spread * 100, 0)} %${row.spread > NOISY_SPREAD ? ' **noisy**' : ''}`;
    out.push(
      `| ${int(row.liveKeys)} | ${int(row.prepopulated)}, ${fmt(row.prepopulateMs / 1_000)} | ${int(row.bareKv.perSecond)} | ${int(r?.throughput.steadyPerSecond)} | ${int(b?.throughput.steadyPerSecond)} | ${fmt(Number.isNaN(row.ratio) ? undefined : row.ratio, 2)} | ${spreadCell} | ` +
        `${fmt(r?.latencyMs.p50)} | ${fmt(r?.latencyMs.p99)} | ${fmt(b?.latencyMs.p50)} | ${fmt(b?.latencyMs.p99)} | ${fmt(r?.otherCores, 2)} / ${fmt(b?.otherCores, 2)} |`,
    );
  }
  out.push('');
  return out;
}
