import type { Compactor } from '../memory/compactor.js';
import type { SummarizeOptions } from '../memory/summarize-compaction.js';

/** How an agent's working memory is kept within its caps. */
export interface MemoryPolicy {
  /**
   * Runs when a write would cross the 1 MiB hard cap (and once at the 75 % soft cap). Default: a
   * `DropOldestCompactor` (least recently used entries go first, down to 512 KiB, `__`-prefixed keys
   * never). `null`: the strict contract — an over-cap write throws `MemoryOverflow`.
   */
  readonly compactor?: Compactor | null;
  /** Opt-in model-driven folding of old ring items into a summary entry (see `SummarizeOptions`). */
  readonly summarize?: SummarizeOptions;
  /**
   * Reclaims the key after it has been idle this long: working memory, replay cache, a live
   * suspension (reported as `ttl_wiped_suspension`) and waiting events go; seq and the dedup mark
   * stay, so derived ids never repeat. Counted from the last applied element's event time (or the
   * suspension deadline, whichever is later); fires on processing time. Absent: never.
   */
  readonly idleTtlMs?: number;
  /**
   * `flush-to-longterm`: before the wipe, upsert the committed working memory into the long-term
   * tier under `working_memory` (seq-guarded). Fail-closed: if the flush fails the key stays intact
   * and the expiry is retried. Requires the long-term tier.
   */
  readonly onExpire?: 'flush-to-longterm';
}

/** The long-term key `onExpire: 'flush-to-longterm'` stores working memory under. */
export const EXPIRED_MEMORY_KEY = 'working_memory';
