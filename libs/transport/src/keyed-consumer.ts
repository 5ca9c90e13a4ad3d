import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { KeyMailbox } from '#core';
import { consumerTrouble, type ConsumerTrouble } from './consumer-trouble.js';

/** What a service makes of one delivered message before handling it. */
export type Intake<W> =
  /** Handle `work` on `lane`: one at a time per lane, in delivery order; lanes run concurrently. */
  | { readonly kind: 'handle'; readonly lane: string; readonly work: W }
  /** Settled at once by the service (e.g. a poison message that no state can absorb). */
  | { readonly kind: 'settled' };

/**
 * The three steps a service plugs into the engine (ARCHITECTURE §2): `intake` (decode and pick
 * the lane), `handle` (the work, on its lane) and `settle` (the one place that maps the outcome
 * to ack / nak / term / nothing).
 */
export interface KeyedConsumerHandler<W, O> {
  /** Decodes a new delivery. Runs synchronously in delivery order; must not throw. */
  intake(msg: JsMsg): Intake<W>;
  /** The work of one message; its lane's next message waits for it. */
  handle(work: W): Promise<O>;
  /**
   * Maps the outcome to an acknowledgement on `msg`, the newest delivery of the message (a
   * redelivery that arrived while it was handled replaces the handle it was delivered with).
   */
  settle(msg: JsMsg, outcome: O, work: W): void;
  /** `handle` or `settle` threw: the message is left unacknowledged (redelivered after the ack wait). Must not throw. */
  failed(msg: JsMsg, error: Error, work: W): void;
}

/** How the engine pulls. */
export type PullMode =
  /**
   * A continuous pull (`consume`) buffering up to `batch` messages client-side: for a consumer
   * this process owns alone (a partition, the ingest stream). In-flight work is bounded by the
   * consumer's `max_ack_pending`.
   */
  | { readonly kind: 'stream'; readonly batch: number; readonly expiresMs?: number }
  /**
   * Pulls only as many messages as there are free slots (`fetch`), so a consumer shared with
   * other replicas is never drained into one process's buffer while its slots are busy.
   */
  | { readonly kind: 'slots'; readonly maxInFlight: number; readonly expiresMs: number; readonly onPullError: (error: Error, failures: number) => Promise<void> };

/** Where and how a {@link KeyedConsumer} consumes. */
export interface KeyedConsumerOptions {
  readonly js: JetStreamClient;
  readonly stream: string;
  readonly consumerName: string;
  readonly pull: PullMode;
  /** `working()` cadence for held messages (a third of the ack wait, so none is redelivered while held). */
  readonly heartbeatMs: number;
  /**
   * Watches the consumer's delivery sequence (only for a consumer this process owns alone): when
   * it skips, a pulled batch was lost in transit, consumption stops and `onGap` is called once,
   * so the owner can restart from the ack floor before a later message of a key overtakes a lost one.
   */
  readonly onGap?: (from: number, to: number) => void;
  /**
   * Told of each {@link ConsumerTrouble} the continuous pull reports (missed heartbeats, a refused
   * pull, the consumer or its stream gone). The engine goes on consuming: a consumer that is gone
   * needs its owner to make a new one, which a restart from the ack floor does.
   */
  readonly onTrouble?: (trouble: ConsumerTrouble) => void;
  /** Called when the pull loop fails outside a stop. */
  readonly onLoopError?: (error: Error) => void;
}

/**
 * A delivered message being handled; a redelivery replaces `msg`, so settling uses the newest
 * handle. Emptied when the message settles: a replaced table of `inFlight` may still point at it
 * until the next full collection, and must not keep the message (headers, payload) alive meanwhile
 * (SlotMap in libs/core says why).
 */
interface Held {
  msg: JsMsg | undefined;
}

