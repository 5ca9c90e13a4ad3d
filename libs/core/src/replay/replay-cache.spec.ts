// The cache is pure staging over one blob with a frozen clock, so every §1.7 rule (TTL, digest-only, LRU, caps) is checkable here without a provider or a bucket.
import { createHash } from 'node:crypto';
import { v1 } from '#proto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CacheBlobDoc, CacheEntryDoc } from '../actor/actor-document.js';
import { replayCacheKey } from './replay-cache-key.js';
import { REPLAY_CACHE_BLOB_CAP_BYTES, REPLAY_CACHE_MAX_ENTRIES, REPLAY_CACHE_TTL_MS } from './replay-cache-limits.js';
import { ReplayCache } from './replay-cache.js';

const T0 = 1_700_000_000_000;
const SIX_HOURS = 6 * 60 * 60 * 1000;
const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());
/** A well-formed cache key for entry `n`. */
const ck = (n: number): string => createHash('sha256').update(`entry-${n}`).digest('hex');
const body = (size: number, fill = 0x61): Uint8Array => new Uint8Array(size).fill(fill);
const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const fresh = (nowMs = T0): ReplayCache => ReplayCache.fromBlob(undefined, { nowMs });
/** The next activation over what this one would commit. */
const commit = (cache: ReplayCache, nowMs: number): ReplayCache => ReplayCache.fromBlob(cache.toBlob(), { nowMs });
const encodedLength = (blob: CacheBlobDoc): number =>
  v1.LlmCacheBlob.encode({ entries: blob.entries.map((e) => ({ ...e })), totalResponseBytes: blob.totalResponseBytes }).finish().length;
const keysOf = (cache: ReplayCache): string[] => cache.toBlob().entries.map((e) => e.cacheKey);
const fullEntry = (n: number, response: Uint8Array, createdAtMs: number, lastAccessMs = createdAtMs): CacheEntryDoc => ({
  cacheKey: ck(n),
  response,
  responseDigest: sha256(response),
  createdAtMs,
  lastAccessMs,
  digestOnly: false,
});
const blobOf = (entries: CacheEntryDoc[]): CacheBlobDoc => ({ entries, totalResponseBytes: entries.reduce((s, e) => s + e.response.length, 0) });
/** Response size that makes `entriesFor(size)` encode to exactly the cap (sizes grow byte for byte near 100 KiB). */
const sizeFillingCap = (entriesFor: (size: number) => CacheEntryDoc[]): number => {
  const probe = 90_000;
  const size = probe + REPLAY_CACHE_BLOB_CAP_BYTES - encodedLength(blobOf(entriesFor(probe)));
  expect(encodedLength(blobOf(entriesFor(size)))).toBe(REPLAY_CACHE_BLOB_CAP_BYTES);
  return size;
};

