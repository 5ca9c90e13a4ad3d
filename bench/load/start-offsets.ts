/**
 * When each key of a per-key load run sends its events. With every key starting in the same
 * millisecond and a fixed model latency, the keys stay in step: every cycle offers all of them at
 * once, and the latency measured is mostly each event's wait behind the others of its burst
 * (docs/decisions/0080-per-key-loads-start-spread.md). Spread over one cycle, the keys' events
 * arrive as independent keys' would.
 */

/**
 * The delay before key `i`'s first event: `i × spreadMs ÷ keyCount`, so the keys start evenly
 * through `spreadMs` (key 0 at once). A spread of 0 starts every key at once.
 *
 * @throws {RangeError} when `keyCount` is not a positive integer or `spreadMs` is negative or not finite.
 */
export function startOffsetsMs(keyCount: number, spreadMs: number): readonly number[] {
  if (!Number.isInteger(keyCount) || keyCount <= 0) throw new RangeError(`keyCount must be a positive integer, got ${keyCount}`);
  if (!Number.isFinite(spreadMs) || spreadMs < 0) throw new RangeError(`spreadMs must be a non-negative number, got ${spreadMs}`);
  return Array.from({ length: keyCount }, (_, i) => (i * spreadMs) / keyCount);
}

/**
 * How long key-loop event `seq` waits after its predecessor's output arrived, `elapsedMs` after
 * the run began, when the loop is paced: event `seq` of the key whose first went at `offsetMs` is
 * due at `offsetMs + seq × paceMs`, and goes at once when that is past (one event in flight per key
 * stays the rule). A start spread alone does not last: one pause in any process delays the
 * outputs of every key waiting at that moment, they arrive together, and in a closed loop those
 * keys then stay in step, so the run drifts back into bursts (decision 0082). Due times keep each
 * key on its own slot; a key a pause made late sends at once until it is back on it. A pace of 0
 * is the closed loop (send on the output).
 *
 * @throws {RangeError} when `paceMs` is negative or not finite.
 */
export function pacedDelayMs(offsetMs: number, seq: number, paceMs: number, elapsedMs: number): number {
  if (!Number.isFinite(paceMs) || paceMs < 0) throw new RangeError(`paceMs must be a non-negative number, got ${paceMs}`);
  if (paceMs === 0) return 0;
  return Math.max(0, offsetMs + seq * paceMs - elapsedMs);
}

/**
 * The pace of `model-low-concurrency`'s keys, in model latencies: each key's next event is due
 * 1.5 model latencies after its previous one was (75 ms at the default 50 ms), so a key whose
 * activation took up to half a model latency more than the model call waits for its slot, and
 * one a pause delayed catches up within a few cycles (decision 0082).
 */
export const MODEL_LOW_PACE = 1.5;
