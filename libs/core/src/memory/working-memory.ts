/**
 * One key's working memory for the length of one activation: a staging area over the committed
 * `MemoryBlobDoc` (invariant 1). Nothing here performs I/O or reads a clock; the activation's
 * frozen `nowMs` stamps every access, so a retry over the same committed blob stages the same
 * bytes. Sizes are accounted exactly and incrementally; the hard cap is enforced before a write
 * is staged, never after. A configured compactor runs before a write would be refused and once
 * when the soft cap is first crossed; what it deletes is staged like any write.
 */
import type { MemoryBlobDoc, MemoryEntryDoc } from '../actor/actor-document.js';
import type { AppendOptions, WorkingMemoryApi } from '../agent/working-memory-api.js';
import { canonicalJson, type JsonValue } from '../json/canonical-json.js';
import type { LongTermApi } from '../longterm/long-term-api.js';
import { LongTermNotConfigured } from '../longterm/long-term-not-configured.js';
import type { Compactor } from './compactor.js';
import { MemoryKindError } from './memory-kind-error.js';
import { DEFAULT_RING_MAX_ITEMS, MEMORY_HARD_CAP_BYTES } from './memory-limits.js';
import { MemoryOverflow } from './memory-overflow.js';
import { decodeMemoryValue, encodeRing, encodeScalar } from './memory-value.js';

/** How a {@link WorkingMemory} is built for one activation. */
export interface WorkingMemoryOptions {
  /** The activation clock (event time, epoch ms). Stamps every access; never the wall clock. */
  readonly nowMs: number;
  /** Hard cap in bytes. Default `MEMORY_HARD_CAP_BYTES` (1 MiB). */
  readonly hardCapBytes?: number;
  /** Soft cap in bytes, at most the hard cap. Default 75 % of the hard cap (`MEMORY_SOFT_CAP_BYTES` for the default cap). */
  readonly softCapBytes?: number;
  /**
   * Called synchronously, at most once per instance, by the first write that leaves the size at
   * or above the soft cap; the write is already staged when it runs. Called again by a retried
   * activation that makes the same write, so count it as "attempted", not "committed".
   */
  readonly onSoftCap?: () => void;
  /**
   * Frees room before a write would cross the hard cap, and once when the soft cap is first
   * crossed. Absent: the strict contract (an over-cap write throws `MemoryOverflow`).
   */
  readonly compactor?: Compactor;
  /** The activation's long-term view (absent: the tier is not configured). */
  readonly longterm?: LongTermApi;
}

interface Slot {
  /** The encoded value: kind tag then payload (see memory-value.ts). Never mutated in place. */
  readonly value: Uint8Array;
  readonly lastAccessMs: number;
  /** UTF-8 key bytes + encoded value bytes. */
  readonly sizeBytes: number;
}

const utf8Encoder = new TextEncoder();
// ignoreBOM keeps a leading U+FEFF, so text round-trips byte for byte.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });
// With the `u` flag a surrogate pair is one code point, so this matches only lone surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The staged working memory of one key inside one activation, implementing
 * {@link WorkingMemoryApi}. Build it with {@link WorkingMemory.fromBlob} from the committed blob,
 * let the agent read and write it, then persist {@link WorkingMemory.toBlob} with the commit.
 *
 * Everything is staged: a failed, timed-out or retried activation discards the instance and the
 * committed blob is untouched; the retry builds a fresh instance from the same blob and, given the
 * same `nowMs` and the same calls, produces byte-identical output.
 *
 * Recency: `get`, `getText`, `getJson`, `ring` and `ringText` hits and every write stamp the entry
 * with `nowMs` and make it most recently used (and set `dirty`). `keys`, `has`, `sizeBytes` and
 * `entrySizeBytes` never do. A miss changes nothing.
 *
 * Caps: a write whose resulting size would exceed the hard cap throws {@link MemoryOverflow} and
 * stages nothing. The first write reaching the soft cap calls `onSoftCap` once; it still succeeds.
 *
 * @example
 * const memory = WorkingMemory.fromBlob(doc.memory, { nowMs: ctx.eventTimeMs });
 * memory.append('history', 'user: hello', { maxItems: 16 });
 * memory.setJson('profile', { name: 'Ada' });
 * const next = memory.dirty ? memory.toBlob() : doc.memory;
 */
