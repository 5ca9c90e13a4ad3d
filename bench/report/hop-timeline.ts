/**
 * Where a round trip's time goes, hop by hop, read from nats-server's protocol trace (`trace: true`,
 * `logtime: true`). The server stamps every protocol message it reads from or writes to a client
 * to the microsecond, so one trace shows, for each round trip of the `roundtrip-unloaded` phase,
 * when each service received its message and when it wrote the next one: the time a hop spends
 * inside a process (decode, work, encode, the wait for its own write's acknowledgement) apart from
 * the time the broker takes to store and deliver. Both systems do the same broker operations in the
 * same order, so their hops line up one to one.
 *
 * Pure: parses text. Tracing slows the server, so the figures are for comparing the two systems
 * hop by hop in the same run, not absolute latencies.
 */
import type { SystemName } from '../system-under-test.js';

/**
 * The hops of one round trip, in order: the time from the previous step to this one. A step after a
 * write (`state write → intent publish`) includes the broker storing that write and the writer
 * reading its acknowledgement: the outbox is published only after the state is durable.
 */
export const ROUND_TRIP_HOPS = [
  'ingest → forwarding service',
  'forwarding service: event → inbox publish',
  'inbox → activation',
  'activation: delivery → state write',
  'activation: state write → intent publish',
  'intent → effector',
  'effector: delivery → claim write',
  'effector: claim write → result record write',
  'effector: record write → result publish',
  'result → forwarding service',
  'forwarding service: result → inbox publish',
  'inbox → resumed activation',
  'resumed activation: delivery → state write',
  'resumed activation: state write → output publish',
  'output → load generator',
] as const;

export type RoundTripHop = (typeof ROUND_TRIP_HOPS)[number];

/** One hop's median in each system (milliseconds), over the round trips found in the trace. */
export interface HopRow {
  readonly hop: RoundTripHop | 'whole round trip';
  readonly runtimeP50Ms: number | undefined;
  readonly baselineP50Ms: number | undefined;
}

/** A traced protocol message: when, which client, which way, the operation and its subject. */
interface TracedOp {
  readonly atMs: number;
  readonly client: string;
  /** `in`: the client wrote it (`<<-`); `out`: the server delivered it to the client (`->>`). */
  readonly way: 'in' | 'out';
  readonly op: string;
  readonly subject: string;
}

