import type { JsonValue } from '../json/canonical-json.js';
import type { LongTermApi } from '../longterm/long-term-api.js';

/** Options of a ring append. */
export interface AppendOptions {
  /** Ring bound; the oldest item is dropped beyond it. Default 64. */
  readonly maxItems?: number;
}

/**
 * The key's working memory as an agent sees it: scalars and bounded rings of bytes, staged in
 * the activation and committed atomically with it (invariant 1). Reads see this activation's own
 * staged writes. A failed or timed-out activation leaves memory exactly as it was.
 *
 * Sizes are exact: key UTF-8 bytes + one kind-tag byte + value bytes (+ 4 length bytes per ring
 * item). Crossing 75 % of the 1 MiB cap counts a soft-cap warning; a write that would cross the
 * cap throws `MemoryOverflow` and leaves memory unchanged.
 */
export interface WorkingMemoryApi {
  /** The scalar under `key`, or undefined. Throws `MemoryKindError` on a ring. */
  get(key: string): Uint8Array | undefined;
  /** The scalar under `key` decoded as UTF-8. */
  getText(key: string): string | undefined;
  /** The scalar under `key` parsed as JSON. */
  getJson<T = unknown>(key: string): T | undefined;
  /** Sets a scalar (a string is stored as UTF-8). Overwrites a ring. */
  set(key: string, value: Uint8Array | string): void;
  /** Sets a scalar to the canonical JSON of `value`. */
  setJson(key: string, value: JsonValue): void;
  /** Removes `key`; idempotent. */
  delete(key: string): void;
  /** Appends to the ring under `key`, dropping the oldest item beyond `maxItems`. Throws `MemoryKindError` on a scalar. */
  append(key: string, item: Uint8Array | string, options?: AppendOptions): void;
  /** The ring's items oldest first; empty when absent. */
  ring(key: string): Uint8Array[];
  /** The ring's items decoded as UTF-8. */
  ringText(key: string): string[];
  /** True when `key` holds a scalar or a ring. Does not touch recency. */
  has(key: string): boolean;
  /** Keys in least-recently-used order. Does not touch recency. */
  keys(): string[];
  /** The exact accounted size in bytes, staged writes included. */
  readonly sizeBytes: number;
  /**
   * The long-term tier of this entity (durable across activations and working-memory expiry).
   * Throws `LongTermNotConfigured` when the deployment has none.
   */
  readonly longterm: LongTermApi;
}