export class WorkingMemory implements WorkingMemoryApi {
  private readonly slots: Map<string, Slot>;
  private total: number;
  private readonly nowMs: number;
  private readonly hardCapBytes: number;
  private readonly softCapBytes: number;
  private readonly onSoftCap: (() => void) | undefined;
  private readonly compactor: Compactor | undefined;
  private readonly longtermView: LongTermApi | undefined;
  private isDirty = false;
  private softCapReached = false;
  private compacting = false;

  private constructor(slots: Map<string, Slot>, total: number, options: WorkingMemoryOptions) {
    this.slots = slots;
    this.total = total;
    this.nowMs = options.nowMs;
    this.hardCapBytes = options.hardCapBytes ?? MEMORY_HARD_CAP_BYTES;
    this.softCapBytes = options.softCapBytes ?? Math.floor((this.hardCapBytes * 3) / 4);
    this.onSoftCap = options.onSoftCap;
    this.compactor = options.compactor;
    this.longtermView = options.longterm;
  }

  /**
   * Stages working memory over a committed blob (`undefined` for a key with none). Pure: reads
   * nothing but its arguments and never mutates `blob`, whose byte arrays it shares.
   *
   * The stored `totalBytes` is not trusted: the size is recomputed from the entries. Entries are
   * not decoded here, so a corrupt value fails only the operation that reads it. If the blob
   * repeats a key (no binary of ours writes that), the later entry wins, as protobuf does for map
   * fields. Throws a TypeError or RangeError for invalid options.
   */
  static fromBlob(blob: MemoryBlobDoc | undefined, options: WorkingMemoryOptions): WorkingMemory {
    if (!Number.isSafeInteger(options.nowMs)) throw new TypeError(`nowMs must be a safe integer, got ${String(options.nowMs)}`);
    if (options.hardCapBytes !== undefined) requirePositiveInteger('hardCapBytes', options.hardCapBytes);
    if (options.softCapBytes !== undefined) requirePositiveInteger('softCapBytes', options.softCapBytes);
    const hardCap = options.hardCapBytes ?? MEMORY_HARD_CAP_BYTES;
    if (options.softCapBytes !== undefined && options.softCapBytes > hardCap) {
      throw new RangeError(`softCapBytes (${options.softCapBytes}) must not exceed hardCapBytes (${hardCap})`);
    }
    const slots = new Map<string, Slot>();
    let total = 0;
    for (const entry of blob?.entries ?? []) {
      const previous = slots.get(entry.key);
      if (previous !== undefined) {
        total -= previous.sizeBytes;
        slots.delete(entry.key);
      }
      const sizeBytes = utf8Length(entry.key) + entry.value.length;
      slots.set(entry.key, { value: entry.value, lastAccessMs: entry.lastAccessMs, sizeBytes });
      total += sizeBytes;
    }
    return new WorkingMemory(slots, total, options);
  }

  /** True once anything was staged: a write, a delete of a present key, or a recency-updating read hit. */
  get dirty(): boolean {
    return this.isDirty;
  }

  /** The long-term tier; throws {@link LongTermNotConfigured} when the deployment has none. */
  get longterm(): LongTermApi {
    if (this.longtermView === undefined) throw new LongTermNotConfigured();
    return this.longtermView;
  }

  /** True once a write in this instance left the size at or above the soft cap (whether or not `onSoftCap` was given). */
  get softCapCrossed(): boolean {
    return this.softCapReached;
  }

  /** The exact accounted size in bytes (UTF-8 key bytes + encoded value bytes, summed), staged writes included. Does not touch recency. */
  get sizeBytes(): number {
    return this.total;
  }

