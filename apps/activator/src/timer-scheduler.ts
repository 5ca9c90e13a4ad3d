import { Logger } from '@nestjs/common';
import { encodeInboxEnvelope, sealedPayloadBytes, timerMessageId, type Clock, type SealInput, type TimerDoc, type TimerOwner } from '#core';
import { encodeKeyToken, InboxKind, type Topology } from '#routing';
import { TimerHeap } from './timer-heap.js';

/**
 * Publishes one timer firing into a key's inbox lane (resolves when the stream stored it, or when
 * the publisher chose to hold the firing back: the key's timers are then reloaded later). `seal`
 * is what the firing's `Agents-Auth` seal covers; a sealing publisher uses the seal's message id
 * instead of `msgId` (both deterministic, so a republish is stored once).
 */
export type TimerPublisher = (subject: string, envelope: Uint8Array, msgId: string, entityKey: Uint8Array, seal: SealInput) => Promise<void>;

/** Processing-time scheduling, injected so tests drive time by hand. */
export interface SchedulerClock extends Clock {
  setTimeout(callback: () => void, ms: number): () => void;
}

const MAX_DELAY_MS = 2_147_483_647;
const RETRY_DELAY_MS = 1_000;

/**
 * One partition's timer schedule (ARCHITECTURE §6). Timers fire on processing time: when one is
 * due the owner publishes a `timer` message into the key's own inbox lane with a derived
 * `Nats-Msg-Id`, so the firing is ordered with the key's other elements, fenced like them, and
 * applied once however often it is published (after a takeover, a restart, a retry). The actor
 * ignores a firing whose timer is no longer in its state.
 */
export class TimerScheduler {
  private readonly logger: Logger;
  private readonly table = new Map<string, { owner: TimerOwner; timers: readonly TimerDoc[] }>();
  private readonly heap = new TimerHeap();
  private cancel: (() => void) | undefined;
  private armedFor: number | undefined;
  private stopped = false;

  constructor(
    private readonly partition: number,
    private readonly topology: Topology,
    private readonly clock: SchedulerClock,
    private readonly publish: TimerPublisher,
  ) {
    this.logger = new Logger(`Timers p${partition}`);
  }

  /** Replaces a key's timers (after its commit, or when the index is rebuilt). */
  update(owner: TimerOwner, timers: readonly TimerDoc[]): void {
    if (this.stopped) return;
    if (timers.length === 0) {
      this.table.delete(owner.stateKey);
      return;
    }
    this.table.set(owner.stateKey, { owner, timers });
    for (const t of timers) this.heap.push({ fireAtMs: t.dueAtMs, dueAtMs: t.dueAtMs, stateKey: owner.stateKey, timerId: t.timerId });
    this.arm();
  }

  /** Keys with scheduled timers. */
  get keys(): number {
    return this.table.size;
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.cancel = undefined;
  }

  private arm(): void {
    const next = this.heap.peek();
    if (next === undefined || this.stopped) return;
    if (this.armedFor !== undefined && this.armedFor <= next.fireAtMs) return;
    this.cancel?.();
    this.armedFor = next.fireAtMs;
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, next.fireAtMs - this.clock.nowMs()));
    this.cancel = this.clock.setTimeout(() => {
      this.armedFor = undefined;
      this.cancel = undefined;
      void this.fireDue();
    }, delay);
  }

  private async fireDue(): Promise<void> {
    const now = this.clock.nowMs();
    const due: { owner: TimerOwner; timer: TimerDoc }[] = [];
    for (let top = this.heap.peek(); top !== undefined && top.fireAtMs <= now; top = this.heap.peek()) {
      this.heap.pop();
      const entry = this.table.get(top.stateKey);
      const timer = entry?.timers.find((t) => t.timerId === top.timerId && t.dueAtMs === top.dueAtMs);
      if (entry !== undefined && timer !== undefined) due.push({ owner: entry.owner, timer });
    }
    await Promise.all(
      due.map(async ({ owner, timer }) => {
        let subject: string;
        try {
          subject = this.topology.inbox(this.partition, owner.agent, encodeKeyToken(owner.entityKey), InboxKind.Timer);
        } catch (error) {
          // An index entry that does not belong to this partition (or this deployment) can never fire here.
          this.logger.error(`dropping timer ${timer.timerId} of ${owner.stateKey}: ${(error as Error).message}`);
          return;
        }
        const payload = { kind: 'timer', timer: { timerId: timer.timerId, kind: timer.kind, dueAtMs: timer.dueAtMs } } as const;
        const envelope = encodeInboxEnvelope({
          entityKey: owner.entityKey,
          // The activation clock of a timer route is its due time, so a replay decides identically.
          eventTimeMs: timer.dueAtMs,
          payload,
        });
        const seal: SealInput = { kind: 'timer', agent: owner.agent, entityKey: owner.entityKey, payload: sealedPayloadBytes(payload)?.payload ?? envelope };
        try {
          await this.publish(subject, envelope, timerMessageId(owner.agent, owner.entityKey, timer.timerId, timer.dueAtMs), owner.entityKey, seal);
        } catch (error) {
          this.logger.warn(`timer ${timer.timerId} of ${owner.stateKey} not published yet: ${(error as Error).message}`);
          this.heap.push({ fireAtMs: this.clock.nowMs() + RETRY_DELAY_MS, dueAtMs: timer.dueAtMs, stateKey: owner.stateKey, timerId: timer.timerId });
        }
      }),
    );
    this.arm();
  }
}
