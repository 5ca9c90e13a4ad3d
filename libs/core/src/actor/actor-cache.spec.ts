// The hot-document cache is a bounded LRU map; its eviction order is what keeps memory flat in the number of keys, so it is pinned here without a runtime.
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../testing/inbox-elements.js';
import { emptyActorDocument } from './actor-document.js';
import { ActorCache, type CachedActor } from './actor-cache.js';

const entry = (revision: number): CachedActor => ({ doc: emptyActorDocument('a', utf8Bytes('k')), revision, published: true });
const keysOf = (cache: ActorCache, keys: string[]): string[] => keys.filter((key) => cache.get(key) !== undefined);

describe('ActorCache', () => {
  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new ActorCache(2);
    cache.set('a', entry(1));
    cache.set('b', entry(2));
    cache.set('c', entry(3));
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.revision).toBe(2);
    expect(cache.get('c')?.revision).toBe(3);
  });

  it('counts a read as a use', () => {
    const cache = new ActorCache(2);
    cache.set('a', entry(1));
    cache.set('b', entry(2));
    cache.get('a');
    cache.set('c', entry(3));
    expect(keysOf(cache, ['a', 'b', 'c'])).toEqual(['a', 'c']);
  });

  it('counts a rewrite as a use and keeps the newest revision', () => {
    const cache = new ActorCache(2);
    cache.set('a', entry(1));
    cache.set('b', entry(2));
    cache.set('a', entry(5));
    cache.set('c', entry(3));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.revision).toBe(5);
  });

  it('caches nothing at capacity 0, and forgets a key written there before', () => {
    const cache = new ActorCache(0);
    cache.set('a', entry(1));
    expect(cache.size).toBe(0);
    expect(cache.get('a')).toBeUndefined();
  });

  it('evicts one key, or every key matching a predicate', () => {
    const cache = new ActorCache(10);
    for (const key of ['p1.a', 'p1.b', 'p2.a']) cache.set(key, entry(1));
    cache.evict('p1.a');
    expect(cache.size).toBe(2);
    cache.evictWhere((key) => key.startsWith('p1.'));
    expect(keysOf(cache, ['p1.a', 'p1.b', 'p2.a'])).toEqual(['p2.a']);
  });

  it('refuses a capacity that is negative or not an integer', () => {
    expect(() => new ActorCache(-1)).toThrow(RangeError);
    expect(() => new ActorCache(1.5)).toThrow(RangeError);
  });
});
