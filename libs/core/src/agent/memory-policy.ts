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
}
