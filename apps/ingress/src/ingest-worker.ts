import { Logger } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { backoffDelay, sleep, type AgentDefinition } from '#core';
import type { Topology } from '#routing';
import type { IngressMetrics } from '#telemetry';
import { fromMsgHdrs, KeyedConsumer, type Intake, type KeyedConsumerHandler, type PubAckPipeline } from '#transport';
import { carryOut } from './ingest-forwarder.js';
import { decideIngest, type IngestDecision, type IngestLimits } from './ingest-decision.js';
import { startIngestSpan, untracedIngest, type IngestTrace } from './telemetry/ingest-span.js';

const timers = {
  setTimeout: (callback: () => void, ms: number) => {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

/**
 * Lifetime of each pull request, as the activator's partitions have it: the client pulls again
 * after two missed idle heartbeats (half of this each), which is how the worker notices a pull
 * that died with the server holding it. With the client's default (30 s) ingress could sit idle
 * for half a minute before it pulled again; with 5 s it resumes within seconds, for one small pull
 * request every 5 s while the stream is idle.
 */
const PULL_EXPIRES_MS = 5_000;

/** What a worker needs to consume the ingest stream for one lease epoch. */
export interface IngestWorkerOptions {
  readonly stream: string;
  /** The consumer of this epoch (`ingress-e<epoch>`), already created from the predecessor's ack floor. */
  readonly consumerName: string;
  readonly ackWaitMs: number;
  /** Messages buffered client-side per pull. */
  readonly batch: number;
  readonly js: JetStreamClient;
  /** Publishes the forwards and error records (acknowledged by their streams). */
  readonly acks: PubAckPipeline;
  readonly topology: Topology;
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  readonly limits: IngestLimits;
  /** Whether this process exports traces: off, messages get no span (see `untracedIngest`). */
  readonly tracing: boolean;
  /** The sampler follows the parent (`Tracing.parentBased`): a message whose carried parent is sampled out gets no span. */
  readonly parentBased?: boolean;
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

/** One ingest message on its way through the engine. */
interface IngestWork {
  readonly seq: number;
  /** The ingest message's stream timestamp (nanoseconds): part of its forward's message id. */
  readonly storedAtNanos: bigint;
  readonly traced: IngestTrace;
}

/**
 * Consumes the ingest stream for one lease epoch on the services' consumer engine
 * ({@link KeyedConsumer}): each message is decided (`decideIngest`) and carried out on its key's
 * lane, so a key's messages are forwarded one at a time in stream order while keys proceed
 * concurrently. A message is acked only after its forward (or error record) was acknowledged by
 * the target stream; both publishes carry ids derived from the ingest sequence, so a redelivery,
 * or a successor re-forwarding from the ack floor, stores nothing twice. Held messages are kept
 * from redelivery with `working()` every third of the ack wait.
 */
export class IngestWorker implements KeyedConsumerHandler<IngestWork, boolean> {
  private readonly logger = new Logger('Ingest');
  private readonly engine: KeyedConsumer<IngestWork, boolean>;

  constructor(private readonly options: IngestWorkerOptions) {
    this.engine = new KeyedConsumer(
      {
        js: options.js,
        stream: options.stream,
        consumerName: options.consumerName,
        pull: { kind: 'stream', batch: options.batch, expiresMs: PULL_EXPIRES_MS },
        heartbeatMs: Math.max(1_000, Math.floor(options.ackWaitMs / 3)),
        onGap: (from, to) => {
          this.logger.warn(`delivery sequence jumped from ${from} to ${to}: restarting the ingest consumer from its ack floor`);
          options.onGap();
        },
        onTrouble: (trouble) => {
          if (!trouble.gone) {
            this.logger.warn(`consumer ${options.consumerName}: ${trouble.detail}`);
            return;
          }
          // Not reset, unlike a partition: the deleted consumer's ack floor is gone, and a new
          // consumer would start at the stream's first message. Its forwards carry new inbox
          // sequences, so every event older than the inbox's duplicate window would be applied
          // again. An operator who knows where forwarding stopped re-creates the consumer there.
          this.logger.error(
            `consumer ${options.consumerName}: ${trouble.detail}: ingest has stopped. It is not restarted from the stream's first message (events older than the duplicate window would be applied again): re-create ${options.consumerName} on ${options.stream} starting at the first ingest sequence not yet forwarded, and ingress resumes by itself`,
          );
        },
        onLoopError: (error) => this.logger.error(`ingest loop failed: ${error.message}`),
      },
      this,
    );
  }

  /** The consumer this worker pulls from. */
  get consumerName(): string {
    return this.options.consumerName;
  }

  start(): Promise<void> {
    return this.engine.start();
  }

  /**
   * Stops pulling, lets in-flight forwards finish for up to `drainMs` (or until {@link abandon}),
   * then abandons the rest unacked for the next holder. Resolves when nothing of this worker runs.
   * Idempotent: a second call waits for the first.
   */
  stop(drainMs: number): Promise<void> {
    return this.engine.stop(drainMs);
  }

  /** Stops at once: no new pulls, no new forwards, nothing more acked (a lost lease). */
  abandon(): void {
    this.engine.halt();
  }

  intake(msg: JsMsg): Intake<IngestWork> {
    const headers = fromMsgHdrs(msg.headers);
    // Read once: the client parses the reply subject again on every read of `timestampNanos`.
    const storedAtNanos = msg.timestampNanos;
    const decided = decideIngest(
      { subject: msg.subject, data: msg.data, headers, ingestTimeMs: Number(storedAtNanos / 1_000_000n) },
      this.options.agents,
      this.options.topology,
      this.options.limits,
    );
    // The forward carries this message's ingest span as the parent of the activation it causes.
    const traced = this.options.tracing
      ? startIngestSpan(msg, headers, decided, this.options.stream, this.options.metrics, this.options.parentBased === true)
      : untracedIngest(decided, this.options.metrics);
    const decision = traced.decision;
    // Order matters per key only; unreadable messages have no key and go on their own.
    const lane = decision.kind === 'forward' ? `${decision.agent}.${decision.token}` : `#${msg.seq}`;
    return { kind: 'handle', lane, work: { seq: msg.seq, storedAtNanos, traced } };
  }

  handle({ seq, storedAtNanos, traced }: IngestWork): Promise<boolean> {
    // The forward carries the ingest span explicitly (its headers); the scope is synchronous
    // (decision 0076): only what the forward logs before its first await carries trace_id.
    // Sampled out, nothing records the scope: forward without it.
    return traced.recording ? context.with(traced.context, () => this.forward(traced.decision, seq, storedAtNanos)) : this.forward(traced.decision, seq, storedAtNanos);
  }

  settle(msg: JsMsg, done: boolean, { traced }: IngestWork): void {
    traced.finish(done);
    // Not done: abandoned (a lost lease or a stop); left unacked for the next holder.
    if (done) msg.ack();
  }

  failed(msg: JsMsg, error: Error, { traced }: IngestWork): void {
    traced.finish(false);
    this.logger.error(`ingest ${msg.seq} failed unexpectedly and is left for redelivery: ${error.message}`);
  }

  /** Forwards with retries in place (holding the key's order); false when abandoned first. */
  private async forward(decision: IngestDecision, seq: number, storedAtNanos: bigint): Promise<boolean> {
    const source = { stream: this.options.stream, seq, storedAtNanos };
    const halted = this.engine.halted;
    for (let attempt = 0; !halted.aborted; attempt += 1) {
      if (!this.options.mayForward()) return false;
      try {
        await carryOut(this.options.acks, this.options.topology, decision, source);
        if (decision.kind === 'reject') this.logger.warn(`ingest ${seq} refused: ${decision.reason}: ${decision.detail}`);
        return true;
      } catch (error) {
        const delay = backoffDelay({ baseMs: 100, maxMs: 10_000 }, attempt, Math.random);
        this.options.metrics.forwardRetries.inc();
        this.logger.warn(`ingest ${seq} not forwarded yet (attempt ${attempt + 1}, retry in ${delay} ms): ${(error as Error).message}`);
        await sleep(timers, delay, halted);
      }
    }
    return false;
  }
}
