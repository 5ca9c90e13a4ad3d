/**
 * One key's replay cache for the length of one activation: a staging area over the committed
 * `CacheBlobDoc` (invariants 1 and 3). Entries staged here reach the bucket only with the
 * activation's commit, so a retried attempt rebuilds from the same committed blob; what makes a
 * retry provider-free is that the *committed* cache already holds the answers. No I/O, no wall
 * clock: the activation's frozen `nowMs` decides expiry and stamps access.
 *
 * Bounds after every operation: at most `REPLAY_CACHE_MAX_ENTRIES` entries and an encoded
 * `LlmCacheBlob` of at most `REPLAY_CACHE_BLOB_CAP_BYTES`, computed arithmetically
 * (cache-blob-size.ts) rather than by re-encoding.
 */
import { hash } from 'node:crypto';
import type { CacheBlobDoc, CacheEntryDoc } from '../actor/actor-document.js';
import { fromHex } from '../ids/hex-bytes.js';
import { cacheBlobHeaderBytes, cacheEntryFieldBytes } from './cache-blob-size.js';
import { REPLAY_CACHE_BLOB_CAP_BYTES, REPLAY_CACHE_MAX_ENTRIES, REPLAY_CACHE_TTL_MS } from './replay-cache-limits.js';

/** How a {@link ReplayCache} is built for one activation. */
export interface ReplayCacheOptions {
  /** The activation clock (event time, epoch ms): decides expiry and stamps access. Never the wall clock. */
  readonly nowMs: number;
}

/** A cache hit: the stored response, byte-identical to what the provider returned, and its sha256. */
export interface ReplayCacheHit {
  readonly response: Uint8Array;
  readonly digest: Uint8Array;
}

interface Slot {
  readonly entry: CacheEntryDoc;
  /** The entry's contribution to the encoded blob (tag + length prefix + message). */
  readonly fieldBytes: number;
}

const EMPTY = new Uint8Array(0);
const CACHE_KEY_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The staged replay cache of one key inside one activation. Build it with
 * {@link ReplayCache.fromBlob}, consult it before every provider call (`get`), record every
 * provider answer (`put`) and persist {@link ReplayCache.toBlob} with the commit.
 *
 * Rules (beam-agents `spec:llm-replay-cache`):
 * - An entry expires when `nowMs - createdAtMs > REPLAY_CACHE_TTL_MS`; reads never extend it and
 *   a re-put of the same key restarts it. Expired entries are purged lazily, by `get` of that key
 *   and by every `put`.
 * - A response too large to fit even alone in the capped blob is kept digest-only (no bytes,
 *   digest kept), so its key still records that the call happened; `get` treats it as a miss and
 *   {@link ReplayCache.isDigestOnly} tells the two apart.
 * - Eviction is least-recently-used: first down to the entry limit, then down to the byte cap.
 *
 * @example
 * const cache = ReplayCache.fromBlob(doc.llmCache, { nowMs: ctx.eventTimeMs });
 * const hit = cache.get(cacheKey);
 * const body = hit?.response ?? (await provider.complete(request, { signal }));
 * if (hit === undefined) cache.put(cacheKey, body);
 */
export class ReplayCache {
  private readonly slots: Map<string, Slot>;
  private readonly nowMs: number;
  private responseBytes = 0;
  private entryBytes = 0;
  private isDirty = false;

  private constructor(nowMs: number) {
    this.slots = new Map();
    this.nowMs = nowMs;
  }

  /**
   * Stages the cache over a committed blob (`undefined` for a key with none). Pure: never mutates
   * `blob`, whose byte arrays it shares. Loading changes nothing: expired entries and a blob
   * written under larger bounds stay as they are until the next `put` (or a `get` of that key).
   * The stored `totalResponseBytes` is recomputed, not trusted; a repeated cache key (no binary of
   * ours writes one) keeps the later entry.
   */
  static fromBlob(blob: CacheBlobDoc | undefined, options: ReplayCacheOptions): ReplayCache {
    if (!Number.isSafeInteger(options.nowMs)) throw new TypeError(`nowMs must be a safe integer, got ${String(options.nowMs)}`);
    const cache = new ReplayCache(options.nowMs);
    for (const entry of blob?.entries ?? []) {
      cache.remove(entry.cacheKey);
      cache.insert(entry);
    }
    return cache;
  }

  /** True once anything was staged: an insert, a purge or a recency-updating hit. A miss never dirties. */
  get dirty(): boolean {
    return this.isDirty;
  }

  /** Entries staged (expired ones included until a `put` purges them). */
  get size(): number {
    return this.slots.size;
  }

  /** The exact encoded size of `toBlob()` as `nats_agents.v1.LlmCacheBlob`, in bytes. */
  get serializedSizeBytes(): number {
    return cacheBlobHeaderBytes(this.responseBytes) + this.entryBytes;
  }

  /**
   * The cached response for `cacheKey` (a copy) and its sha256, or undefined on a miss.
   *
   * A live full entry is a hit: it is re-stamped with `nowMs` and becomes most recently used (its
   * expiry does not move). An absent or digest-only entry is a miss that stages nothing. An
   * expired entry is a miss that purges it.
   */
  get(cacheKey: string): ReplayCacheHit | undefined {
    const slot = this.slots.get(cacheKey);
    if (slot === undefined) return undefined;
    if (this.isExpired(slot.entry)) {
      this.remove(cacheKey);
      this.isDirty = true;
      return undefined;
    }
    if (slot.entry.digestOnly) return undefined;
    const touched: CacheEntryDoc = { ...slot.entry, lastAccessMs: this.nowMs };
    this.remove(cacheKey);
    this.insert(touched);
    this.isDirty = true;
    // A new stamp can have a longer varint than the old one (only for clocks before 1971 or after
    // 2109, e.g. in tests), so even a read must restore the byte cap.
    this.enforceBounds();
    return { response: touched.response.slice(), digest: touched.responseDigest.slice() };
  }