  /** The accounted size of one entry (UTF-8 key bytes + encoded value bytes), or undefined when absent. Does not touch recency. */
  entrySizeBytes(key: string): number | undefined {
    requireKey(key);
    return this.slots.get(key)?.sizeBytes;
  }

  /** The scalar under `key` (a copy), or undefined. A hit is staged as an access. Throws {@link MemoryKindError} on a ring or corrupt bytes, touching nothing. */
  get(key: string): Uint8Array | undefined {
    requireKey(key);
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    const payload = scalarPayload(key, slot);
    this.touch(key, slot);
    return payload.slice();
  }

  /** The scalar under `key` decoded as UTF-8 (invalid sequences become U+FFFD), or undefined. Same recency and errors as {@link WorkingMemory.get}. */
  getText(key: string): string | undefined {
    requireKey(key);
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    const text = utf8Decoder.decode(scalarPayload(key, slot));
    this.touch(key, slot);
    return text;
  }

  /**
   * The scalar under `key` parsed as JSON, or undefined. The type argument is not checked.
   * Throws a SyntaxError when the scalar is not JSON; a failed parse touches nothing.
   */
  getJson<T = unknown>(key: string): T | undefined {
    requireKey(key);
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    const value = JSON.parse(utf8Decoder.decode(scalarPayload(key, slot))) as T;
    this.touch(key, slot);
    return value;
  }

  /**
   * Stages a scalar (a string is stored as UTF-8, a lone surrogate as U+FFFD; bytes are copied).
   * Overwrites a ring. Throws {@link MemoryOverflow} past the hard cap, staging nothing.
   */
  set(key: string, value: Uint8Array | string): void {
    requireKey(key);
    this.write(key, encodeScalar(toBytes('value', value)));
  }

  /** Stages the canonical JSON of `value` as a scalar, so equal values store equal bytes. Throws `CanonicalJsonError` for non-JSON values, staging nothing. */
  setJson(key: string, value: JsonValue): void {
    requireKey(key);
    this.write(key, encodeScalar(utf8Encoder.encode(canonicalJson(value))));
  }

  /** Stages the removal of `key`. Idempotent: deleting an absent key stages nothing and leaves `dirty` unchanged. */
  delete(key: string): void {
    requireKey(key);
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    this.slots.delete(key);
    this.total -= slot.sizeBytes;
    this.isDirty = true;
  }

  /**
   * Stages `item` at the newest end of the ring under `key` (created when absent), then drops the
   * oldest items beyond `maxItems` (default `DEFAULT_RING_MAX_ITEMS`). Throws a TypeError when
   * `maxItems` is not a positive integer, {@link MemoryKindError} when `key` holds a scalar or
   * corrupt bytes, and {@link MemoryOverflow} past the hard cap; a throw stages nothing.
   */
  append(key: string, item: Uint8Array | string, options?: AppendOptions): void {
    requireKey(key);
    const maxItems = options?.maxItems ?? DEFAULT_RING_MAX_ITEMS;
    requirePositiveInteger('maxItems', maxItems);
    const bytes = toBytes('item', item);
    const slot = this.slots.get(key);
    const items = slot === undefined ? [] : [...ringItems(key, slot, 'append to')];
    items.push(bytes);
    this.write(key, encodeRing(items.length > maxItems ? items.slice(items.length - maxItems) : items));
  }

  /** The ring's items (copies), oldest first; empty when absent. A hit is staged as an access. Throws {@link MemoryKindError} on a scalar or corrupt bytes, touching nothing. */
  ring(key: string): Uint8Array[] {
    requireKey(key);
    const slot = this.slots.get(key);
    if (slot === undefined) return [];
    const items = ringItems(key, slot, 'read as a ring');
    this.touch(key, slot);
    return items.map((item) => item.slice());
  }

  /** The ring's items decoded as UTF-8, oldest first. Same recency and errors as {@link WorkingMemory.ring}. */
  ringText(key: string): string[] {
    requireKey(key);
    const slot = this.slots.get(key);
    if (slot === undefined) return [];
    const items = ringItems(key, slot, 'read as a ring');
    this.touch(key, slot);
    return items.map((item) => utf8Decoder.decode(item));
  }

