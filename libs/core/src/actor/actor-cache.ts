import type { ActorDocument } from './actor-document.js';

/** A key's committed document as this process last wrote or read it. */
export interface CachedActor {
  readonly doc: ActorDocument;
  readonly revision: number;
  /**
   * This process published `doc.outbox` (a duplicate need not republish it). Set in place once the
   * publish was acknowledged: the entry is only ever touched by its key's serialized elements.
   */
  published: boolean;
}

/**
 * The hot set of committed documents, least recently used evicted first, so a key that is
 * active again needs no KV read (flat cost in the number of keys: idle keys cost no memory).
 * A cached entry is only a read shortcut: every commit is still a CAS on its revision, so a
 * stale entry can cost a conflict, never a lost update.
 */
export class ActorCache {
  private readonly entries = new Map<string, CachedActor>();
  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`actor cache capacity must be a non-negative integer, got ${capacity}`);
  }

  get(stateKey: string): CachedActor | undefined {
    const entry = this.entries.get(stateKey);
    if (entry !== undefined) {
      this.entries.delete(stateKey);
      this.entries.set(stateKey, entry);
    }
    return entry;
  }

  set(stateKey: string, entry: CachedActor): void {
    this.entries.delete(stateKey);
    if (this.capacity === 0) return;
    this.entries.set(stateKey, entry);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  evict(stateKey: string): void {
    this.entries.delete(stateKey);
  }

  /** Drops every entry whose key starts with `prefix` (a partition or agent moving away). */
  evictWhere(predicate: (stateKey: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (predicate(key)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
