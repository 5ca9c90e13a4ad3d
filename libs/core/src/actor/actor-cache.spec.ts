// The hot-document cache is a bounded LRU map; its eviction order is what keeps memory flat in the number of keys, so it is pinned here without a runtime.
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../testing/inbox-elements.js';
import { emptyActorDocument } from './actor-document.js';
import { ActorCache, type ActorCacheLimits, type CachedActor } from './actor-cache.js';

const entry = (revision: number, bytes = 100): CachedActor => ({ doc: emptyActorDocument('a', utf8Bytes('k')), revision, bytes, published: true });
const entries = (n: number): ActorCacheLimits => ({ entries: n, bytes: 1 << 30 });
const keysOf = (cache: ActorCache, keys: string[]): string[] => keys.filter((key) => cache.get(key) !== undefined);

describe('ActorCache', () => {
  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new ActorCache(entries(2));
    cache.set('a', entry(1));
    cache.set('b', entry(2));
    cache.set('c', entry(3));
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.revision).toBe(2);
    expect(cache.get('c')?.revision).toBe(3);
  });

  it('counts a read as a use', () => {
    const cache = new ActorCache(entries(2));
    cache.set('a', entry(1));
    cache.set('b', entry(2));
    cache.get('a');
    cache.set('c', entry(3));
    expect(keysOf(cache, ['a', 'b', 'c'])).toEqual(['a', 'c']);
  });

  it('counts a rewrite as a use and keeps the newest revision', () => {
    const cache = new ActorCache(entries(2));
    cache.set('a', entry(1));
    cache.set('b', entry(2));
    cache.set('a', entry(5));
    cache.set('c', entry(3));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.revision).toBe(5);
  });

  it('caches nothing at capacity 0, and forgets a key written there before', () => {
    const cache = new ActorCache(entries(0));
    cache.set('a', entry(1));
    expect(cache.size).toBe(0);
    expect(cache.get('a')).toBeUndefined();
  });

  it('evicts one key, or every key matching a predicate', () => {
    const cache = new ActorCache(entries(10));
    for (const key of ['p1.a', 'p1.b', 'p2.a']) cache.set(key, entry(1));
    cache.evict('p1.a');
    expect(cache.size).toBe(2);
    cache.evictWhere((key) => key.startsWith('p1.'));
    expect(keysOf(cache, ['p1.a', 'p1.b', 'p2.a'])).toEqual(['p2.a']);
  });

  it('refuses a bound that is negative or not an integer', () => {
    expect(() => new ActorCache(entries(-1))).toThrow(RangeError);
    expect(() => new ActorCache(entries(1.5))).toThrow(RangeError);
    expect(() => new ActorCache({ entries: 10, bytes: -1 })).toThrow(/bytes bound/);
  });

  it('evicts the least recently used entries until the encoded bytes fit the byte bound', () => {
    const cache = new ActorCache({ entries: 100, bytes: 1_000 });
    cache.set('a', entry(1, 400));
    cache.set('b', entry(1, 400));
    cache.get('a');
    cache.set('c', entry(1, 400));
    expect(keysOf(cache, ['a', 'b', 'c'])).toEqual(['a', 'c']);
    expect(cache.bytes).toBe(800);
  });

  it('weighs a rewritten key by its new size, and an evicted key no longer counts', () => {
    const cache = new ActorCache({ entries: 100, bytes: 1_000 });
    cache.set('a', entry(1, 300));
    cache.set('a', entry(2, 900));
    expect(cache.bytes).toBe(900);
    cache.evict('a');
    expect(cache.bytes).toBe(0);
    cache.set('p.a', entry(1, 10));
    cache.set('p.b', entry(1, 20));
    cache.evictWhere((key) => key.startsWith('p.'));
    expect(cache.bytes).toBe(0);
    expect(cache.size).toBe(0);
  });

  it('does not cache a document heavier than the whole byte bound, and keeps the others', () => {
    const cache = new ActorCache({ entries: 100, bytes: 1_000 });
    cache.set('small', entry(1, 100));
    cache.set('huge', entry(1, 1_001));
    expect(keysOf(cache, ['small', 'huge'])).toEqual(['small']);
    expect(cache.bytes).toBe(100);
  });
});