/**
 * The one consumer engine of the services: pulls a JetStream consumer, runs each message's work
 * on its lane (per-key order, keys concurrent), keeps held messages from redelivery with
 * `working()`, absorbs a redelivery of a message still being handled, detects delivery gaps, and
 * stops in two stages (drain, then halt).
 *
 * Redelivery: a message redelivered while held is not handled twice; it is settled once, through
 * its newest handle. A message redelivered after it settled is handled again (the services'
 * handlers are idempotent: dedup marks, derived ids). Crash: nothing is settled before its
 * handler finished, so whatever was held comes back after the ack wait.
 */
export class KeyedConsumer<W, O> {
  private readonly mailbox = new KeyMailbox();
  private readonly inFlight = new Map<number, Held>();
  /** lane → sequences of its messages received and not yet settled, oldest first. */
  private readonly lanes = new Map<string, number[]>();
  private readonly drainController = new AbortController();
  private readonly haltController = new AbortController();
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private slotWaiter: (() => void) | undefined;
  private lastDelivery: number | undefined;
  private gapped = false;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly options: KeyedConsumerOptions,
    private readonly handler: KeyedConsumerHandler<W, O>,
  ) {}

  /** Aborted when a stop begins: no new message is taken; work may wind down early. */
  get draining(): AbortSignal {
    return this.drainController.signal;
  }

  /** Aborted when the engine halts (drain window over, {@link halt}): running work must give up, unsettled. */
  get halted(): AbortSignal {
    return this.haltController.signal;
  }

  /** Messages received and not yet settled. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Messages of `lane` received and not yet settled (what the lane holds of the consumer's `max_ack_pending`). */
  laneDepth(lane: string): number {
    return this.lanes.get(lane)?.length ?? 0;
  }

  /** The stream sequence of the oldest unsettled message of `lane`, if it holds any. */
  oldestInLane(lane: string): number | undefined {
    return this.lanes.get(lane)?.[0];
  }

  /**
   * Runs `task` on `lane` after everything enqueued there so far, holding no message (a service's
   * own work in the lane's order, e.g. replaying a parked backlog). A stop waits for it like for
   * any lane work; the task should end early once {@link draining} or {@link halted} aborts.
   */
  runOnLane(lane: string, task: () => Promise<void>): Promise<void> {
    return this.mailbox.run(lane, task);
  }

  async start(): Promise<void> {
    const consumer = await this.options.js.consumers.get(this.options.stream, this.options.consumerName);
    this.heartbeat = setInterval(() => this.keepAlive(), this.options.heartbeatMs);
    this.heartbeat.unref();
    const pull = this.options.pull;
    this.loop = (pull.kind === 'stream' ? this.consume(consumer, pull) : this.fetchSlots(consumer, pull)).catch((error: unknown) => {
      if (!this.drainController.signal.aborted && !this.haltController.signal.aborted) this.options.onLoopError?.(error as Error);
    });
  }

  /**
   * Stops pulling, lets held work finish for up to `drainMs` (or until {@link halt}), then halts:
   * whatever is still held is left unsettled for redelivery. Resolves when nothing of the engine
   * runs. Idempotent: a second call waits for the first.
   */
  stop(drainMs: number): Promise<void> {
    this.stopped ??= (async () => {
      this.drainController.abort();
      this.messages?.stop();
      this.wakePuller();
      await this.loop;
      const drained = this.mailbox.drain();
      let timer: NodeJS.Timeout | undefined;
      const windowOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs);
        timer.unref();
        this.haltController.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([drained, windowOver]);
      clearTimeout(timer);
      this.haltController.abort();
      await drained;
      if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    })();
    return this.stopped;
  }

  /** Halts at once: no new pulls, running work told to give up, nothing more settled by the services. */
  halt(): void {
    this.messages?.stop();
    this.haltController.abort();
    this.wakePuller();
  }

  private async consume(consumer: Consumer, pull: Extract<PullMode, { kind: 'stream' }>): Promise<void> {
    const messages = await consumer.consume({ max_messages: pull.batch, ...(pull.expiresMs !== undefined ? { expires: pull.expiresMs } : {}) });
    this.messages = messages;
    if (this.drainController.signal.aborted || this.haltController.signal.aborted) messages.stop();
    const onTrouble = this.options.onTrouble;
    if (onTrouble !== undefined) void this.watch(messages, onTrouble);
    for await (const msg of messages) this.dispatch(msg);
  }

  /** Passes the pull stream's troubles on until it stops (its status stream ends with it). */
  private async watch(messages: ConsumerMessages, onTrouble: (trouble: ConsumerTrouble) => void): Promise<void> {
    for await (const notification of messages.status()) {
      const trouble = consumerTrouble(notification);
      if (trouble !== undefined && !this.drainController.signal.aborted && !this.haltController.signal.aborted) onTrouble(trouble);
    }
  }

  private async fetchSlots(consumer: Consumer, pull: Extract<PullMode, { kind: 'slots' }>): Promise<void> {
    let failures = 0;
    while (!this.drainController.signal.aborted && !this.haltController.signal.aborted) {
      const free = pull.maxInFlight - this.inFlight.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotWaiter = resolve));
        continue;
      }
      try {
        const batch = await consumer.fetch({ max_messages: free, expires: pull.expiresMs });
        this.messages = batch;
        if (this.drainController.signal.aborted) batch.stop();
        for await (const msg of batch) this.dispatch(msg);
        failures = 0;
      } catch (error) {
        if (this.drainController.signal.aborted || this.haltController.signal.aborted) break;
        failures += 1;
        await pull.onPullError(error as Error, failures);
      } finally {
        this.messages = undefined;
      }
    }
  }

  private dispatch(msg: JsMsg): void {
    // Taken after a stop or a gap: left unacknowledged, redelivered to whoever consumes next.
    if (this.gapped || this.drainController.signal.aborted || this.haltController.signal.aborted) return;
    const onGap = this.options.onGap;
    if (onGap !== undefined) {
      const delivery = msg.info.deliverySequence;
      if (this.lastDelivery !== undefined && delivery > this.lastDelivery + 1) {
        this.gapped = true;
        onGap(this.lastDelivery, delivery);
        return;
      }
      this.lastDelivery = delivery;
    }
    const seq = msg.seq;
    const held = this.inFlight.get(seq);
    if (held !== undefined) {
      // A redelivery of a message still being handled: settle through the newest handle.
      held.msg = msg;
      return;
    }
    const intake = this.handler.intake(msg);
    if (intake.kind === 'settled') return;
    const entry: Held = { msg };
    this.inFlight.set(seq, entry);
    const { work } = intake;
    const laneSeqs = this.lanes.get(intake.lane);
    if (laneSeqs === undefined) this.lanes.set(intake.lane, [seq]);
    else laneSeqs.push(seq);
    const done = (): void => {
      entry.msg = undefined;
      this.inFlight.delete(seq);
      const left = this.lanes.get(intake.lane);
      if (left !== undefined) {
        const at = left.indexOf(seq);
        if (at >= 0) left.splice(at, 1);
        if (left.length === 0) this.lanes.delete(intake.lane);
      }
      this.wakePuller();
    };
    // `entry.msg` is only emptied by `done`, after the settlement: `?? msg` never applies.
    this.mailbox.run(intake.lane, () => this.handler.handle(work)).then(
      (outcome) => {
        const newest = entry.msg ?? msg;
        try {
          this.handler.settle(newest, outcome, work);
        } catch (error) {
          this.fail(newest, error, work);
        }
        done();
      },
      (error: unknown) => {
        this.fail(entry.msg ?? msg, error, work);
        done();
      },
    );
  }

  /** A handler or settlement that threw leaves the message unsettled: redelivered after the ack wait. */
  private fail(msg: JsMsg, error: unknown, work: W): void {
    this.handler.failed(msg, error instanceof Error ? error : new Error(String(error)), work);
  }

  private wakePuller(): void {
    const waiter = this.slotWaiter;
    this.slotWaiter = undefined;
    waiter?.();
  }

  private keepAlive(): void {
    for (const held of this.inFlight.values()) held.msg?.working();
  }
}
