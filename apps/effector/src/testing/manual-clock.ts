/**
 * A scripted clock for the effector's specs: wall time, monotonic time and `setTimeout` all run on
 * one manual clock that moves only when a spec advances it (or `settle` fires the next timer), so
 * leases, backoffs and tool timeouts take no real time. Reads no wall clock; no side effects on
 * import. (An effector-side twin of core's ManualTimers, which core does not export.)
 */
import type { Cancel, Clock, Timers } from '#core';

interface Scheduled {
  readonly id: number;
  readonly dueMs: number;
  readonly callback: () => void;
}

/** Lets every queued promise reaction run (one macrotask turn; no time passes). */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** {@link Clock} and {@link Timers} on one manual clock (wall and monotonic time are the same number). */
export class ManualClock implements Clock, Timers {
  private now: number;
  private nextId = 0;
  private readonly scheduled = new Map<number, Scheduled>();
  /** Every delay requested through `setTimeout`, in order. */
  readonly requestedDelays: number[] = [];

  constructor(startMs: number) {
    this.now = startMs;
  }

  nowMs(): number {
    return this.now;
  }

  monotonicMs(): number {
    return this.now;
  }

  setTimeout(callback: () => void, ms: number): Cancel {
    const id = this.nextId++;
    this.requestedDelays.push(ms);
    this.scheduled.set(id, { id, dueMs: this.now + Math.max(0, ms), callback });
    return () => {
      this.scheduled.delete(id);
    };
  }

  /** Moves the clock by `ms`, firing (synchronously, in due order) every timer that comes due. */
  advance(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.dueMs > target) break;
      this.scheduled.delete(next.id);
      this.now = Math.max(this.now, next.dueMs);
      next.callback();
    }
    this.now = target;
  }

  /**
   * Drives `promise` to completion: flushes reactions, and fires the next timer whenever it is
   * still pending. Rejects when it waits on something no timer brings, or after `maxTimers`.
   */
  async settle<T>(promise: Promise<T>, maxTimers = 1_000): Promise<T> {
    let done = false;
    promise.then(
      () => (done = true),
      () => (done = true),
    );
    await flushMicrotasks();
    for (let fired = 0; !done; fired += 1) {
      if (fired >= maxTimers) throw new Error(`ManualClock.settle: still pending after ${maxTimers} timers`);
      const next = this.earliest();
      if (next === undefined) throw new Error('ManualClock.settle: the promise is pending and no timer is scheduled');
      this.scheduled.delete(next.id);
      this.now = Math.max(this.now, next.dueMs);
      next.callback();
      await flushMicrotasks();
    }
    return promise;
  }

  private earliest(): Scheduled | undefined {
    let next: Scheduled | undefined;
    for (const entry of this.scheduled.values()) {
      if (next === undefined || entry.dueMs < next.dueMs || (entry.dueMs === next.dueMs && entry.id < next.id)) next = entry;
    }
    return next;
  }
}
