/**
 * The view of working memory a compactor works on: read sizes, list keys least recently used
 * first, delete. Nothing here touches recency, so compaction never perturbs what it measures.
 */
export interface CompactableMemory {
  readonly sizeBytes: number;
  /** Keys least recently used first. */
  keys(): string[];
  entrySizeBytes(key: string): number | undefined;
  delete(key: string): void;
}

/**
 * Frees working memory when a write would cross the hard cap (and once when the soft cap is
 * crossed). Must be a pure function of the staged entries — no clock, no randomness, no I/O — so a
 * retried or replayed activation evicts exactly the same set. It runs inside the activation: what
 * it deletes is staged and commits (or not) with everything else.
 */
export interface Compactor {
  compact(memory: CompactableMemory): void;
}
