/**
 * The order of one phase's runs when both systems are measured: an unmeasured lead-in pair first
 * (decision 0084), then the measured pairs, each runtime then baseline.
 *
 * Why a lead-in: the first run of a phase follows the previous phase (or, for the first phase, a
 * cold start) and the runtime always runs first in a pair, so whatever the phase change leaves
 * behind (JIT tiers still compiling, the previous phase's garbage and writeback) fell on the
 * runtime's run of pair 1 only. With the lead-in, every measured runtime run follows a baseline
 * run of the same phase, as pairs 2 to N always did.
 */

/** One run of a phase's schedule. */
export interface ScheduledPair {
  /** The runs' variant (`r<n>`, or `lead-in`), prefixed as given. */
  readonly variant: string;
  /** False for the lead-in: its runs are made and discarded, never reported. */
  readonly measured: boolean;
}

/**
 * `pairs` measured pairs (`<prefix>r1` … `<prefix>r<pairs>`), after a lead-in pair
 * (`<prefix>lead-in`) when `leadIn` is set.
 *
 * @throws {RangeError} when `pairs` is not a positive integer.
 */
export function pairSchedule(pairs: number, leadIn: boolean, prefix = ''): ScheduledPair[] {
  if (!Number.isInteger(pairs) || pairs < 1) throw new RangeError(`pairs must be a positive integer, got ${pairs}`);
  const schedule: ScheduledPair[] = leadIn ? [{ variant: `${prefix}lead-in`, measured: false }] : [];
  for (let r = 1; r <= pairs; r += 1) schedule.push({ variant: `${prefix}r${r}`, measured: true });
  return schedule;
}