  /**
   * True when `cacheKey` holds a live digest-only entry: the call was answered before, but the
   * answer was too large to keep. Lets a caller that re-calls the provider after the miss compare
   * digests to detect a nondeterministic provider. Stages nothing and does not touch recency.
   */
  isDigestOnly(cacheKey: string): boolean {
    const slot = this.slots.get(cacheKey);
    return slot !== undefined && slot.entry.digestOnly && !this.isExpired(slot.entry);
  }

  /**
   * Stages `response` (copied) under `cacheKey` as the most recently used entry, created now. In
   * order: purges every expired entry; keeps only the digest when the entry could not fit even in
   * an otherwise empty blob (without evicting anything for it); replaces any entry under the same
   * key; evicts least recently used entries beyond `REPLAY_CACHE_MAX_ENTRIES`, then until the
   * encoded blob fits `REPLAY_CACHE_BLOB_CAP_BYTES`. The new entry itself is never evicted.
   *
   * Throws a TypeError when `cacheKey` is not 64 lowercase hex characters (see `replayCacheKey`),
   * staging nothing. Staged only: the entry serves a retry only once the activation commits.
   * Returns the response's sha256 (the entry's digest, computed once here), which the caller hands
   * on as the model response's `digest`.
   */
  put(cacheKey: string, response: Uint8Array): Uint8Array {
    if (typeof cacheKey !== 'string' || !CACHE_KEY_PATTERN.test(cacheKey)) {
      throw new TypeError(`cacheKey must be 64 lowercase hex characters, got ${JSON.stringify(cacheKey)}`);
    }
    if (!(response instanceof Uint8Array)) throw new TypeError('response must be a Uint8Array');
    this.purgeExpired();
    const digest = sha256(response);
    const full: CacheEntryDoc = {
      cacheKey,
      response,
      responseDigest: digest,
      createdAtMs: this.nowMs,
      lastAccessMs: this.nowMs,
      digestOnly: false,
    };
    const fitsAlone = cacheBlobHeaderBytes(response.length) + cacheEntryFieldBytes(full) <= REPLAY_CACHE_BLOB_CAP_BYTES;
    this.remove(cacheKey);
    this.insert(fitsAlone ? { ...full, response: response.slice() } : { ...full, response: EMPTY, digestOnly: true });
    this.isDirty = true;
    this.enforceBounds();
    return digest.slice();
  }

  /**
   * The staged cache as a blob to commit: entries least recently used first, `totalResponseBytes`
   * the sum of stored response lengths. Unaccessed entries keep their bytes and stamps. Calling it
   * stages nothing.
   */
  toBlob(): CacheBlobDoc {
    return { entries: [...this.slots.values()].map((slot) => slot.entry), totalResponseBytes: this.responseBytes };
  }

  private isExpired(entry: CacheEntryDoc): boolean {
    return this.nowMs - entry.createdAtMs > REPLAY_CACHE_TTL_MS;
  }

  /** Appends at the most recently used end; the key must be absent. */
  private insert(entry: CacheEntryDoc): void {
    const fieldBytes = cacheEntryFieldBytes(entry);
    this.slots.set(entry.cacheKey, { entry, fieldBytes });
    this.responseBytes += entry.response.length;
    this.entryBytes += fieldBytes;
  }

  private remove(cacheKey: string): void {
    const slot = this.slots.get(cacheKey);
    if (slot === undefined) return;
    this.slots.delete(cacheKey);
    this.responseBytes -= slot.entry.response.length;
    this.entryBytes -= slot.fieldBytes;
  }

  private purgeExpired(): void {
    for (const slot of [...this.slots.values()]) {
      if (!this.isExpired(slot.entry)) continue;
      this.remove(slot.entry.cacheKey);
      this.isDirty = true;
    }
  }

  private enforceBounds(): void {
    while (this.slots.size > REPLAY_CACHE_MAX_ENTRIES) this.evictLeastRecentlyUsed();
    while (this.serializedSizeBytes > REPLAY_CACHE_BLOB_CAP_BYTES) {
      if (this.slots.size > 1) {
        this.evictLeastRecentlyUsed();
        continue;
      }
      // One entry over the cap on its own: only reachable when a read re-stamped an entry that
      // filled the cap to the byte. Degrade it the way put would have; drop it if even that fails.
      const only = this.slots.values().next().value;
      if (only === undefined) return;
      this.remove(only.entry.cacheKey);
      if (!only.entry.digestOnly) this.insert({ ...only.entry, response: EMPTY, digestOnly: true });
    }
  }

  private evictLeastRecentlyUsed(): void {
    const oldest = this.slots.keys().next().value;
    if (oldest !== undefined) this.remove(oldest);
  }
}

function sha256(bytes: Uint8Array): Uint8Array {
  // One-shot (no Hash object): a model call hashes its answer here and nowhere else. Taken as hex
  // and read into a 32-byte array, which V8 keeps on its own heap: hash()'s Buffer result is a
  // fresh off-heap ArrayBuffer, about three times the cost of the whole hash on Node 20.
  return fromHex(hash('sha256', bytes, 'hex'));
}
