import type { CompactableMemory, Compactor } from './compactor.js';

/** The size the default compactor shrinks working memory to: half the 1 MiB hard cap. */
export const DEFAULT_COMPACTION_TARGET_BYTES = 524_288;

/**
 * Key prefix protected from eviction by default: keys starting with `__` (runtime and framework
 * bookkeeping, or anything an agent marks as never to be dropped).
 */
export const DEFAULT_PROTECTED_PREFIXES: readonly string[] = ['__'];

/** Options of {@link DropOldestCompactor}. */
export interface DropOldestOptions {
  readonly targetBytes?: number;
  readonly protectedPrefixes?: readonly string[];
}

/**
 * The default compactor: deletes least recently used entries until the size is at most the target,
 * never a protected one. When only protected entries remain it stops quietly, and the write that
 * needed the room fails with `MemoryOverflow`. Deterministic: the order is the committed LRU order
 * plus this activation's accesses, so a replay evicts the same keys.
 */
export class DropOldestCompactor implements Compactor {
  readonly targetBytes: number;
  readonly protectedPrefixes: readonly string[];

  constructor(options: DropOldestOptions = {}) {
    this.targetBytes = options.targetBytes ?? DEFAULT_COMPACTION_TARGET_BYTES;
    this.protectedPrefixes = options.protectedPrefixes ?? DEFAULT_PROTECTED_PREFIXES;
    if (!Number.isInteger(this.targetBytes) || this.targetBytes <= 0) throw new RangeError(`targetBytes must be a positive integer, got ${this.targetBytes}`);
  }

  compact(memory: CompactableMemory): void {
    for (const key of memory.keys()) {
      if (memory.sizeBytes <= this.targetBytes) return;
      if (this.protectedPrefixes.some((prefix) => key.startsWith(prefix))) continue;
      memory.delete(key);
    }
  }
}
