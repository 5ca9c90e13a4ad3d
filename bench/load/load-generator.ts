/**
 * The closed-loop load generator. It publishes events to a system's event subjects, observes the
 * outputs on a core subscription, and records for every event its send time (just before the
 * JetStream publish of the ingest message) and the time its output arrived, both from
 * `performance.now()` in this process. Outputs are matched to publishes by key and per-key
 * sequence (see `event-id.ts`); an output on the wrong key, an unknown id, a missing output after
 * a stall, an error record or a dead process fails the run loudly.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { SystemUnderTest } from '../system-under-test.js';
import { decodeEventId, encodeEvent } from './event-id.js';
import { pacedDelayMs, startOffsetsMs } from './start-offsets.js';

/**
 * How events are offered.
 * - `window`: closed loop with `window` events in flight; event `i` goes to key `i mod K` with
 *   per-key sequence `floor(i / K)`, and each output releases the next event. With a window no
 *   larger than K, a key rarely has two events in flight.
 * - `per-key`: every key runs its own sequential loop of `eventsPerKey` events (publish, wait
 *   for the output, publish the next): one event in flight per key, so latency is not queueing.
 *   Key `i` starts `i × startSpreadMs ÷ K` after the first (default 0: all at once). Each key's
 *   loop then keeps its offset, so a spread of one cycle (the model latency) offers the keys'
 *   events evenly through it instead of as one burst per cycle (docs/decisions/0080). With
 *   `paceMs`, key `i`'s event `n` is due `offset + n × paceMs` after the first publish and goes
 *   when due or when its predecessor's output arrives, whichever is later (`pacedDelayMs`,
 *   decision 0082): the offsets then last the whole run instead of decaying after a pause.
 */
export type LoadShape =
  | { readonly kind: 'window'; readonly events: number; readonly window: number }
  | { readonly kind: 'per-key'; readonly eventsPerKey: number; readonly startSpreadMs?: number; readonly paceMs?: number };

/** One load run. */
export interface LoadSpec {
  /** Correlation tag, unique per run (no `/`). */
  readonly run: string;
  readonly agent: string;
  /** Key tokens (subject-safe). */
  readonly keys: readonly string[];
  readonly shape: LoadShape;
  /** Fail when no output arrived for this long while outputs are missing. */
  readonly stallTimeoutMs: number;
}

/** What one load run observed. Times are ms from the first publish. */
export interface LoadObservation {
  readonly events: number;
  /** Per event (index `seq * K + keyIndex`): output arrival − send time, ms. */
  readonly latenciesMs: Float64Array;
  /** Output arrival times, ascending. */
  readonly completionsMs: Float64Array;
  /** First publish to last output, ms. */
  readonly durationMs: number;
  /** Outputs seen more than once (republishes; JetStream dedupe keeps the stream clean, a core subscriber still sees them). */
  readonly duplicates: number;
  /** Outputs of a key that arrived after a later one of the same key (must be 0). */
  readonly outOfOrder: number;
  /** Outputs of earlier runs that arrived during this one (late republishes). */
  readonly strays: number;
}

/**
 * Drives one load run against `system` and resolves once every event's output was observed.
 *
 * @throws {Error} on a stall (naming missing events), an error record, a mismatched output,
 * a failed publish, or a system process that exited.
 */