describe('ReplayCache', () => {
  describe('get', () => {
    it('misses an absent key without staging anything', () => {
      const cache = fresh();
      expect(cache.get(ck(1))).toBeUndefined();
      expect(cache.dirty).toBe(false);
    });

    it('returns the stored response byte for byte with its sha256 digest', () => {
      const response = text('{"choices":[{"message":{"content":"pong"}}]}');
      const cache = fresh();
      cache.put(ck(1), response);
      const hit = commit(cache, T0 + 1).get(ck(1));
      expect(hit?.response).toEqual(response);
      expect(hit?.digest).toEqual(sha256(response));
    });

    it('makes a hit most recently used and re-stamps its access time, but keeps its creation time', () => {
      const first = fresh(T0);
      first.put(ck(1), text('one'));
      first.put(ck(2), text('two'));
      const next = commit(first, T0 + 500);
      expect(next.get(ck(1))).toBeDefined();
      expect(next.dirty).toBe(true);
      const entries = next.toBlob().entries;
      expect(entries.map((e) => e.cacheKey)).toEqual([ck(2), ck(1)]);
      expect(entries[1]).toMatchObject({ createdAtMs: T0, lastAccessMs: T0 + 500 });
      expect(entries[0]).toMatchObject({ createdAtMs: T0, lastAccessMs: T0 });
    });

    it('hands out copies, so mutating a put or a hit never changes the cache', () => {
      const response = text('abc');
      const cache = fresh();
      cache.put(ck(1), response);
      response[0] = 0x7a;
      const hit = cache.get(ck(1));
      if (hit) {
        hit.response[1] = 0x7a;
        hit.digest.fill(0);
      }
      expect(cache.get(ck(1))).toEqual({ response: text('abc'), digest: sha256(text('abc')) });
    });
  });

  describe('expiry: 6 h from creation, inclusive', () => {
    it('serves an entry exactly 6 h old', () => {
      expect(REPLAY_CACHE_TTL_MS).toBe(SIX_HOURS);
      const cache = fresh(T0);
      cache.put(ck(1), text('r'));
      expect(commit(cache, T0 + SIX_HOURS).get(ck(1))?.response).toEqual(text('r'));
    });

    it('misses and purges an entry one millisecond older than 6 h', () => {
      const cache = fresh(T0);
      cache.put(ck(1), text('r'));
      cache.put(ck(2), text('s'));
      const later = commit(cache, T0 + SIX_HOURS + 1);
      expect(later.get(ck(1))).toBeUndefined();
      expect(later.dirty).toBe(true);
      expect(keysOf(later)).toEqual([ck(2)]);
      expect(later.toBlob().totalResponseBytes).toBe(1);
    });

    it('never extends an entry’s life on a read', () => {
      const cache = fresh(T0);
      cache.put(ck(1), text('r'));
      const read = commit(cache, T0 + 5 * 3_600_000);
      expect(read.get(ck(1))).toBeDefined();
      expect(commit(read, T0 + SIX_HOURS + 1).get(ck(1))).toBeUndefined();
    });

    it('restarts an entry’s life when the same key is put again', () => {
      const cache = fresh(T0);
      cache.put(ck(1), text('old'));
      const again = commit(cache, T0 + 5 * 3_600_000);
      again.put(ck(1), text('new'));
      const later = commit(again, T0 + SIX_HOURS + 1);
      expect(later.get(ck(1))?.response).toEqual(text('new'));
      expect(later.toBlob().entries[0]?.createdAtMs).toBe(T0 + 5 * 3_600_000);
    });

    it('purges every expired entry on put, accessed or not', () => {
      const cache = fresh(T0);
      cache.put(ck(1), text('a'));
      cache.put(ck(2), text('b'));
      const mid = commit(cache, T0 + 3_600_000);
      mid.put(ck(3), text('c'));
      const later = commit(mid, T0 + SIX_HOURS + 1);
      later.put(ck(4), text('d'));
      expect(keysOf(later)).toEqual([ck(3), ck(4)]);
      expect(later.toBlob().totalResponseBytes).toBe(2);
    });

    it('keeps expired entries through a load with no access', () => {
      const cache = fresh(T0);
      cache.put(ck(1), text('a'));
      const later = commit(cache, T0 + 10 * SIX_HOURS);
      expect(later.toBlob()).toEqual(cache.toBlob());
      expect(later.dirty).toBe(false);
    });
  });

  describe('digest-only entries', () => {
    it('stores the largest response that fits alone in full, and one byte more as digest-only', () => {
      const largest = sizeFillingCap((size) => [fullEntry(1, body(size), T0)]);
      const fits = fresh(T0);
      fits.put(ck(1), body(largest));
      expect(fits.toBlob().entries[0]?.digestOnly).toBe(false);
      expect(fits.serializedSizeBytes).toBe(REPLAY_CACHE_BLOB_CAP_BYTES);

      const tooBig = fresh(T0);
      tooBig.put(ck(1), body(largest + 1));
      expect(tooBig.toBlob().entries[0]?.digestOnly).toBe(true);
    });

    it('keeps only the digest of an oversized response and treats it as a miss that stages nothing', () => {
      const huge = body(150_000, 7);
      const cache = fresh(T0);
      cache.put(ck(1), huge);
      expect(cache.toBlob()).toEqual({
        entries: [{ cacheKey: ck(1), response: new Uint8Array(0), responseDigest: sha256(huge), createdAtMs: T0, lastAccessMs: T0, digestOnly: true }],
        totalResponseBytes: 0,
      });
      const next = commit(cache, T0 + 1);
      expect(next.get(ck(1))).toBeUndefined();
      expect(next.isDigestOnly(ck(1))).toBe(true);
      expect(next.dirty).toBe(false);
      expect(next.toBlob()).toEqual(cache.toBlob());
    });

    it('does not evict other entries to make room for an oversized response', () => {
      const cache = fresh(T0);
      for (let i = 0; i < 3; i++) cache.put(ck(i), body(20_000, i));
      cache.put(ck(9), body(500_000));
      expect(keysOf(cache)).toEqual([ck(0), ck(1), ck(2), ck(9)]);
      expect(cache.get(ck(0))?.response).toEqual(body(20_000, 0));
    });

    it('still evicts least recently used entries when the digest-only entry itself tips the blob over the cap', () => {
      const cache = fresh(T0);
      cache.put(ck(0), body(60_000, 0));
      const second = sizeFillingCap((size) => [fullEntry(0, body(60_000), T0), fullEntry(1, body(size), T0)]);
      cache.put(ck(1), body(second, 1));
      expect(cache.serializedSizeBytes).toBe(REPLAY_CACHE_BLOB_CAP_BYTES);
      cache.put(ck(2), body(200_000));
      expect(keysOf(cache)).toEqual([ck(1), ck(2)]);
      expect(cache.serializedSizeBytes).toBeLessThanOrEqual(REPLAY_CACHE_BLOB_CAP_BYTES);
    });

    it('reports isDigestOnly only for a live digest-only entry, without touching anything', () => {
      const cache = fresh(T0);
      cache.put(ck(1), body(150_000));
      cache.put(ck(2), text('small'));
      expect(cache.isDigestOnly(ck(1))).toBe(true);
      expect(cache.isDigestOnly(ck(2))).toBe(false);
      expect(cache.isDigestOnly(ck(3))).toBe(false);
      const later = commit(cache, T0 + SIX_HOURS + 1);
      expect(later.isDigestOnly(ck(1))).toBe(false);
      expect(later.dirty).toBe(false);
      expect(keysOf(later)).toEqual([ck(1), ck(2)]);
    });

    it('replaces a digest-only entry with a full one when the response later fits', () => {
      const cache = fresh(T0);
      cache.put(ck(1), body(150_000));
      cache.put(ck(1), text('fits'));
      expect(cache.get(ck(1))?.response).toEqual(text('fits'));
      expect(cache.isDigestOnly(ck(1))).toBe(false);
    });
  });

  describe('eviction, least recently used first', () => {
    it('evicts the least recently used entry beyond 64 entries', () => {
      const cache = fresh();
      for (let i = 0; i <= REPLAY_CACHE_MAX_ENTRIES; i++) cache.put(ck(i), text(`r${i}`));
      const keys = keysOf(cache);
      expect(keys).toHaveLength(REPLAY_CACHE_MAX_ENTRIES);
      expect(keys[0]).toBe(ck(1));
      expect(keys.at(-1)).toBe(ck(REPLAY_CACHE_MAX_ENTRIES));
    });

    it('counts digest-only entries toward the 64', () => {
      const cache = fresh();
      for (let i = 0; i < REPLAY_CACHE_MAX_ENTRIES; i++) cache.put(ck(i), body(200_000, i));
      cache.put(ck(100), text('x'));
      expect(keysOf(cache)).toHaveLength(REPLAY_CACHE_MAX_ENTRIES);
      expect(keysOf(cache)).not.toContain(ck(0));
    });

    it('evicts by recency, not insertion order: a hit protects an old entry from the count limit', () => {
      const cache = fresh();
      for (let i = 0; i < REPLAY_CACHE_MAX_ENTRIES; i++) cache.put(ck(i), text(`r${i}`));
      cache.get(ck(0));
      cache.put(ck(100), text('new'));
      expect(keysOf(cache)).toContain(ck(0));
      expect(keysOf(cache)).not.toContain(ck(1));
    });

    it('evicts least recently used entries until the encoded blob fits 100 KiB, keeping the new entry', () => {
      const cache = fresh();
      for (let i = 0; i < 3; i++) cache.put(ck(i), body(30_000, i));
      cache.get(ck(0));
      cache.put(ck(3), body(30_000, 3));
      expect(keysOf(cache)).toEqual([ck(2), ck(0), ck(3)]);
      cache.put(ck(4), body(90_000, 4));
      expect(keysOf(cache)).toEqual([ck(4)]);
      expect(cache.serializedSizeBytes).toBeLessThanOrEqual(REPLAY_CACHE_BLOB_CAP_BYTES);
    });

    it('replaces an entry put again under the same key and makes it most recently used', () => {
      const cache = fresh();
      cache.put(ck(1), text('first'));
      cache.put(ck(2), text('other'));
      cache.put(ck(1), text('second'));
      expect(keysOf(cache)).toEqual([ck(2), ck(1)]);
      expect(cache.get(ck(1))?.response).toEqual(text('second'));
      expect(cache.toBlob().totalResponseBytes).toBe(5 + 6);
    });
  });

  describe('retry determinism (D09, D10)', () => {
    const request = { model: 'fake-1', messages: [{ role: 'user', content: 'ping' }] };
    const key = text('k1');

    it('serves a re-run of the same (key, seq) from the committed cache', () => {
      const attempt = fresh(T0);
      attempt.put(replayCacheKey(request, key, 0), text('pong'));
      const rerun = commit(attempt, T0);
      expect(rerun.get(replayCacheKey(request, key, 0))?.response).toEqual(text('pong'));
    });

    it('misses the same request under a new seq, by design', () => {
      const attempt = fresh(T0);
      attempt.put(replayCacheKey(request, key, 0), text('pong'));
      const next = commit(attempt, T0 + 1);
      expect(next.get(replayCacheKey(request, key, 1))).toBeUndefined();
      expect(next.dirty).toBe(false);
    });

    it('stages byte-identical blobs when a retried attempt repeats the same calls over the same committed blob', () => {
      const committed = fresh(T0);
      committed.put(ck(1), text('earlier'));
      const run = (): Uint8Array => {
        const attempt = ReplayCache.fromBlob(committed.toBlob(), { nowMs: T0 + 42 });
        attempt.get(ck(1));
        attempt.put(ck(2), text('fresh answer'));
        attempt.put(ck(3), body(200_000));
        const blob = attempt.toBlob();
        return v1.LlmCacheBlob.encode({ entries: blob.entries.map((e) => ({ ...e })), totalResponseBytes: blob.totalResponseBytes }).finish();
      };
      const failed = run();
      expect(run()).toEqual(failed);
    });

    it('never mutates the committed blob it was loaded from, so a failed attempt leaves nothing behind', () => {
      const committed = fresh(T0);
      committed.put(ck(1), text('kept'));
      const blob = committed.toBlob();
      const snapshot = structuredClone(blob);
      const attempt = ReplayCache.fromBlob(blob, { nowMs: T0 + SIX_HOURS + 1 });
      attempt.get(ck(1));
      attempt.put(ck(2), body(60_000));
      attempt.put(ck(3), body(60_000));
      expect(blob).toEqual(snapshot);
    });
  });

  describe('staging', () => {
    it('saves identical entries when loaded and saved with no access, and stays clean', () => {
      const blob = blobOf([fullEntry(1, text('a'), T0, T0 + 5), { ...fullEntry(2, new Uint8Array(0), T0 - 9), response: new Uint8Array(0), digestOnly: true }]);
      const cache = ReplayCache.fromBlob(blob, { nowMs: T0 + 10 });
      expect(cache.toBlob()).toEqual(blob);
      expect(cache.dirty).toBe(false);
      expect(cache.serializedSizeBytes).toBe(encodedLength(blob));
    });

    it('starts empty without a blob', () => {
      const cache = fresh();
      expect(cache.toBlob()).toEqual({ entries: [], totalResponseBytes: 0 });
      expect(cache.serializedSizeBytes).toBe(0);
    });

    it('recomputes totalResponseBytes instead of trusting the stored value', () => {
      const cache = ReplayCache.fromBlob({ entries: [fullEntry(1, text('abcd'), T0)], totalResponseBytes: 999 }, { nowMs: T0 });
      expect(cache.toBlob().totalResponseBytes).toBe(4);
    });

    it('keeps the later entry when a loaded blob repeats a cache key', () => {
      const cache = ReplayCache.fromBlob(blobOf([fullEntry(1, text('old'), T0), fullEntry(2, text('x'), T0), fullEntry(1, text('newer'), T0)]), { nowMs: T0 });
      expect(keysOf(cache)).toEqual([ck(2), ck(1)]);
      expect(cache.get(ck(1))?.response).toEqual(text('newer'));
      expect(cache.toBlob().totalResponseBytes).toBe(6);
    });

    it('marks the cache dirty on every put', () => {
      const cache = fresh();
      cache.put(ck(1), new Uint8Array(0));
      expect(cache.dirty).toBe(true);
      expect(cache.get(ck(1))?.response).toEqual(new Uint8Array(0));
    });

    it.each(['', 'ABCDEF'.repeat(11).slice(0, 64), `${ck(1)}0`, 'not a key'])('refuses the malformed cache key %j on put, staging nothing', (cacheKey) => {
      const cache = fresh();
      expect(() => cache.put(cacheKey, text('x'))).toThrow(TypeError);
      expect(cache.dirty).toBe(false);
    });

    it('refuses a clock that is not a safe integer', () => {
      expect(() => ReplayCache.fromBlob(undefined, { nowMs: Number.NaN })).toThrow(/nowMs/);
      expect(() => ReplayCache.fromBlob(undefined, { nowMs: 1.5 })).toThrow(/nowMs/);
    });
  });

  describe('byte cap when a read re-stamps with a wider timestamp', () => {
    it('evicts the least recently used entry to absorb the wider stamp', () => {
      const small = fullEntry(1, text('small'), T0);
      const size = sizeFillingCap((n) => [small, fullEntry(2, body(n), T0, 1)]);
      const cache = ReplayCache.fromBlob(blobOf([small, fullEntry(2, body(size), T0, 1)]), { nowMs: T0 });
      expect(cache.get(ck(2))?.response).toEqual(body(size));
      expect(keysOf(cache)).toEqual([ck(2)]);
      expect(cache.serializedSizeBytes).toBe(encodedLength(cache.toBlob()));
      expect(cache.serializedSizeBytes).toBeLessThanOrEqual(REPLAY_CACHE_BLOB_CAP_BYTES);
    });

    it('serves the hit but keeps only the digest of a lone entry that no longer fits', () => {
      const size = sizeFillingCap((n) => [fullEntry(1, body(n), T0, 1)]);
      const cache = ReplayCache.fromBlob(blobOf([fullEntry(1, body(size), T0, 1)]), { nowMs: T0 });
      expect(cache.get(ck(1))?.response).toEqual(body(size));
      expect(cache.isDigestOnly(ck(1))).toBe(true);
      expect(cache.toBlob().entries[0]).toMatchObject({ lastAccessMs: T0, responseDigest: sha256(body(size)) });
      expect(cache.serializedSizeBytes).toBeLessThanOrEqual(REPLAY_CACHE_BLOB_CAP_BYTES);
    });
  });

  describe('invariants under any sequence of activations', () => {
    it('keeps ≤ 64 entries and an encoded blob ≤ 100 KiB whose size the arithmetic reports exactly, and serves only what was last put', () => {
      const size = fc.oneof(
        fc.constant(0),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1_000, max: 40_000 }),
        fc.integer({ min: 102_150, max: 102_400 }),
        fc.constant(150_000),
      );
      const keyIndex = fc.integer({ min: 0, max: 79 });
      const op = fc.oneof(
        { weight: 5, arbitrary: fc.record({ kind: fc.constant('put' as const), key: keyIndex, size, fill: fc.integer({ min: 0, max: 255 }) }) },
        { weight: 3, arbitrary: fc.record({ kind: fc.constant('get' as const), key: keyIndex }) },
        {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant('commit' as const),
            advanceMs: fc.oneof(fc.integer({ min: -3_600_000, max: 3_600_000 }), fc.integer({ min: 0, max: 8 * 3_600_000 }), fc.integer({ min: 0, max: 300 })),
          }),
        },
      );
      const start = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200 }), fc.constant(T0));
      fc.assert(
        fc.property(start, fc.array(op, { maxLength: 40 }), (startMs, ops) => {
          let nowMs = startMs;
          let cache = ReplayCache.fromBlob(undefined, { nowMs });
          const lastPut = new Map<string, Uint8Array>();
          for (const step of ops) {
            if (step.kind === 'put') {
              const response = body(step.size, step.fill);
              cache.put(ck(step.key), response);
              lastPut.set(ck(step.key), response);
              const blob = cache.toBlob();
              expect(blob.entries.at(-1)?.cacheKey).toBe(ck(step.key));
              for (const e of blob.entries) expect(nowMs - e.createdAtMs).toBeLessThanOrEqual(REPLAY_CACHE_TTL_MS);
            } else if (step.kind === 'get') {
              const hit = cache.get(ck(step.key));
              if (hit !== undefined) {
                expect(hit.response).toEqual(lastPut.get(ck(step.key)));
                expect(hit.digest).toEqual(sha256(hit.response));
              }
            } else {
              nowMs += step.advanceMs;
              cache = commit(cache, nowMs);
            }
            const blob = cache.toBlob();
            expect(cache.serializedSizeBytes).toBe(encodedLength(blob));
            expect(cache.serializedSizeBytes).toBeLessThanOrEqual(REPLAY_CACHE_BLOB_CAP_BYTES);
            expect(blob.entries.length).toBeLessThanOrEqual(REPLAY_CACHE_MAX_ENTRIES);
            expect(new Set(blob.entries.map((e) => e.cacheKey)).size).toBe(blob.entries.length);
            expect(blob.totalResponseBytes).toBe(blob.entries.reduce((s, e) => s + e.response.length, 0));
            for (const e of blob.entries) if (e.digestOnly) expect(e.response.length).toBe(0);
          }
        }),
        { numRuns: 150 },
      );
    });
  });
});
