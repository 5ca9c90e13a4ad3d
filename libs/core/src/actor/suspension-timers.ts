import { TimerKind, type ContinuationDoc, type TimerDoc } from './actor-document.js';
import type { ApplyDeps } from './apply-result.js';

/** The deadline timer's id for a continuation (escalations re-arm under a new id, so a stale firing finds nothing). */
export function deadlineTimerId(continuation: ContinuationDoc): string {
  return `deadline-${continuation.seq}-${continuation.escalations}`;
}

/** `timers` without the suspension deadline (the suspension ended or is being replaced). */
export const withoutDeadline = (timers: readonly TimerDoc[]): TimerDoc[] => timers.filter((t) => t.kind !== TimerKind.Deadline);

/** The id of the idle-TTL timer (one per key; it moves later with every applied element). */
const IDLE_TTL_TIMER_ID = 'idle-ttl';

/**
 * `timers` with the idle-TTL timer set to `fromMs + idleTtlMs` (unchanged when the agent has no
 * TTL). Pure: a retried or replayed element computes the same due time from its event time.
 */
export function withIdleTtl(timers: readonly TimerDoc[], fromMs: number, deps: Pick<ApplyDeps, 'agent'>): TimerDoc[] {
  const ttl = deps.agent.memory?.idleTtlMs;
  const others = timers.filter((t) => t.kind !== TimerKind.IdleTtl);
  if (ttl === undefined || ttl <= 0) return others;
  return [...others, { timerId: IDLE_TTL_TIMER_ID, kind: TimerKind.IdleTtl, dueAtMs: fromMs + ttl }];
}
