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
  /**
   * After the commit: drop entries of removed timers and schedule new ones. An entry that is due
   * no later than its timer may stay as it is (it fires early, the actor ignores the firing and
   * the runtime reconciles), which is what lets a timer move later on every commit for free.
   */
  afterCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void>;
  /** Makes the index and schedule equal `timers` exactly (after a firing the actor ignored). */
  reconcile(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void>;
}

/**
 * True when every timer of `next` has an indexed entry with the same id due no later than it: the
 * index then needs no write (an early firing is harmless).
 */
export function indexCovers(indexed: readonly TimerDoc[], next: readonly TimerDoc[]): boolean {
  return next.every((t) => indexed.some((i) => i.timerId === t.timerId && i.kind === t.kind && i.dueAtMs <= t.dueAtMs));
}

/** True when two timer lists hold the same timers (order-insensitive). */
export function sameTimers(a: readonly TimerDoc[], b: readonly TimerDoc[]): boolean {
  if (a.length !== b.length) return false;
  const key = (t: TimerDoc): string => `${t.timerId}|${t.kind}|${t.dueAtMs}`;
  const left = new Set(a.map(key));
  return b.every((t) => left.has(key(t)));
}
