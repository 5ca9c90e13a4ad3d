import { Logger } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { backoffDelay, KeyMailbox, sleep, type AgentDefinition } from '#core';
import type { Topology } from '#routing';
import type { IngressMetrics } from '#telemetry';
import { fromMsgHdrs } from '#transport';
import { carryOut } from './ingest-forwarder.js';
import { decideIngest, type IngestDecision, type IngestLimits } from './ingest-decision.js';
import { startIngestSpan } from './telemetry/ingest-span.js';

const timers = {
  setTimeout: (callback: () => void, ms: number) => {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

/** What a worker needs to consume the ingest stream for one lease epoch. */
export interface IngestWorkerOptions {
  readonly stream: string;
  /** The consumer of this epoch (`ingress-e<epoch>`), already created from the predecessor's ack floor. */
  readonly consumerName: string;
  readonly ackWaitMs: number;
  /** Messages buffered client-side per pull. */
  readonly batch: number;
  readonly js: JetStreamClient;
  readonly topology: Topology;
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  readonly limits: IngestLimits;
  readonly requestTimeoutMs: number;
  /** Counts forwards, refusals (error records) and retries. */
  readonly metrics: IngressMetrics;
  /**
   * Asked right before every forward: false once the lease is no longer valid, so a process that
   * was paused past its lease forwards nothing more from its buffer.
   */
  readonly mayForward: () => boolean;
  /**
   * Called once when the consumer's delivery sequence skips (a pulled batch lost in transit): the
   * consumer must restart from its ack floor, or a lost message could reach the inbox behind a
   * later one of its key.
   */
  readonly onGap: () => void;
}

/**
 * Consumes the ingest stream for one lease epoch: each message is decided (`decideIngest`) and
 * carried out on its key's mailbox, so a key's messages are forwarded one at a time in stream
 * order while keys proceed concurrently. A message is acked only after its forward (or error
 * record) was acknowledged by the target stream; both publishes carry ids derived from the ingest
 * sequence, so a redelivery, or a successor re-forwarding from the ack floor, stores nothing twice.
 * Held messages are kept from redelivery with `working()` every third of the ack wait.
 */
export class IngestWorker {
  private readonly logger = new Logger('Ingest');
  private readonly mailbox = new KeyMailbox();
  private readonly inFlight = new Map<number, JsMsg>();
  private readonly abandoned = new AbortController();
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastDelivery: number | undefined;
  private gapped = false;
  private stopped: Promise<void> | undefined;

  constructor(private readonly options: IngestWorkerOptions) {}

  /** The consumer this worker pulls from. */
  get consumerName(): string {
    return this.options.consumerName;
  }

  async start(): Promise<void> {
    const consumer = await this.options.js.consumers.get(this.options.stream, this.options.consumerName);
    this.messages = await consumer.consume({ max_messages: this.options.batch });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) this.dispatch(msg);
    })().catch((error: unknown) => {
      if (!this.abandoned.signal.aborted) this.logger.error(`ingest loop failed: ${(error as Error).message}`);
    });
    this.heartbeat = setInterval(() => {
      for (const msg of this.inFlight.values()) msg.working();
    }, Math.max(1_000, Math.floor(this.options.ackWaitMs / 3)));
    this.heartbeat.unref();
  }

  /**
   * Stops pulling, lets in-flight forwards finish for up to `drainMs` (or until {@link abandon}),
   * then abandons the rest unacked for the next holder. Resolves when nothing of this worker runs.
   * Idempotent: a second call waits for the first.
   */
  stop(drainMs: number): Promise<void> {
    this.stopped ??= (async () => {
      this.messages?.stop();
      await this.loop;
      const drained = this.mailbox.drain();
      const aborted = new Promise<void>((resolve) => this.abandoned.signal.addEventListener('abort', () => resolve(), { once: true }));
      let timer: NodeJS.Timeout | undefined;
      const timeUp = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs);
        timer.unref();
      });
      await Promise.race([drained, timeUp, aborted]);
      clearTimeout(timer);
      this.abandoned.abort();
      await drained;
      if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    })();
    return this.stopped;
  }

  /** Stops at once: no new pulls, no new forwards, nothing more acked (a lost lease). */
  abandon(): void {
    this.messages?.stop();
    this.abandoned.abort();
  }

  private dispatch(msg: JsMsg): void {
    if (this.gapped || this.abandoned.signal.aborted) return;
    const delivery = msg.info.deliverySequence;
    if (this.lastDelivery !== undefined && delivery > this.lastDelivery + 1) {
      this.gapped = true;
      this.logger.warn(`delivery sequence jumped from ${this.lastDelivery} to ${delivery}: restarting the ingest consumer from its ack floor`);
      this.options.onGap();
      return;
    }
    this.lastDelivery = delivery;
    if (this.inFlight.has(msg.seq)) {
      // A redelivery of a message still being forwarded: settle through the newest handle.
      this.inFlight.set(msg.seq, msg);
      return;
    }
    this.inFlight.set(msg.seq, msg);
    const headers = fromMsgHdrs(msg.headers);
    const decided = decideIngest(
      { subject: msg.subject, data: msg.data, headers, ingestTimeMs: Number(msg.timestampNanos / 1_000_000n) },
      this.options.agents,
      this.options.topology,
      this.options.limits,
    );
    // The forward carries this message's ingest span as the parent of the activation it causes.
    const traced = startIngestSpan(msg, headers, decided, this.options.stream, this.options.topology, this.options.metrics);
    const decision = traced.decision;
    // Order matters per key only; unreadable messages have no key and go on their own.
    const lane = decision.kind === 'forward' ? `${decision.agent}.${decision.token}` : `#${msg.seq}`;
    void this.mailbox
      .run(lane, () => context.with(traced.context, () => this.forward(decision, msg.seq)))
      .then((done) => {
        traced.finish(done);
        if (done) (this.inFlight.get(msg.seq) ?? msg).ack();
      })
      .finally(() => this.inFlight.delete(msg.seq));
  }

  /** Forwards with retries in place (holding the key's order); false when abandoned first. */
  private async forward(decision: IngestDecision, seq: number): Promise<boolean> {
    const source = { stream: this.options.stream, seq };
    for (let attempt = 0; !this.abandoned.signal.aborted; attempt += 1) {
      if (!this.options.mayForward()) return false;
      try {
        await carryOut(this.options.js, this.options.topology, decision, source, this.options.requestTimeoutMs);
        if (decision.kind === 'reject') this.logger.warn(`ingest ${seq} refused: ${decision.reason}: ${decision.detail}`);
        return true;
      } catch (error) {
        const delay = backoffDelay({ baseMs: 100, maxMs: 10_000 }, attempt, Math.random);
        this.options.metrics.forwardRetries.inc();
        this.logger.warn(`ingest ${seq} not forwarded yet (attempt ${attempt + 1}, retry in ${delay} ms): ${(error as Error).message}`);
        await sleep(timers, delay, this.abandoned.signal);
      }
    }
    return false;
  }
}
