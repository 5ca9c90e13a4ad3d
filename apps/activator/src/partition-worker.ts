import { Logger } from '@nestjs/common';
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { KeyMailbox, type ActorRuntime } from '#core';
import type { Topology } from '#routing';
import type { EntityGate } from './entity-gate.js';
import { decodeInboxMessage } from './inbox-message.js';
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

/**
 * Consumes one partition for one ownership epoch: every message goes to its key's mailbox, so a
 * key's elements run one at a time in stream order while different keys run concurrently
 * (bounded by the consumer's max_ack_pending). Held messages are kept alive with `working()`
 * every third of the ack wait, so a slow activation or a key waiting out an outage is not
 * redelivered behind its successors. A redelivery of a message still in flight is absorbed.
 */
export class PartitionWorker {
  private readonly logger: Logger;
  private readonly mailbox = new KeyMailbox();
  private readonly inFlight = new Map<number, JsMsg>();
  private readonly stopController = new AbortController();
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private fenced = false;
  private lastDelivery: number | undefined;
  private gapped = false;

  constructor(private readonly options: PartitionWorkerOptions) {
    this.logger = new Logger(`Partition ${options.partition}`);
  }

  async start(): Promise<void> {
    const consumer = await this.options.js.consumers.get(this.options.stream, this.options.consumerName);
    this.messages = await consumer.consume({ max_messages: this.options.batch, expires: PULL_EXPIRES_MS });
    this.heartbeat = setInterval(() => this.keepAlive(), Math.max(1_000, Math.floor(this.options.ackWaitMs / 3)));
    this.heartbeat.unref();
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) this.dispatch(msg);
    })().catch((error: unknown) => {
      if (!this.stopController.signal.aborted) this.logger.error(`consume loop failed: ${(error as Error).message}`);
    });
  }

  /**
   * Stops pulling, lets in-flight elements finish for up to `drainMs`, then abandons the rest
   * (left unacked for the next owner). Resolves when nothing of this worker is running.
   */
  async stop(drainMs: number): Promise<void> {
    this.messages?.stop();
    await this.loop;
    const drained = this.mailbox.drain();
    const timer = new Promise<void>((resolve) => setTimeout(resolve, drainMs).unref());
    await Promise.race([drained, timer]);
    this.stopController.abort();
    await drained;
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
  }

  /** Elements received and not yet settled. */
  get pending(): number {
    return this.inFlight.size;
  }

  private dispatch(msg: JsMsg): void {
    if (this.gapped) return;
    const delivery = msg.info.deliverySequence;
    if (this.lastDelivery !== undefined && delivery > this.lastDelivery + 1) {
      this.gapped = true;
      this.logger.warn(`delivery sequence jumped from ${this.lastDelivery} to ${delivery}: resetting the partition from its ack floor`);
      this.options.onGap(this.options.partition);
      return;
    }
    this.lastDelivery = delivery;
    if (this.inFlight.has(msg.seq)) {
      // A redelivery of an element still being processed: settle through the newest handle.
      this.inFlight.set(msg.seq, msg);
      return;
    }
    const decoded = decodeInboxMessage(msg, this.options.topology);
    if ('problem' in decoded) {
      // Only a foreign or corrupt publisher produces these; no state can ever absorb them.
      this.logger.error(`terminating inbox message ${msg.seq}: ${decoded.problem}`);
      msg.term(decoded.problem);
      return;
    }
    this.inFlight.set(msg.seq, msg);
    const scope = {
      stateKey: decoded.stateKey,
      agent: decoded.address.agent,
      ownerEpoch: this.options.epoch,
      signal: this.stopController.signal,
    };
    const { gate, runtime, stillStored } = this.options;
    void this.mailbox
      .run(decoded.stateKey, () =>
        gate.run(decoded.address.token, () => runtime.process(decoded.element, scope), () => stillStored(msg.seq), this.stopController.signal),
      )
      .then((gated) => {
        const latest = this.inFlight.get(msg.seq) ?? msg;
        if (!gated.ran) {
          // Erased with its entity: nothing is left to apply. Stopped: the next owner gets it.
          if (gated.reason === 'erased') latest.ack();
          return;
        }
        if (settleInboxMessage(latest, gated.value) === 'stop-partition' && !this.fenced) {
          this.fenced = true;
          this.stopController.abort();
          this.options.onFenced(this.options.partition);
        }
      })
      .catch((error: unknown) => {
        this.logger.error(`element ${msg.seq} of ${decoded.stateKey} failed unexpectedly: ${(error as Error).message}`);
      })
      .finally(() => this.inFlight.delete(msg.seq));
  }

  private keepAlive(): void {
    for (const msg of this.inFlight.values()) msg.working();
  }
}
