// Shard keys are a wire contract (beam-agents §1.2 formula); pure, so the vectors and the inverse are pinned here without a broker.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ShardKeyError } from './errors.js';
import { shardKey, unshardKey } from './shard-key.js';

const utf8 = new TextEncoder();
const bytes = (text: string): Uint8Array => utf8.encode(text);

describe('shardKey', () => {
  // Vectors from an independent implementation: Python's int.from_bytes(sha256(p)[:8], 'big') % n.
  it.each([
    ['hello', 4, 'k#2'],
    ['hello', 7, 'k#0'],
    ['hello', 1000, 'k#342'],
    ['', 4, 'k#0'],
    ['', 7, 'k#1'],
    ['{"n":1}', 7, 'k#6'],
    ['{"n":1}', 1000, 'k#100'],
  ])('puts payload %j with n = %i on %s (the beam-agents formula)', (payload, n, expected) => {
    expect(shardKey('k', n, bytes(payload))).toBe(expected);
  });

  it('reduces the full 64-bit prefix without losing precision, even for the largest shard count', () => {
    expect(shardKey('k', Number.MAX_SAFE_INTEGER, bytes('hello'))).toBe('k#5152012445459573');
  });

  it('still appends #0 when there is a single shard', () => {
    expect(shardKey('user-1', 1, bytes('anything'))).toBe('user-1#0');
  });

  it('shards byte keys to the same bytes as text keys', () => {
    const sharded = shardKey(bytes('user@example.com'), 4, bytes('hello'));
    expect(sharded).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(sharded)).toBe(shardKey('user@example.com', 4, bytes('hello')));
  });

  it('sends the same payload to the same shard every time and stays below n', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 1, max: 64 }), fc.uint8Array({ maxLength: 64 }), (key, n, payload) => {
        const first = shardKey(key, n, payload);
        expect(shardKey(key, n, Uint8Array.from(payload))).toBe(first);
        expect(unshardKey(first).shard).toBeLessThan(n);
      }),
    );
  });

  it.each([0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses a shard count of %s', (n) => {
    expect(() => shardKey('k', n, bytes('x'))).toThrow(ShardKeyError);
  });

  it('refuses to shard an empty key', () => {
    expect(() => shardKey('', 4, bytes('x'))).toThrow(ShardKeyError);
    expect(() => shardKey(new Uint8Array(0), 4, bytes('x'))).toThrow(/empty/);
  });
});

describe('unshardKey', () => {
  it('takes a shard key apart into the logical key and the shard index', () => {
    expect(unshardKey('user-1#2')).toEqual({ key: 'user-1', shard: 2 });
    expect(unshardKey('a#b#0')).toEqual({ key: 'a#b', shard: 0 });
    expect(unshardKey(bytes('café#13'))).toEqual({ key: bytes('café'), shard: 13 });
  });

  it('inverts shardKey for every non-empty text and byte key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 1, max: 1_000 }), fc.uint8Array({ maxLength: 32 }), (key, n, payload) => {
        expect(unshardKey(shardKey(key, n, payload)).key).toBe(key);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.integer({ min: 1, max: 1_000 }), fc.uint8Array({ maxLength: 32 }), (key, n, payload) => {
        expect(unshardKey(shardKey(key, n, payload)).key).toEqual(key);
      }),
    );
  });

  it.each([
    ['user-1', /does not end in '#<digits>'/],
    ['user-1#', /does not end in '#<digits>'/],
    ['user-1#x', /does not end in '#<digits>'/],
    ['user-12', /does not end in '#<digits>'/],
    ['user-1#07', /leading zero/],
    ['user-1#99999999999999999999', /too large/],
    ['#3', /logical key before '#' is empty/],
    ['', /does not end in '#<digits>'/],
  ])('fails loudly on %j instead of guessing', (key, message) => {
    expect(() => unshardKey(key)).toThrow(ShardKeyError);
    expect(() => unshardKey(key)).toThrow(message);
  });
});
