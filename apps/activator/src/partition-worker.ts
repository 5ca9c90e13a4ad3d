import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { JetStreamClient, JsMsg, StoredMsg } from '@nats-io/jetstream';
import { HeaderName, type ActorRuntime, type ErrorReason, type ProcessOutcome } from '#core';
import type { Topology } from '#routing';
import { headerValue, KeyedConsumer, type Intake, type KeyedConsumerHandler } from '#transport';
import type { EntityGate, GateOutcome } from './entity-gate.js';
import { decodeInboxMessage, storedInboxMessage, type DecodedInboxMessage, type InboxDelivery, type InboxRejection } from './inbox-message.js';
import { settleInboxMessage } from './inbox-settlement.js';
import type { ParkMarkers } from './park-markers.js';
import type { ElementVerdict } from './element-verification.js';

/**
 * Lifetime of each pull request. The client re-pulls when two idle heartbeats (half of this each)
 * are missed, which is how a worker notices that its pull died with the server holding it: in a
 * nats-server cluster, a consumer whose leader is killed gets a new leader, but the pull request
 * waiting at the old one is simply gone. With the client's default (30 s) the partition then sat
 * idle for half a minute after a server was SIGKILLed (observed in the cluster chaos suite); with
 * 5 s it resumes within a few seconds, for one small pull request per idle partition every 5 s.
 */
const PULL_EXPIRES_MS = 5_000;

/** Pause before a parked key's replay tries again after a failed read or record publish. */
const REPLAY_RETRY_MS = 1_000;

/**
 * How many unsettled messages one key may hold before its backlog is parked: a sixteenth of the
 * partition's `max_ack_pending`, at least 4 (32 of the default 512), so a key held by a long
 * activation or a retry leaves at least fifteen sixteenths of the in-flight budget to the others.
 */
export function parkThreshold(maxAckPending: number): number {
  return Math.max(4, Math.floor(maxAckPending / 16));
}

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
   * Called when the partition must be reset from its ack floor under a new consumer: the
   * consumer's delivery sequence skipped (a pulled batch lost in transit: a lost element could
   * arrive behind a later one of its key and be dropped as a duplicate), or the consumer is gone
   * (deleted: nothing would arrive again). Idempotent on the owner's side.
   */
  readonly onGap: (partition: number) => void;
  /** The park markers of this partition (durable record of keys whose backlog was acknowledged unapplied). */
  readonly markers: ParkMarkers;
  /** Unsettled messages of one key at which its backlog is parked ({@link parkThreshold}). */
  readonly parkAt: number;
  /** The first inbox message at or after `seq` on `subject` (a filter), or undefined when there is none. */
  readonly readNext: (subject: string, seq: number) => Promise<StoredMsg | undefined>;
  /**
   * Checks an element's `Agents-Auth` seal before it reaches its key (docs/decisions/0058), on
   * delivery and on a parked key's replay alike. A refusal becomes an error record of its reason
   * and is acknowledged; the key's state never sees it.
   */
  readonly verify: (decoded: DecodedInboxMessage, authHeader: string | undefined) => ElementVerdict;
}

/** Lane names that are not state keys: unparsable subjects, and parked messages waiting for their marker. */
const UNREADABLE_LANE = 'unreadable:';
const PARKING_LANE = 'parking:';

/** One inbox message on its way through the engine: an element, a message no element can be made of, or one of a parked key. */
type ElementWork =
  | { readonly kind: 'element'; readonly seq: number; readonly decoded: DecodedInboxMessage }
  | { readonly kind: 'unreadable'; readonly seq: number; readonly rejection: InboxRejection; readonly timestampMs: number; readonly reason?: ErrorReason }
  /** A message of a parked key: acknowledged once the key's marker is stored (its replay applies it). */
  | { readonly kind: 'parked'; readonly seq: number; readonly backlog: ParkedBacklog };

