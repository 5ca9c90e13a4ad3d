/**
 * The bounds of one key's working memory (invariant 1 keeps them per activation: a write that
 * breaks them is refused before it is staged, so a commit never carries an oversized blob).
 * Changing a value changes which writes succeed, never how stored bytes decode.
 */

/** Hard cap on a key's accounted working-memory size: a write that would exceed it throws `MemoryOverflow`. */
export const MEMORY_HARD_CAP_BYTES = 1_048_576;

/** Soft cap (75 % of the hard cap): the first write reaching it is reported once per activation; writes still succeed. */
export const MEMORY_SOFT_CAP_BYTES = 786_432;

/** Ring bound used when `append` is given no `maxItems`: the oldest item is dropped beyond it. */
export const DEFAULT_RING_MAX_ITEMS = 64;