// [pid] 2026/12/03 03:39:34.874504 [TRC] 127.0.0.1:56558 - cid:4 - "v3.4.0:nats.js:bench-load-generator" - <<- [HPUB agents.events.bench-tool.ru-0 _INBOX.x 0 63]
const TRACE_LINE = /^\[\d+\] \S+ (\d\d):(\d\d):(\d\d\.\d+) \[TRC\] \S+ - cid:\d+ - "(?:[^"]*:)?([^":]*)" - (<<-|->>) \[(\w+) (\S+)/;

/** The protocol messages of a trace log that carry a subject (PUB, HPUB, MSG, HMSG), in log order. */
export function tracedOps(log: string): TracedOp[] {
  const ops: TracedOp[] = [];
  for (const line of log.split('\n')) {
    const m = TRACE_LINE.exec(line);
    if (m === null) continue;
    const [, h, min, s, client, way, op, subject] = m;
    if (op !== 'PUB' && op !== 'HPUB' && op !== 'MSG' && op !== 'HMSG') continue;
    ops.push({ atMs: (Number(h) * 3600 + Number(min) * 60 + Number(s)) * 1_000, client: client ?? '', way: way === '<<-' ? 'in' : 'out', op, subject: subject ?? '' });
  }
  return ops;
}

/** The subject names of one system (the runtime's `agents.` prefix, the baseline's `bench.`). */
function naming(system: SystemName): { readonly prefix: string; readonly state: string; readonly effects: string } {
  return system === 'runtime'
    ? { prefix: 'agents.', state: '$KV.AGENTS_STATE.', effects: '$KV.AGENTS_EFFECTS.' }
    : { prefix: 'bench.', state: '$KV.BENCH_STATE.', effects: '$KV.BENCH_EFFECTS.' };
}

const LOAD_GENERATOR = 'bench-load-generator';

/**
 * Each round trip of `agent` in `ops`, as the duration of every hop (ms): found from each event
 * the load generator published, following the next matching step of the chain. A round trip whose
 * chain does not complete within the next 400 messages (the end of the trace) is skipped.
 */
export function roundTripHops(ops: readonly TracedOp[], system: SystemName, agent: string): number[][] {
  const { prefix, state, effects } = naming(system);
  const isInbox = (o: TracedOp): boolean => o.subject.startsWith(`${prefix}inbox.`);
  const steps: ((o: TracedOp) => boolean)[] = [
    (o) => o.way === 'out' && o.client !== LOAD_GENERATOR && o.subject.startsWith(`${prefix}events.${agent}.`),
    (o) => o.way === 'in' && isInbox(o),
    (o) => o.way === 'out' && isInbox(o),
    (o) => o.way === 'in' && o.subject.startsWith(state),
    (o) => o.way === 'in' && o.subject.startsWith(`${prefix}intents.${agent}.`),
    (o) => o.way === 'out' && o.subject.startsWith(`${prefix}intents.${agent}.`),
    (o) => o.way === 'in' && o.subject.startsWith(effects),
    (o) => o.way === 'in' && o.subject.startsWith(effects),
    (o) => o.way === 'in' && o.subject.startsWith(`${prefix}results.${agent}.`),
    (o) => o.way === 'out' && o.subject.startsWith(`${prefix}results.${agent}.`),
    (o) => o.way === 'in' && isInbox(o),
    (o) => o.way === 'out' && isInbox(o),
    (o) => o.way === 'in' && o.subject.startsWith(state),
    (o) => o.way === 'in' && o.subject.startsWith(`${prefix}output.${agent}.`),
    (o) => o.way === 'out' && o.client === LOAD_GENERATOR && o.subject.startsWith(`${prefix}output.${agent}.`),
  ];
  const trips: number[][] = [];
  ops.forEach((start, i) => {
    if (start.way !== 'in' || start.client !== LOAD_GENERATOR || !start.subject.startsWith(`${prefix}events.${agent}.`)) return;
    const hops: number[] = [];
    let at = i;
    for (const step of steps) {
      let next = -1;
      for (let j = at + 1; j < Math.min(ops.length, at + 400); j += 1) {
        if (step(ops[j] as TracedOp)) {
          next = j;
          break;
        }
      }
      if (next < 0) return;
      hops.push((ops[next] as TracedOp).atMs - (ops[at] as TracedOp).atMs);
      at = next;
    }
    trips.push(hops);
  });
  return trips;
}

/** Nearest-rank median; undefined when empty. */
function p50(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1];
}

/**
 * Per hop, and for the whole round trip, the median in each system over the round trips of `agent`
 * in `log`, after each system's first `warmup` round trips (its unmeasured warm-up).
 */
export function hopRows(log: string, agent: string, warmup = 0): { readonly rows: HopRow[]; readonly roundTrips: Readonly<Record<SystemName, number>> } {
  const ops = tracedOps(log);
  const runtime = roundTripHops(ops, 'runtime', agent).slice(warmup);
  const baseline = roundTripHops(ops, 'baseline', agent).slice(warmup);
  const column = (trips: number[][], i: number): number[] => trips.map((t) => t[i] as number);
  const whole = (trips: number[][]): number[] => trips.map((t) => t.reduce((a, b) => a + b, 0));
  const rows: HopRow[] = ROUND_TRIP_HOPS.map((hop, i) => ({ hop, runtimeP50Ms: p50(column(runtime, i)), baselineP50Ms: p50(column(baseline, i)) }));
  rows.push({ hop: 'whole round trip', runtimeP50Ms: p50(whole(runtime)), baselineP50Ms: p50(whole(baseline)) });
  return { rows, roundTrips: { runtime: runtime.length, baseline: baseline.length } };
}