/** One parked key of this worker. */
interface ParkedBacklog {
  readonly stateKey: string;
  /** What the marker says: the lowest sequence the replay must cover (held messages included). */
  readonly fromSeq: number;
  /** Messages at or above this are acknowledged unapplied (the ones still held below it run in the lane). */
  readonly ackFrom: number;
  /** The replay's next sequence to read. */
  cursor: number;
  /** The highest sequence acknowledged unapplied: the replay may not end below it. */
  through: number;
  /** Set once the marker is stored (messages are then acknowledged at intake). */
  stored: boolean;
  storing: Promise<void> | undefined;
}

/**
 * Consumes one partition for one ownership epoch on the services' consumer engine
 * ({@link KeyedConsumer}): every message goes to its key's lane, so a key's elements run one at a
 * time in stream order while different keys run concurrently (bounded by the consumer's
 * max_ack_pending). Held messages are kept alive with `working()` every third of the ack wait, so
 * a slow activation or a key waiting out an outage is not redelivered behind its successors. A
 * redelivery of a message still in flight is absorbed.
 *
 * Parking: a key that holds `parkAt` unsettled messages (its head activation is slow, retrying, or
 * waiting) would otherwise take the partition's whole in-flight budget with its backlog and starve
 * every other key. Its further messages are parked instead: a marker (`ParkMarkers`) records the
 * lowest sequence of the key not yet applied, each further message is acknowledged off the
 * consumer without being applied, and a replay queued on the key's lane — after the messages it
 * still holds — reads the key's messages back from the inbox stream in sequence order and applies
 * them exactly like deliveries. When the replay has caught up with everything acknowledged while
 * parked, the marker is removed and the key's messages flow through the consumer again.
 * Crash or hand-over: the next owner lists the markers before it consumes, replays those keys from
 * the marker's sequence (already applied elements are duplicates), and acknowledges their
 * redelivered messages at or above it. An erased key's messages are gone from the inbox: the
 * replay finds nothing and ends.
 */
