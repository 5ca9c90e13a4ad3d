import type { SchedulerClock } from './timer-scheduler.js';

/** The activator's processing-time clock: the wall clock and `setTimeout` (tests inject their own). */
export const systemClock: SchedulerClock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};
