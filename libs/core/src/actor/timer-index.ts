import type { TimerDoc } from './actor-document.js';

/** Which key a timer index entry belongs to. */
export interface TimerOwner {
  readonly stateKey: string;
  readonly agent: string;
  readonly entityKey: Uint8Array;
}

/**
 * The partition's index of keys with timers (ARCHITECTURE §6), kept in step with commits. The
 * order of the two calls makes a crash safe in the only direction that matters: an index entry
 * is written *before* the commit that adds a timer, so no committed timer is ever missing from the
 * index (a stale entry merely fires a timer message the actor ignores), and entries of timers a
 * commit removed are dropped only *after* it.
 */
export interface TimerIndex {
  /** Before the commit: index every timer of `timers` (idempotent). */
  beforeCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void>;
  /** After the commit (or on finding the state differs from the index): make the index equal `timers`. */
  afterCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void>;
}

/** True when two timer lists hold the same timers (order-insensitive). */
export function sameTimers(a: readonly TimerDoc[], b: readonly TimerDoc[]): boolean {
  if (a.length !== b.length) return false;
  const key = (t: TimerDoc): string => `${t.timerId}|${t.kind}|${t.dueAtMs}`;
  const left = new Set(a.map(key));
  return b.every((t) => left.has(key(t)));
}
