/**
 * A {@link TimerIndex} for runtime specs: records every hook call in order, with a caller-chosen
 * witness read at call time (e.g. how many writes the state store has landed, to show a hook ran
 * before or after the commit), and keeps per key the timers its last `afterCommit` handed over,
 * which is what the partition's scheduler would hold. A fault hook fails the next N `afterCommit`
 * calls. No clock, no randomness.
 */
import type { TimerDoc } from '../actor/actor-document.js';
import type { TimerIndex, TimerOwner } from '../actor/timer-index.js';
import { RetryableError } from '../errors/runtime-error.js';

/** The injected index failure (a KV outage in the service: retryable). */
export class InjectedIndexFault extends RetryableError {
  override readonly name = 'InjectedIndexFault';
}

/** One hook call. */
export interface TimerIndexCall {
  readonly hook: 'beforeCommit' | 'afterCommit' | 'reconcile';
  readonly owner: TimerOwner;
  readonly timers: readonly TimerDoc[];
  /** The witness read when the hook was called. */
  readonly witness: number;
}

/** Records hook calls; `scheduled(stateKey)` is what a scheduler fed by `afterCommit` would hold. */
export class RecordingTimerIndex implements TimerIndex {
  readonly calls: TimerIndexCall[] = [];
  private readonly table = new Map<string, readonly TimerDoc[]>();
  private afterFailuresLeft = 0;

  /** @param witness read at every call and stored with it (default: always 0) */
  constructor(private readonly witness: () => number = () => 0) {}

  /** Makes the next `times` calls of `afterCommit` reject without recording anything. */
  failNextAfterCommit(times = 1): this {
    this.afterFailuresLeft += times;
    return this;
  }

  async beforeCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    this.calls.push({ hook: 'beforeCommit', owner, timers: [...timers], witness: this.witness() });
  }

  async afterCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    if (this.afterFailuresLeft > 0) {
      this.afterFailuresLeft -= 1;
      throw new InjectedIndexFault(`injected timer index failure for ${owner.stateKey}`);
    }
    this.calls.push({ hook: 'afterCommit', owner, timers: [...timers], witness: this.witness() });
    if (timers.length === 0) this.table.delete(owner.stateKey);
    else this.table.set(owner.stateKey, [...timers]);
  }

  async reconcile(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    this.calls.push({ hook: 'reconcile', owner, timers: [...timers], witness: this.witness() });
    if (timers.length === 0) this.table.delete(owner.stateKey);
    else this.table.set(owner.stateKey, [...timers]);
  }

  /** The timers the last `afterCommit` of `stateKey` left scheduled (undefined: none). */
  scheduled(stateKey: string): readonly TimerDoc[] | undefined {
    return this.table.get(stateKey);
  }

  /** The calls of one hook, in order. */
  of(hook: TimerIndexCall['hook']): TimerIndexCall[] {
    return this.calls.filter((call) => call.hook === hook);
  }
}
