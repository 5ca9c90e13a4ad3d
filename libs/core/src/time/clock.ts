/**
 * Processing-time sources, injected so the core never reads the wall clock itself. Decisions
 * inside an activation use the element's event time instead; these serve timeouts, durations
 * for metrics and timer scheduling.
 */
export interface Clock {
  /** Wall-clock epoch milliseconds (timers fire on processing time). */
  nowMs(): number;
  /** Monotonic milliseconds for durations and lease deadlines; never a decision input in an activation. */
  monotonicMs(): number;
}

/** Cancels a scheduled callback; idempotent. */
export type Cancel = () => void;

/** Schedules callbacks on processing time (an injected `setTimeout`). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): Cancel;
}
