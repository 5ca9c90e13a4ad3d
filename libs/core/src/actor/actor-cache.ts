import { SlotMap } from '../collections/slot-map.js';
import type { ActorDocument } from './actor-document.js';

/** A key's committed document as this process last wrote or read it. */
export interface CachedActor {
  readonly doc: ActorDocument;
  readonly revision: number;
  /** Size of the document's encoding (what the store holds): the entry's weight against the byte bound. */
  readonly bytes: number;
  /**
   * This process published `doc.outbox` (a duplicate need not republish it). Set in place once the
   * publish was acknowledged: the entry is only ever touched by its key's serialized elements.
   */
  published: boolean;
}

/** How much the cache may hold: both bounds apply, the least recently used entry goes first. */
export interface ActorCacheLimits {
  /** Entries (documents) at most; 0 caches nothing. */
  readonly entries: number;
  /**
   * Encoded document bytes at most (the sum of {@link CachedActor.bytes}); 0 caches nothing. A
   * decoded document takes a small multiple of its encoding in the heap (docs/performance.md
   * measures it), so this bounds memory where a count alone cannot: a few keys with large working
   * memory weigh as much as many small ones.
   */
  readonly bytes: number;
}

/**
 * The hot set of committed documents, least recently used evicted first, so a key that is
 * active again needs no KV read (flat cost in the number of keys: idle keys cost no memory).
 * Bounded in entries and in encoded bytes. A cached entry is only a read shortcut: every commit
 * is still a CAS on its revision, so a stale entry can cost a conflict, never a lost update; an
 * eviction only costs the next element of that key one KV read. Nothing here survives a crash or
 * a partition hand-over (the store is the truth; a redelivery re-reads).
 */
export class ActorCache {
  /** In slots: a `get` moves its key to the end, so the map's table churns (see {@link SlotMap}). */
  private readonly entries = new SlotMap<string, CachedActor>();
  private heldBytes = 0;

  constructor(private readonly limits: ActorCacheLimits) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`actor cache ${name} bound must be a non-negative integer, got ${value}`);
    }
  }

  get(stateKey: string): CachedActor | undefined {
    return this.entries.touch(stateKey);
  }

  set(stateKey: string, entry: CachedActor): void {
    this.evict(stateKey);
    // An entry heavier than the whole byte bound would evict everything and then itself.
    if (this.limits.entries === 0 || entry.bytes > this.limits.bytes) return;
    this.entries.set(stateKey, entry);
    this.heldBytes += entry.bytes;
    while (this.entries.size > this.limits.entries || this.heldBytes > this.limits.bytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.evict(oldest.value);
    }
  }

  evict(stateKey: string): void {
    const entry = this.entries.get(stateKey);
    if (entry === undefined) return;
    this.entries.delete(stateKey);
    this.heldBytes -= entry.bytes;
  }

  /** Drops every entry whose key matches `predicate` (a partition or agent moving away). */
  evictWhere(predicate: (stateKey: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (predicate(key)) this.evict(key);
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Encoded bytes held (the sum of the entries' weights). */
  get bytes(): number {
    return this.heldBytes;
  }
}
