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
 *
 * An index entry is a lower bound, not a copy (decision 0068): a key's timers are covered when
 * each is due no earlier than some indexed timer of the key. A covering entry fires first, the
 * actor finds no such timer in its state (a noop) and the index is reconciled to the state's
 * timers exactly, so the later timers still fire. This is what keeps a key that suspends again and
 * again (one tool call per event) at about one index write, instead of a write and a delete per
 * round trip.
 */
export interface TimerIndex {
  /** Before the commit: make sure every timer of `timers` is covered (idempotent). */
  beforeCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void>;
  /**
   * After the commit: drop entries of removed timers and schedule new ones. An entry that is due
   * no later than a timer may stay as it is (it fires early, the actor ignores the firing and
   * the runtime reconciles), which is what lets a timer move later on every commit for free. An
   * implementation may drop the entries of a key left without timers later than the commit (a
   * crash before then leaves a stale entry, which fires and is reconciled like any other).
   */
  afterCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void>;
  /** Makes the index and schedule equal `timers` exactly (after a firing the actor ignored). */
  reconcile(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void>;
}

/**
 * True when every timer of `next` is due no earlier than some timer of `indexed` that is still to
 * come (due after `nowMs`), whatever its id or kind: the index then needs no write, because that
 * earlier entry fires first and its firing (a noop for the actor) reconciles the index to the
 * state's timers. An indexed timer already due covers nothing: its firing may have been handled
 * before this commit, and nothing would reconcile after it.
 */
export function indexCovers(indexed: readonly TimerDoc[], next: readonly TimerDoc[], nowMs: number): boolean {
  if (next.length === 0) return true;
  let earliest = Number.POSITIVE_INFINITY;
  for (const t of indexed) if (t.dueAtMs > nowMs && t.dueAtMs < earliest) earliest = t.dueAtMs;
  return next.every((t) => earliest <= t.dueAtMs);
}

/** True when two timer lists hold the same timers (order-insensitive). */
export function sameTimers(a: readonly TimerDoc[], b: readonly TimerDoc[]): boolean {
  if (a.length !== b.length) return false;
  const key = (t: TimerDoc): string => `${t.timerId}|${t.kind}|${t.dueAtMs}`;
  const left = new Set(a.map(key));
  return b.every((t) => left.has(key(t)));
}