export async function runLoad(nc: NatsConnection, js: JetStreamClient, system: SystemUnderTest, spec: LoadSpec): Promise<LoadObservation> {
  const keyCount = spec.keys.length;
  if (keyCount === 0) throw new Error('a load run needs at least one key');
  if (spec.run.includes('/')) throw new Error(`run tag '${spec.run}' must not contain '/'`);
  const total = spec.shape.kind === 'window' ? spec.shape.events : spec.shape.eventsPerKey * keyCount;
  const sentAt = new Float64Array(total).fill(Number.NaN);
  const doneAt = new Float64Array(total).fill(Number.NaN);
  const lastSeq = new Int32Array(keyCount).fill(-1);
  const subjects = spec.keys.map((key) => system.eventSubject(spec.agent, key));
  const outputSubjects = new Map(spec.keys.map((key, index) => [system.outputSubject(spec.agent, key), index]));
  let received = 0;
  let duplicates = 0;
  let strays = 0;
  let outOfOrder = 0;
  let nextWindowEvent = 0;
  let origin = 0;
  let lastProgressAt = 0;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const publishLater = (delayMs: number, index: number): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      publish(index);
    }, delayMs);
    timers.add(timer);
  };
  const offsetsMs = spec.shape.kind === 'per-key' ? startOffsetsMs(keyCount, spec.shape.startSpreadMs ?? 0) : [];
  const paceMs = spec.shape.kind === 'per-key' ? (spec.shape.paceMs ?? 0) : 0;

  let settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const finished = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const fail = (error: Error): void => settle?.reject(error);

  const publish = (index: number): void => {
    const keyIndex = index % keyCount;
    const seq = Math.floor(index / keyCount);
    const now = performance.now();
    sentAt[index] = now;
    const subject = subjects[keyIndex] as string;
    js.publish(subject, encodeEvent({ run: spec.run, keyIndex, seq }, performance.timeOrigin + now)).catch((error: unknown) => {
      fail(new Error(`publishing event ${spec.run}/${keyIndex}/${seq} to ${subject} failed: ${(error as Error).message}`));
    });
  };

  const onOutput = (msg: Msg): void => {
    const now = performance.now();
    const id = decodeEventId(msg.data);
    if (id === undefined) {
      fail(new Error(`unexpected output on ${msg.subject} (not a benchmark event): ${msg.string().slice(0, 200)}`));
      return;
    }
    if (id.run !== spec.run) {
      // A late republish of an earlier run's output (e.g. after a redelivery): counted, not matched.
      strays += 1;
      return;
    }
    if (outputSubjects.get(msg.subject) !== id.keyIndex) {
      fail(new Error(`output for key #${id.keyIndex} arrived on ${msg.subject}, expected ${system.outputSubject(spec.agent, spec.keys[id.keyIndex] ?? '?')}`));
      return;
    }
    const index = id.seq * keyCount + id.keyIndex;
    if (!(index < total) || Number.isNaN(sentAt[index] as number)) {
      fail(new Error(`output for an event that was never published: ${spec.run}/${id.keyIndex}/${id.seq}`));
      return;
    }
    if (!Number.isNaN(doneAt[index] as number)) {
      duplicates += 1;
      return;
    }
    doneAt[index] = now;
    if (id.seq < (lastSeq[id.keyIndex] as number)) outOfOrder += 1;
    else lastSeq[id.keyIndex] = id.seq;
    received += 1;
    lastProgressAt = now;
    if (received === total) {
      settle?.resolve();
      return;
    }
    if (spec.shape.kind === 'window') {
      if (nextWindowEvent < total) publish(nextWindowEvent++);
    } else if (id.seq + 1 < spec.shape.eventsPerKey) {
      const delayMs = pacedDelayMs(offsetsMs[id.keyIndex] as number, id.seq + 1, paceMs, now - origin);
      if (delayMs <= 0) publish(index + keyCount);
      else publishLater(delayMs, index + keyCount);
    }
  };

  const subscriptions: Subscription[] = [
    nc.subscribe(system.outputFilter(spec.agent), {
      callback: (error, msg) => {
        if (error !== null) fail(new Error(`output subscription failed: ${error.message}`));
        else onOutput(msg);
      },
    }),
  ];
  if (system.errorFilter !== undefined) {
    subscriptions.push(
      nc.subscribe(system.errorFilter, {
        callback: (_error, msg) => {
          const headers = msg.headers ? [...msg.headers.keys()].map((k) => `${k}=${msg.headers?.get(k) ?? ''}`).join(' ') : '';
          fail(new Error(`the system published an error record on ${msg.subject} (${headers}): ${msg.string().replace(/[^\x20-\x7e]+/g, ' ').slice(0, 300)}`));
        },
      }),
    );
  }
  await nc.flush();

  const watchdog = setInterval(() => {
    if (performance.now() - lastProgressAt < spec.stallTimeoutMs) return;
    const unanswered: string[] = [];
    let sent = 0;
    for (let i = 0; i < total; i += 1) {
      if (Number.isNaN(sentAt[i] as number)) continue;
      sent += 1;
      if (Number.isNaN(doneAt[i] as number) && unanswered.length < 10) unanswered.push(`${spec.run}/${i % keyCount}/${Math.floor(i / keyCount)}`);
    }
    fail(
      new Error(
        `${total - received} of ${total} outputs missing after ${spec.stallTimeoutMs} ms without progress ` +
          `(${sent - received} published and unanswered, ${total - sent} waiting to be published); first unanswered: ${unanswered.join(', ')}\n${system.describe()}`,
      ),
    );
  }, 250);

  try {
    origin = performance.now();
    lastProgressAt = origin;
    if (spec.shape.kind === 'window') {
      const initial = Math.min(spec.shape.window, total);
      for (nextWindowEvent = 0; nextWindowEvent < initial; nextWindowEvent += 1) publish(nextWindowEvent);
    } else if (spec.shape.eventsPerKey > 0) {
      for (const [keyIndex, offsetMs] of offsetsMs.entries()) {
        if (offsetMs === 0) publish(keyIndex);
        else publishLater(offsetMs, keyIndex);
      }
    }
    if (total === 0) settle?.resolve();
    await Promise.race([finished, system.failure]);
  } finally {
    clearInterval(watchdog);
    for (const timer of timers) clearTimeout(timer);
    for (const sub of subscriptions) sub.unsubscribe();
  }

  const latenciesMs = new Float64Array(total);
  const completionsMs = new Float64Array(total);
  for (let i = 0; i < total; i += 1) {
    latenciesMs[i] = (doneAt[i] as number) - (sentAt[i] as number);
    completionsMs[i] = (doneAt[i] as number) - origin;
  }
  completionsMs.sort();
  return { events: total, latenciesMs, completionsMs, durationMs: total === 0 ? 0 : (completionsMs[total - 1] as number), duplicates, outOfOrder, strays };
}
