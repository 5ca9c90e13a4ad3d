import { Logger } from '@nestjs/common';
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { ActorRuntime, ProcessOutcome } from '#core';
import type { Topology } from '#routing';
import { KeyedConsumer, type Intake, type KeyedConsumerHandler } from '#transport';
import type { EntityGate, GateOutcome } from './entity-gate.js';
import { decodeInboxMessage, type DecodedInboxMessage, type InboxRejection } from './inbox-message.js';
import { settleInboxMessage } from './inbox-settlement.js';

/**
 * Lifetime of each pull request. The client re-pulls when two idle heartbeats (half of this each)
 * are missed, which is how a worker notices that its pull died with the server holding it: in a
 * nats-server cluster, a consumer whose leader is killed gets a new leader, but the pull request
 * waiting at the old one is simply gone. With the client's default (30 s) the partition then sat
 * idle for half a minute after a server was SIGKILLed (observed in the cluster chaos suite); with
 * 5 s it resumes within a few seconds, for one small pull request per idle partition every 5 s.
 */
const PULL_EXPIRES_MS = 5_000;

/** What a worker needs to consume one owned partition. */
export interface PartitionWorkerOptions {
  readonly partition: number;
  readonly epoch: number;
  readonly stream: string;
  readonly consumerName: string;
  readonly ackWaitMs: number;
  /** Messages buffered client-side per pull. */
  readonly batch: number;
  readonly js: JetStreamClient;
  readonly runtime: ActorRuntime;
  readonly topology: Topology;
  /** Holds elements of entities paused by an erasure. */
  readonly gate: EntityGate;
  /** Whether the inbox still stores message `seq` (false once an erasure purged it). */
  readonly stillStored: (seq: number) => Promise<boolean>;
  /** Called once when the worker finds itself fenced (a newer owner wrote one of its keys). */
  readonly onFenced: (partition: number) => void;
  /**
   * Called once when the consumer's delivery sequence skips (a pulled batch lost in transit): the
   * partition must be reset from its ack floor, or a lost element could arrive behind a later one
   * of its key and be dropped as a duplicate.
   */
  readonly onGap: (partition: number) => void;
}

/** One inbox message on its way through the engine: an element, or a message no element can be made of. */
type ElementWork =
  | { readonly kind: 'element'; readonly seq: number; readonly decoded: DecodedInboxMessage }
  | { readonly kind: 'unreadable'; readonly seq: number; readonly rejection: InboxRejection; readonly timestampMs: number };

/**
 * Consumes one partition for one ownership epoch on the services' consumer engine
 * ({@link KeyedConsumer}): every message goes to its key's lane, so a key's elements run one at a
 * time in stream order while different keys run concurrently (bounded by the consumer's
 * max_ack_pending). Held messages are kept alive with `working()` every third of the ack wait, so
 * a slow activation or a key waiting out an outage is not redelivered behind its successors. A
 * redelivery of a message still in flight is absorbed.
 */
export class PartitionWorker implements KeyedConsumerHandler<ElementWork, GateOutcome<ProcessOutcome>> {
  private readonly logger: Logger;
  private readonly engine: KeyedConsumer<ElementWork, GateOutcome<ProcessOutcome>>;
  private fenced = false;

  constructor(private readonly options: PartitionWorkerOptions) {
    this.logger = new Logger(`Partition ${options.partition}`);
    this.engine = new KeyedConsumer(
      {
        js: options.js,
        stream: options.stream,
        consumerName: options.consumerName,
        pull: { kind: 'stream', batch: options.batch, expiresMs: PULL_EXPIRES_MS },
        heartbeatMs: Math.max(1_000, Math.floor(options.ackWaitMs / 3)),
        onGap: (from, to) => {
          this.logger.warn(`delivery sequence jumped from ${from} to ${to}: resetting the partition from its ack floor`);
          options.onGap(options.partition);
        },
        onLoopError: (error) => this.logger.error(`consume loop failed: ${error.message}`),
      },
      this,
    );
  }

  start(): Promise<void> {
    return this.engine.start();
  }

  /**
   * Stops pulling, lets in-flight elements finish for up to `drainMs`, then abandons the rest
   * (left unacked for the next owner). Resolves when nothing of this worker is running.
   */
  stop(drainMs: number): Promise<void> {
    return this.engine.stop(drainMs);
  }

  /** Elements received and not yet settled. */
  get pending(): number {
    return this.engine.pending;
  }

  intake(msg: JsMsg): Intake<ElementWork> {
    const decoded = decodeInboxMessage(msg, this.options.topology);
    if ('problem' in decoded) {
      // Only a foreign or corrupt publisher produces these; no state can ever absorb them. It
      // becomes an error record and is acked (not termed: nats-server 2.9 ignores `+TERM <reason>`
      // and redelivers it every ack wait, filling max_ack_pending). On its key's lane when the
      // subject names one, so the record keeps the key's order.
      return { kind: 'handle', lane: decoded.lane, work: { kind: 'unreadable', seq: msg.seq, rejection: decoded, timestampMs: Number(msg.timestampNanos / 1_000_000n) } };
    }
    return { kind: 'handle', lane: decoded.stateKey, work: { kind: 'element', seq: msg.seq, decoded } };
  }

  async handle(work: ElementWork): Promise<GateOutcome<ProcessOutcome>> {
    const { gate, runtime, stillStored, epoch } = this.options;
    if (work.kind === 'unreadable') {
      const { rejection, seq, timestampMs } = work;
      this.logger.error(`inbox message ${seq} is unreadable (${rejection.problem}): recorded as malformed_input and acknowledged`);
      await runtime.recordUnreadable({ agent: rejection.agent, entityKey: rejection.entityKey, inboxSeq: seq, eventTimeMs: timestampMs, detail: rejection.problem });
      return { ran: true, value: { kind: 'noop' } };
    }
    const { seq, decoded } = work;
    const signal = this.engine.halted;
    const scope = { stateKey: decoded.stateKey, agent: decoded.address.agent, ownerEpoch: epoch, signal };
    return gate.run(decoded.address.token, () => runtime.process(decoded.element, scope), () => stillStored(seq), signal);
  }

  settle(msg: JsMsg, gated: GateOutcome<ProcessOutcome>): void {
    if (!gated.ran) {
      // Erased with its entity: nothing is left to apply. Stopped: the next owner gets it.
      if (gated.reason === 'erased') msg.ack();
      return;
    }
    if (settleInboxMessage(msg, gated.value) === 'stop-partition' && !this.fenced) {
      this.fenced = true;
      this.engine.halt();
      this.options.onFenced(this.options.partition);
    }
  }

  failed(msg: JsMsg, error: Error, work: ElementWork): void {
    const what = work.kind === 'element' ? `element ${msg.seq} of ${work.decoded.stateKey}` : `the error record of unreadable inbox message ${msg.seq}`;
    this.logger.error(`${what} failed unexpectedly: ${error.message}`);
  }
}
