/**
 * Hot-key sharding (beam-agents §1.25): spreads one logical key's events over `n` physical keys
 * `key#0 … key#<n-1>`, chosen by a hash of the event bytes, so a key that receives more events
 * than one activation at a time can absorb is served by `n` actors in parallel.
 *
 * ONLY for memory-free agents: each shard is a key of its own, with its own working memory,
 * replay cache, activation seq and suspension. The runtime does not detect a violation; an agent
 * with per-key memory silently gets `n` divergent memories, and events of one logical key are no
 * longer ordered with each other (only events of one shard are).
 *
 * Ingress applies it on the events lane only: a tool result or an approval addresses the physical
 * key its intent was minted on (the intent carries it), so answers are never re-sharded.
 * Pure: no side effects on import.
 */
import { createHash } from 'node:crypto';
import { ShardKeyError } from './errors.js';

const SEPARATOR = 0x23; // '#'
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const utf8 = new TextEncoder();
const latin1 = new TextDecoder('latin1');

/** A physical key taken apart by {@link unshardKey}. */
export interface UnshardedKey<K extends string | Uint8Array> {
  /** The logical key (the shard suffix removed). */
  readonly key: K;
  /** The shard index `i` of `key#i`. */
  readonly shard: number;
}

/**
 * The physical key `key#i` of an event, with `i = uint64be(sha256(payload)[0..8]) mod n` —
 * `BigInt.asUintN(64, …)` of the digest's first 8 bytes, big-endian, as beam-agents computes it.
 * Deterministic: the same payload always lands on the same shard, so a redelivered or replayed
 * event reaches the same actor. `n = 1` still appends `#0` (the key space does not change shape
 * when an agent goes from one shard to several).
 *
 * @param key - the logical entity key (text or bytes; the result has the same type). It must not
 * itself end in `#<digits>`, or {@link unshardKey} cannot tell the suffixes apart.
 * @param n - the agent's shard count, a positive safe integer.
 * @param payload - the event bytes as published.
 * @throws {ShardKeyError} when `n` is not a positive safe integer or `key` is empty.
 * @example
 * ```ts
 * shardKey('user-1', 4, eventBytes); // 'user-1#2' (always the same for these bytes)
 * shardKey('user-1', 1, eventBytes); // 'user-1#0'
 * ```
 */
export function shardKey(key: string, n: number, payload: Uint8Array): string;
export function shardKey(key: Uint8Array, n: number, payload: Uint8Array): Uint8Array;
export function shardKey(key: string | Uint8Array, n: number, payload: Uint8Array): string | Uint8Array {
  if (!Number.isSafeInteger(n) || n < 1) throw new ShardKeyError(`the shard count must be a positive integer, got ${String(n)}`);
  if (key.length === 0) throw new ShardKeyError('an empty entity key cannot be sharded');
  const digest = createHash('sha256').update(payload).digest();
  const shard = Number(BigInt.asUintN(64, digest.readBigUInt64BE(0)) % BigInt(n));
  if (typeof key === 'string') return `${key}#${shard}`;
  const suffix = utf8.encode(`#${shard}`);
  const sharded = new Uint8Array(key.length + suffix.length);
  sharded.set(key, 0);
  sharded.set(suffix, key.length);
  return sharded;
}

/**
 * The inverse of {@link shardKey}: strips exactly one trailing `#<digits>` and returns the logical
 * key and the shard index. Fails loudly rather than guessing: a key without the suffix is not a
 * physical shard key, and a suffix `shardKey` cannot produce (`#`, `#07`, `#x`) is refused.
 *
 * @throws {ShardKeyError} when the key has no `#<digits>` suffix, the digits are not canonical
 * (a leading zero) or too large, or the logical key before the suffix is empty.
 * @example
 * ```ts
 * unshardKey('user-1#2'); // { key: 'user-1', shard: 2 }
 * unshardKey('user-1');   // throws ShardKeyError
 * ```
 */
export function unshardKey(key: string): UnshardedKey<string>;
export function unshardKey(key: Uint8Array): UnshardedKey<Uint8Array>;
export function unshardKey(key: string | Uint8Array): UnshardedKey<string> | UnshardedKey<Uint8Array> {
  const bytes = typeof key === 'string' ? utf8.encode(key) : key;
  let at = bytes.length;
  while (at > 0 && (bytes[at - 1] as number) >= DIGIT_0 && (bytes[at - 1] as number) <= DIGIT_9) at -= 1;
  const digits = latin1.decode(bytes.subarray(at));
  const shown = JSON.stringify(typeof key === 'string' ? key : latin1.decode(key)).slice(0, 80);
  if (digits.length === 0 || at === 0 || bytes[at - 1] !== SEPARATOR) {
    throw new ShardKeyError(`${shown} is not a shard key: it does not end in '#<digits>'`);
  }
  if (digits.length > 1 && digits.startsWith('0')) throw new ShardKeyError(`${shown} is not a shard key: the shard index '${digits}' has a leading zero`);
  const shard = Number(digits);
  if (!Number.isSafeInteger(shard)) throw new ShardKeyError(`${shown} is not a shard key: the shard index '${digits}' is too large`);
  if (at === 1) throw new ShardKeyError(`${shown} is not a shard key: the logical key before '#' is empty`);
  if (typeof key === 'string') return { key: key.slice(0, key.length - digits.length - 1), shard };
  return { key: key.slice(0, at - 1), shard };
}
