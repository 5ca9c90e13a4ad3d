/**
 * When each key of a per-key load run sends its first event. With every key starting in the same
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