  /** True when `key` holds a value of any kind. Does not touch recency. */
  has(key: string): boolean {
    requireKey(key);
    return this.slots.has(key);
  }

  /** Keys least recently used first, staged changes included. Does not touch recency. */
  keys(): string[] {
    return [...this.slots.keys()];
  }

  /**
   * The staged memory as a blob to commit: entries least recently used first, `totalBytes` the
   * exact accounted size. Unaccessed entries keep their bytes and stamps, so loading and saving
   * without access yields identical entries. Calling it stages nothing.
   */
  toBlob(): MemoryBlobDoc {
    const entries: MemoryEntryDoc[] = [];
    for (const [key, slot] of this.slots) entries.push({ key, value: slot.value, lastAccessMs: slot.lastAccessMs });
    return { entries, totalBytes: this.total };
  }

  private touch(key: string, slot: Slot): void {
    this.slots.delete(key);
    this.slots.set(key, { ...slot, lastAccessMs: this.nowMs });
    this.isDirty = true;
  }

  private write(key: string, value: Uint8Array): void {
    const sizeBytes = utf8Length(key) + value.length;
    const prospectiveSize = (): number => this.total - (this.slots.get(key)?.sizeBytes ?? 0) + sizeBytes;
    if (prospectiveSize() > this.hardCapBytes) this.compact();
    const prospective = prospectiveSize();
    this.admit(key, prospective);
    this.slots.delete(key);
    this.slots.set(key, { value, lastAccessMs: this.nowMs, sizeBytes });
    this.total = prospective;
    this.isDirty = true;
    this.noteSoftCap();
  }

  /** Refuses a write that would exceed the hard cap, before anything is staged. */
  private admit(key: string, prospective: number): void {
    if (prospective > this.hardCapBytes) throw new MemoryOverflow(key, prospective, this.hardCapBytes);
  }

  private noteSoftCap(): void {
    if (this.softCapReached || this.total < this.softCapBytes) return;
    // Flag first: a throwing callback must still not fire twice.
    this.softCapReached = true;
    this.onSoftCap?.();
    this.compact();
  }

  /**
   * Runs the compactor over a view that only deletes. Re-entrance is impossible (deletes never
   * compact), and a compactor's exception propagates unchanged: the activation fails closed.
   */
  private compact(): void {
    if (this.compactor === undefined || this.compacting) return;
    this.compacting = true;
    try {
      // The compactor sees this memory through `CompactableMemory`: sizes, LRU keys, delete.
      this.compactor.compact(this);
    } finally {
      this.compacting = false;
    }
  }
}

function scalarPayload(key: string, slot: Slot): Uint8Array {
  const value = decodeMemoryValue(key, slot.value);
  if (value.kind !== 'scalar') {
    throw new MemoryKindError(key, `working memory key ${JSON.stringify(key)} holds a ring; read it with ring()`);
  }
  return value.payload;
}

function ringItems(key: string, slot: Slot, operation: string): readonly Uint8Array[] {
  const value = decodeMemoryValue(key, slot.value);
  if (value.kind !== 'ring') {
    throw new MemoryKindError(key, `working memory key ${JSON.stringify(key)} holds a scalar and cannot be ${operation}; set() replaces it`);
  }
  return value.items;
}

function requireKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new TypeError('working memory key must be a non-empty string');
  // A lone surrogate would not survive the protobuf round trip of the key.
  if (LONE_SURROGATE.test(key)) throw new TypeError(`working memory key ${JSON.stringify(key)} is not well-formed Unicode`);
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
}

function toBytes(name: string, value: Uint8Array | string): Uint8Array {
  if (typeof value === 'string') return utf8Encoder.encode(value);
  if (value instanceof Uint8Array) return value;
  throw new TypeError(`${name} must be a Uint8Array or a string`);
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
