/**
 * A scripted processing-time clock for specs: `setTimeout` callbacks fire only when a test
 * advances the clock, so a 30 s activation timeout or a retry backoff takes no real time. Owns
 * nothing but its schedule; reads no wall clock. Importing it has no side effects. It is the one
 * manual clock of the project: the runtime's, the services' and the test kit's specs all use it.
 */
import type { Cancel, Clock, Timers } from '../time/clock.js';

interface Scheduled {
  readonly id: number;
  readonly dueMs: number;
  readonly callback: () => void;
}

/** Real event-loop turns `settle` waits, with nothing settling, before it fires the next manual timer. */
const IDLE_TURNS = 3;

/** One real turn: real timers due now (`setTimeout(0)`) run, then pending I/O callbacks and immediates. */
function realTurn(): Promise<void> {
  // The one real timer of the test double: waiting out real work is its purpose, no time is read.
  // eslint-disable-next-line no-restricted-globals
  return new Promise((resolve) => setTimeout(() => setImmediate(resolve), 0));
}

/** Lets every queued promise reaction run (one macrotask turn; no time passes). */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `Timers` and `Clock` on one manual clock (wall and monotonic time are the same
 * number, starting at `startMs`). Callbacks due at the same time fire in scheduling order; a
 * callback scheduled for 0 ms still waits for the next advance, as a real `setTimeout(0)` does.
 *
 * @example
 * const timers = new ManualTimers();
 * const outcome = await timers.settle(runtime.process(element, scope)); // fires timers as needed
 */
export class ManualTimers implements Timers, Clock {
  private now: number;
  private nextId = 0;
  private readonly scheduled = new Map<number, Scheduled>();
  /** Every delay ever requested, in order (retry backoffs, activation timeouts). */
  readonly requestedDelays: number[] = [];

  constructor(startMs = 0) {
    this.now = startMs;
  }

  setTimeout(callback: () => void, ms: number): Cancel {
    const id = this.nextId++;
    this.requestedDelays.push(ms);
    this.scheduled.set(id, { id, dueMs: this.now + Math.max(0, ms), callback });
    return () => {
      this.scheduled.delete(id);
    };
  }

  /** The manual clock in ms, as monotonic time. */
  readonly monotonicMs = (): number => this.now;

  /** The manual clock in ms, as wall time (the same number as `monotonicMs`). */
  readonly nowMs = (): number => this.now;

  /**
   * Moves the clock by `ms` without firing anything: what a synchronous handler that blocks the
   * event loop does to the real clock (timers come due but cannot run until it returns).
   */
  stall(ms: number): void {
    this.now += ms;
  }

  /** Timers scheduled and neither fired nor cancelled. */
  get pending(): number {
    return this.scheduled.size;
  }

  /** Fires the earliest scheduled timer (moving the clock to its due time); false when none is scheduled. */
  fireNext(): boolean {
    let next: Scheduled | undefined;
    for (const entry of this.scheduled.values()) {
      if (next === undefined || entry.dueMs < next.dueMs || (entry.dueMs === next.dueMs && entry.id < next.id)) next = entry;
    }
    if (next === undefined) return false;
    this.scheduled.delete(next.id);
    this.now = Math.max(this.now, next.dueMs);
    next.callback();
    return true;
  }

  /**
   * Moves the clock by `ms`, firing every timer that comes due synchronously, in due order, with
   * no promise reaction run in between (use {@link advanceBy} to let reactions run).
   */
  advance(ms: number): void {
    const target = this.now + ms;
    while ([...this.scheduled.values()].some((entry) => entry.dueMs <= target)) this.fireNext();
    this.now = target;
  }

  /** Moves the clock by `ms`, firing every timer that comes due, in order, with reactions flushed between them. */
  async advanceBy(ms: number): Promise<void> {
    const target = this.now + ms;
    await flushMicrotasks();
    for (;;) {
      const due = [...this.scheduled.values()].some((entry) => entry.dueMs <= target);
      if (!due) break;
      this.fireNext();
      await flushMicrotasks();
    }
    this.now = target;
  }

  /**
   * Drives `promise` to completion: flushes reactions, then fires the next timer whenever the
   * promise is still pending. Rejects when the promise waits on something no timer will bring
   * (a deadlock in the test) or after `maxTimers` firings.
   */
  async settle<T>(promise: Promise<T>, maxTimers = 1_000): Promise<T> {
    let done = false;
    promise.then(
      () => (done = true),
      () => (done = true),
    );
    await flushMicrotasks();
    for (let fired = 0; !done; fired += 1) {
      // Before moving the manual clock, let work that waits on real timers or I/O (a library the
      // agent uses, e.g. LangGraph's scheduler) finish: otherwise the next manual timer — often the
      // activation timeout — fires while the handler is merely between two real turns.
      for (let turn = 0; turn < IDLE_TURNS && !done; turn += 1) await realTurn();
      if (done) break;
      if (fired >= maxTimers) throw new Error(`ManualTimers.settle: still pending after ${maxTimers} timers`);
      if (!this.fireNext()) throw new Error('ManualTimers.settle: the promise is pending and no timer is scheduled');
      await flushMicrotasks();
    }
    return promise;
  }
}
