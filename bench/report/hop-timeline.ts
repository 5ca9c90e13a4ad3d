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

/** A traced protocol message: when, which client, which way, the operation and its subject. */
interface TracedOp {
  readonly atMs: number;
  readonly client: string;
  /** `in`: the client wrote it (`<<-`); `out`: the server delivered it to the client (`->>`). */
  readonly way: 'in' | 'out';
  readonly op: string;
  readonly subject: string;
}

/** The subjects one system's round trip of one agent goes through. */
interface Naming {
  /** The runtime's `agents.`, the baseline's `bench.`. */
  readonly prefix: string;
  readonly state: string;
  readonly effects: string;
  readonly agent: string;
}

const LOAD_GENERATOR = 'bench-load-generator';

const isIn = (o: TracedOp, subject: string): boolean => o.way === 'in' && o.subject.startsWith(subject);
const isOut = (o: TracedOp, subject: string): boolean => o.way === 'out' && o.subject.startsWith(subject);

/**
 * The hops of one round trip, in order, each with the message that ends it: a hop is the time from
 * the previous step's message to this one's. A step after a write (`state write → intent publish`)
 * includes the broker storing that write and the writer reading its acknowledgement: the outbox is
 * published only after the state is durable.
 */
const STEPS: readonly { readonly hop: string; readonly ends: (o: TracedOp, n: Naming) => boolean }[] = [
  { hop: 'ingest → forwarding service', ends: (o, n) => isOut(o, `${n.prefix}events.${n.agent}.`) && o.client !== LOAD_GENERATOR },
  { hop: 'forwarding service: event → inbox publish', ends: (o, n) => isIn(o, `${n.prefix}inbox.`) },
  { hop: 'inbox → activation', ends: (o, n) => isOut(o, `${n.prefix}inbox.`) },
  { hop: 'activation: delivery → state write', ends: (o, n) => isIn(o, n.state) },
  { hop: 'activation: state write → intent publish', ends: (o, n) => isIn(o, `${n.prefix}intents.${n.agent}.`) },
  { hop: 'intent → effector', ends: (o, n) => isOut(o, `${n.prefix}intents.${n.agent}.`) },
  { hop: 'effector: delivery → claim write', ends: (o, n) => isIn(o, n.effects) },
  { hop: 'effector: claim write → result record write', ends: (o, n) => isIn(o, n.effects) },
  { hop: 'effector: record write → result publish', ends: (o, n) => isIn(o, `${n.prefix}results.${n.agent}.`) },
  { hop: 'result → forwarding service', ends: (o, n) => isOut(o, `${n.prefix}results.${n.agent}.`) },
  { hop: 'forwarding service: result → inbox publish', ends: (o, n) => isIn(o, `${n.prefix}inbox.`) },
  { hop: 'inbox → resumed activation', ends: (o, n) => isOut(o, `${n.prefix}inbox.`) },
  { hop: 'resumed activation: delivery → state write', ends: (o, n) => isIn(o, n.state) },
  { hop: 'resumed activation: state write → output publish', ends: (o, n) => isIn(o, `${n.prefix}output.${n.agent}.`) },
  { hop: 'output → load generator', ends: (o, n) => isOut(o, `${n.prefix}output.${n.agent}.`) && o.client === LOAD_GENERATOR },
];

/** The hops of one round trip, in order (the rows of {@link hopRows}). */
export const ROUND_TRIP_HOPS: readonly string[] = STEPS.map((step) => step.hop);

/** One hop's median in each system (milliseconds), over the round trips found in the trace. */
export interface HopRow {
  /** One of {@link ROUND_TRIP_HOPS}, or `whole round trip`. */
  readonly hop: string;
  readonly runtimeP50Ms: number | undefined;
  readonly baselineP50Ms: number | undefined;
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

/** The subjects of one system (the runtime's `agents.` prefix, the baseline's `bench.`) for `agent`. */
function naming(system: SystemName, agent: string): Naming {
  return system === 'runtime'
    ? { prefix: 'agents.', state: '$KV.AGENTS_STATE.', effects: '$KV.AGENTS_EFFECTS.', agent }
    : { prefix: 'bench.', state: '$KV.BENCH_STATE.', effects: '$KV.BENCH_EFFECTS.', agent };
}

/**
 * Each round trip of `agent` in `ops`, as the duration of every hop (ms): found from each event
 * the load generator published, following the next matching step of the chain. A round trip whose
 * chain does not complete within the next 400 messages (the end of the trace) is skipped.
 */
export function roundTripHops(ops: readonly TracedOp[], system: SystemName, agent: string): number[][] {
  const names = naming(system, agent);
  const trips: number[][] = [];
  ops.forEach((start, i) => {
    if (!isIn(start, `${names.prefix}events.${agent}.`) || start.client !== LOAD_GENERATOR) return;
    const hops: number[] = [];
    let at = i;
    for (const step of STEPS) {
      let next = -1;
      for (let j = at + 1; j < Math.min(ops.length, at + 400); j += 1) {
        if (step.ends(ops[j] as TracedOp, names)) {
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
