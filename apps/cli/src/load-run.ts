import { performance } from 'node:perf_hooks';
import type { Subscription } from '@nats-io/transport-node';
import type { AgentsClient } from '#client';
import { decodeErrorRecord } from '#core';
import { encodeKeyToken, keyFromText, UNNAMED_AGENT } from '#routing';

/** What `nats-agents bench` runs against a live deployment. */
export interface LoadOptions {
  /** The agent the events are addressed to; it must answer each event with an output or an error record. */
  readonly agent: string;
  /** Distinct entity keys; event i goes to key i mod keys. */
  readonly keys: number;
  readonly events: number;
  /** Events in flight at once, never more than one per key (the runtime serialises a key anyway). */
  readonly concurrency: number;
  /** How long one event may take before its key is given up (counted as timed out). */
  readonly timeoutMs: number;
  /** Key names are `<keyPrefix>-<i>`; a fresh prefix per run keeps runs from reading each other's outputs. */
  readonly keyPrefix: string;
  /** Event body; `{{key}}`, `{{n}}` (the key's event number) and `{{i}}` (the run's) are substituted. */
  readonly payload: string;
}

/** Latency percentiles in milliseconds (nearest rank). */
export interface LatencySummary {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** What a load run saw. Latency is publish → output on the client, so it includes both broker hops. */
export interface LoadReport {
  readonly agent: string;
  readonly keys: number;
  readonly events: number;
  readonly concurrency: number;
  /** Events answered by an output. */
  readonly completed: number;
  /** Events answered by an error record, by reason. */
  readonly errors: Readonly<Record<string, number>>;
  /** Events not answered within `timeoutMs` (their key was then given up). */
  readonly timedOut: number;
  /** Events never sent because their key was given up. */
  readonly skipped: number;
  readonly durationMs: number;
  /** Answered events (outputs and error records) per second over the run. */
  readonly activationsPerSecond: number;
  /** Of the events answered by an output; undefined when none was. */
  readonly latencyMs: LatencySummary | undefined;
}

interface KeySlot {
  readonly name: string;
  readonly token: string;
  /** Events this key still has to send. */
  remaining: number;
  /** Events it sent so far (its next event's `{{n}}`). */
  sent: number;
  inFlight: { readonly startedAt: number; readonly timer: NodeJS.Timeout } | undefined;
  givenUp: boolean;
}

/**
 * Drives a closed-loop load through a running deployment: publishes events to the ingest subject,
 * at most `concurrency` in flight and one per key, and matches each to the output (or error
 * record) its key produces next. A load generator for an operator, not a correctness check: an
 * agent that answers an event with more than one output, or with none, distorts what it reports.
 *
 * Nothing here is idempotent on purpose: each run publishes new events (no msg ids), so rerunning
 * it adds activations; use a fresh `keyPrefix` (the CLI's default) to keep runs apart.
 */
export async function runLoad(client: AgentsClient, options: LoadOptions): Promise<LoadReport> {
  if (options.keys < 1 || options.events < 1 || options.concurrency < 1) throw new Error('keys, events and concurrency must be at least 1');
  const { topology } = client;
  const slots: KeySlot[] = Array.from({ length: Math.min(options.keys, options.events) }, (_, i) => {
    const name = `${options.keyPrefix}-${i}`;
    return { name, token: encodeKeyToken(keyFromText(name)), remaining: 0, sent: 0, inFlight: undefined, givenUp: false };
  });
  for (let i = 0; i < options.events; i += 1) slots[i % slots.length]!.remaining += 1;
  const byToken = new Map(slots.map((slot) => [slot.token, slot]));

  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let timedOut = 0;
  let issued = 0;
  let inFlight = 0;
  const ready: KeySlot[] = [...slots];
  const subscriptions: Subscription[] = [
    client.nc.subscribe(topology.outputFilter(options.agent)),
    client.nc.subscribe(topology.errorsFilter(options.agent)),
    client.nc.subscribe(topology.errorsFilter(UNNAMED_AGENT)),
  ];
  await client.nc.flush();

  const started = performance.now();
  let lastAnswer = started;
  return new Promise<LoadReport>((resolve, reject) => {
    let finished = false;
    const finish = (error?: unknown): void => {
      if (finished) return;
      finished = true;
      for (const slot of slots) if (slot.inFlight !== undefined) clearTimeout(slot.inFlight.timer);
      for (const sub of subscriptions) sub.unsubscribe();
      if (error !== undefined) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      const durationMs = lastAnswer - started;
      const answeredEvents = latencies.length + Object.values(errors).reduce((a, b) => a + b, 0);
      resolve({
        agent: options.agent,
        keys: slots.length,
        events: options.events,
        concurrency: options.concurrency,
        completed: latencies.length,
        errors,
        timedOut,
        skipped: options.events - issued,
        durationMs: Math.round(durationMs),
        activationsPerSecond: durationMs > 0 ? Math.round((answeredEvents / durationMs) * 1000) : 0,
        latencyMs: summarize(latencies),
      });
    };
    const settle = (slot: KeySlot, latencyMs: number | undefined, reason?: string): void => {
      if (slot.inFlight === undefined) return;
      clearTimeout(slot.inFlight.timer);
      slot.inFlight = undefined;
      inFlight -= 1;
      lastAnswer = performance.now();
      if (latencyMs !== undefined) latencies.push(latencyMs);
      if (reason !== undefined) errors[reason] = (errors[reason] ?? 0) + 1;
      if (slot.remaining > 0) ready.push(slot);
      pump();
    };
    const send = (slot: KeySlot): void => {
      const n = slot.sent;
      const i = issued;
      slot.sent += 1;
      slot.remaining -= 1;
      issued += 1;
      inFlight += 1;
      const timer = setTimeout(() => {
        // A late answer must not be taken for the key's next event: the key is given up.
        slot.inFlight = undefined;
        slot.givenUp = true;
        inFlight -= 1;
        timedOut += 1;
        pump();
      }, options.timeoutMs);
      slot.inFlight = { startedAt: performance.now(), timer };
      const body = options.payload.replaceAll('{{key}}', slot.name).replaceAll('{{n}}', String(n)).replaceAll('{{i}}', String(i));
      client.publishEvent(options.agent, slot.name, body).catch((error: unknown) => finish(error));
    };
    const pump = (): void => {
      if (finished) return;
      while (inFlight < options.concurrency && ready.length > 0) {
        const slot = ready.shift()!;
        if (!slot.givenUp && slot.remaining > 0) send(slot);
      }
      if (inFlight === 0 && ready.length === 0) finish();
    };
    void (async () => {
      for await (const msg of subscriptions[0]!) {
        const slot = byToken.get(msg.subject.slice(msg.subject.lastIndexOf('.') + 1));
        if (slot?.inFlight !== undefined) settle(slot, performance.now() - slot.inFlight.startedAt);
      }
    })();
    for (const sub of subscriptions.slice(1)) {
      void (async () => {
        for await (const msg of sub) {
          const record = decodeErrorRecord(msg.data);
          const slot = byToken.get(encodeKeyToken(record.entityKey));
          if (slot?.inFlight !== undefined) settle(slot, undefined, record.reason);
        }
      })();
    }
    pump();
  });
}

function summarize(values: number[]): LatencySummary | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! * 10) / 10;
  return { p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: rank(1) };
}