export class PartitionWorker implements KeyedConsumerHandler<ElementWork, GateOutcome<ProcessOutcome>> {
  private readonly logger: Logger;
  private readonly engine: KeyedConsumer<ElementWork, GateOutcome<ProcessOutcome>>;
  private fenced = false;
  /** stateKey → its parked backlog. */
  private readonly parked = new Map<string, ParkedBacklog>();

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
        onTrouble: (trouble) => {
          this.logger.warn(`consumer ${options.consumerName}: ${trouble.detail}${trouble.gone ? ': resetting the partition (a new consumer; what was applied comes back as duplicates)' : ''}`);
          if (trouble.gone) options.onGap(options.partition);
        },
        onLoopError: (error) => this.logger.error(`consume loop failed: ${error.message}`),
      },
      this,
    );
  }

  /** Lists the partition's park markers and queues their replays, then starts consuming. */
  async start(): Promise<void> {
    for (const marker of await this.options.markers.list()) {
      const backlog: ParkedBacklog = { stateKey: marker.stateKey, fromSeq: marker.fromSeq, ackFrom: marker.fromSeq, cursor: marker.fromSeq, through: marker.fromSeq - 1, stored: true, storing: undefined };
      this.parked.set(marker.stateKey, backlog);
      this.logger.log(`key ${marker.stateKey} is parked from inbox seq ${marker.fromSeq}: replaying it from the inbox`);
      void this.engine.runOnLane(marker.stateKey, () => this.replay(backlog));
    }
    await this.engine.start();
  }

  /** Keys whose backlog is parked now (telemetry and tests). */
  get parkedKeys(): number {
    return this.parked.size;
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
    const work = this.workOf(msg);
    const lane = work.kind === 'element' ? work.decoded.stateKey : work.rejection.lane;
    // Only a key's lane parks (an unparsable subject has no key to replay by).
    if (!lane.startsWith(UNREADABLE_LANE)) {
      const backlog = this.parked.get(lane) ?? this.parkIfFull(lane, msg.seq) ?? (this.notHosted(work) ? this.park(lane, msg.seq, `its agent is not hosted here`) : undefined);
      if (backlog !== undefined && msg.seq >= backlog.ackFrom) {
        backlog.through = Math.max(backlog.through, msg.seq);
        if (backlog.stored) {
          msg.ack();
          return { kind: 'settled' };
        }
        return { kind: 'handle', lane: `${PARKING_LANE}${lane}`, work: { kind: 'parked', seq: msg.seq, backlog } };
      }
    }
    return { kind: 'handle', lane, work };
  }

  /** Parks `stateKey` when it already holds `parkAt` unsettled messages; `seq` is its newest. */
  private parkIfFull(stateKey: string, seq: number): ParkedBacklog | undefined {
    const depth = this.engine.laneDepth(stateKey);
    if (depth < this.options.parkAt) return undefined;
    return this.park(stateKey, seq, `it holds ${depth} unsettled messages`);
  }

  /**
   * An element forwarded (not direct) to an agent this deployment does not host: retrying it would
   * hold the key forever ({@link AgentNotHosted}), so the key is parked instead, and its replay
   * records `unknown_agent` once and waits for an activator that hosts the agent.
   */
  private notHosted(work: Extract<ElementWork, { kind: 'element' | 'unreadable' }>): boolean {
    return work.kind === 'element' && work.decoded.element.direct !== true && !this.options.runtime.hosts(work.decoded.address.agent);
  }

  /** Parks `stateKey` from `seq` (its oldest held message, if any, is where a replay after a crash starts) and queues its replay. */
  private park(stateKey: string, seq: number, why: string): ParkedBacklog {
    const fromSeq = this.engine.oldestInLane(stateKey) ?? seq;
    const backlog: ParkedBacklog = { stateKey, fromSeq, ackFrom: seq, cursor: seq, through: seq, stored: false, storing: undefined };
    this.parked.set(stateKey, backlog);
    this.logger.warn(`key ${stateKey}: parking its backlog from inbox seq ${seq} because ${why} (acknowledged, replayed from the inbox in order once the key can go on)`);
    void this.engine.runOnLane(stateKey, () => this.replay(backlog));
    return backlog;
  }

  /** Stores the marker of `backlog` once (a failed write is tried again by the next message of the key). */
  private storeMarker(backlog: ParkedBacklog): Promise<void> {
    if (backlog.stored) return Promise.resolve();
    // A parked message whose turn on the key's lane comes after the replay caught up (it queued
    // behind the replay) needs no marker: the replay applied it, and a marker written now would
    // outlive the unpark and send the next owner on a replay for nothing.
    if (this.parked.get(backlog.stateKey) !== backlog) return Promise.resolve();
    backlog.storing ??= this.options.markers.park(backlog.stateKey, backlog.fromSeq).then(
      () => {
        backlog.stored = true;
      },
      (error: unknown) => {
        backlog.storing = undefined;
        throw error;
      },
    );
    return backlog.storing;
  }

  /** What a delivered or replayed inbox message is: an element, or an unreadable message. */
  private workOf(msg: InboxDelivery): Extract<ElementWork, { kind: 'element' | 'unreadable' }> {
    const decoded = decodeInboxMessage(msg, this.options.topology);
    if ('problem' in decoded) {
      // Only a foreign or corrupt publisher produces these; no state can ever absorb them. It
      // becomes an error record and is acked (not termed: nats-server 2.9 ignores `+TERM <reason>`
      // and redelivers it every ack wait, filling max_ack_pending). On its key's lane when the
      // subject names one, so the record keeps the key's order.
      return { kind: 'unreadable', seq: msg.seq, rejection: decoded, timestampMs: Number(msg.timestampNanos / 1_000_000n) };
    }
    const verdict = this.options.verify(decoded, headerValue(msg.headers, HeaderName.Auth));
    if (verdict.kind === 'refuse') {
      // A forged or unsealed answer or timer: recorded on its key's lane and acked, never applied.
      const rejection: InboxRejection = { problem: verdict.detail, agent: decoded.address.agent, entityKey: decoded.element.entityKey, lane: decoded.stateKey };
      return { kind: 'unreadable', seq: msg.seq, rejection, timestampMs: Number(msg.timestampNanos / 1_000_000n), reason: verdict.reason };
    }
    return { kind: 'element', seq: msg.seq, decoded };
  }

  /**
   * Replays a parked key on its lane: reads the key's inbox messages from the backlog's cursor in
   * sequence order and applies each like a delivery, until it has covered every message
   * acknowledged while parked; then unparks. Gives up (leaving the marker for the next owner) when
   * the worker drains, halts or is fenced. Read and record failures are retried.
   */
  private async replay(backlog: ParkedBacklog): Promise<void> {
    const subject = this.options.topology.inboxPartitionFilter(this.options.partition).replace(/>$/, `${backlog.stateKey}.*`);
    const stopping = (): boolean => this.fenced || this.engine.draining.aborted || this.engine.halted.aborted;
    while (!stopping()) {
      let stored: StoredMsg | undefined;
      let outcome: GateOutcome<ProcessOutcome>;
      try {
        stored = await this.options.readNext(subject, backlog.cursor);
        if (stored === undefined) {
          if (backlog.through < backlog.cursor) {
            // Caught up: from here on the key's messages are applied as they are delivered.
            this.parked.delete(backlog.stateKey);
            await this.options.markers.unpark(backlog.stateKey);
            // Logged once the marker is gone, so the line is true when it is read.
            this.logger.log(`key ${backlog.stateKey} caught up with its parked backlog: unparked`);
            return;
          }
          // Acknowledged while parked yet not in the stream: erased with its entity.
          backlog.cursor = backlog.through + 1;
          continue;
        }
        const work = this.workOf(storedInboxMessage(stored));
        if (this.notHosted(work) && work.kind === 'element') {
          // Parked until an activator hosting the agent owns the partition (it replays the marker).
          await this.storeMarker(backlog);
          const { element, address } = work.decoded;
          await this.options.runtime.recordNotHosted({ agent: address.agent, entityKey: element.entityKey, inboxSeq: stored.seq, eventTimeMs: element.eventTimeMs, headers: element.headers });
          this.logger.error(`key ${backlog.stateKey}: agent '${address.agent}' is not hosted here: recorded unknown_agent for inbox seq ${stored.seq}; the key stays parked`);
          return;
        }
        outcome = await this.handle(work);
      } catch (error) {
        this.logger.error(`replaying the parked backlog of ${backlog.stateKey} failed at inbox seq ${backlog.cursor} (retrying): ${(error as Error).message}`);
        await delay(REPLAY_RETRY_MS);
        continue;
      }
      if (!outcome.ran) {
        if (outcome.reason === 'stopped') return;
      } else if (outcome.value.kind === 'fenced') {
        this.fence();
        return;
      } else if (outcome.value.kind === 'abandoned') {
        return;
      }
      backlog.cursor = stored.seq + 1;
    }
  }

  async handle(work: ElementWork): Promise<GateOutcome<ProcessOutcome>> {
    const { gate, runtime, stillStored, epoch } = this.options;
    if (work.kind === 'parked') {
      await this.storeMarker(work.backlog);
      return { ran: true, value: { kind: 'noop' } };
    }
    if (work.kind === 'unreadable') {
      const { rejection, seq, timestampMs, reason } = work;
      this.logger.error(`inbox message ${seq} is refused (${rejection.problem}): recorded as ${reason ?? 'malformed_input'} and acknowledged`);
      await runtime.recordUnreadable({ agent: rejection.agent, entityKey: rejection.entityKey, inboxSeq: seq, eventTimeMs: timestampMs, detail: rejection.problem, ...(reason !== undefined ? { reason } : {}) });
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
    if (settleInboxMessage(msg, gated.value) === 'stop-partition') this.fence();
  }

  /** A newer owner wrote one of the keys: stop at once and tell the owner (once). */
  private fence(): void {
    if (this.fenced) return;
    this.fenced = true;
    this.engine.halt();
    this.options.onFenced(this.options.partition);
  }

  failed(msg: JsMsg, error: Error, work: ElementWork): void {
    const what =
      work.kind === 'element'
        ? `element ${msg.seq} of ${work.decoded.stateKey}`
        : work.kind === 'parked'
          ? `the park marker of ${work.backlog.stateKey} (message ${msg.seq} stays unacknowledged)`
          : `the error record of unreadable inbox message ${msg.seq}`;
    this.logger.error(`${what} failed unexpectedly: ${error.message}`);
  }
}
