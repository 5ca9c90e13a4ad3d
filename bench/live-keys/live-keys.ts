/**
 * The live-keys dimension: how throughput depends on how many keys have state in the store.
 * Keys are made live cheaply, straight into the buckets (no activations): the runtime's bucket
 * gets a real encoded actor document per key (the no-op agent's document after one committed
 * activation: `emptyActorDocument` at seq 1, encoded by `#core`, so the activator reads it like
 * any other), the baseline's bucket a 512-byte value per key. Rows run in ascending order and
 * keys stay live, so each row writes only the keys it adds. The bare figure — `kv.update` at
 * cached revisions of random live keys, a fixed number in flight, nothing else — is measured
 * here too, from the load generator, for comparison with the figures quoted in ARCHITECTURE §10.
 */
import { emptyActorDocument, encodeActorDocument } from '#core';
import { createTopology, decodeKeyToken } from '#routing';
import type { KV } from '@nats-io/kv';
import { NOOP_AGENT } from '../agents/bench-agents.js';
import { BASELINE_VALUE_BYTES } from '../baseline/baseline-worker.js';
import { baselineStateKey } from '../baseline/baseline-topology.js';

/** Digits of a live key's index: tokens sort and stay the same whatever the row (`lk-0000042`). */
const INDEX_WIDTH = 7;

/** The token of live key `index`. */
export function liveKeyToken(index: number): string {
  return `lk-${String(index).padStart(INDEX_WIDTH, '0')}`;
}

/**
 * `count` indices spread evenly over `0..total-1` (all of them when `count ≥ total`), ascending:
 * the live keys a measured run touches, one event each, from every region of the key space.
 * `shift` moves every index by `shift` modulo the stride (`⌊total ÷ count⌋`), so the runs of one
 * row (shifts 0, 1, 2, …) touch disjoint keys while the stride allows it. Disjoint matters: a
 * key a run touched was rewritten at the stream's tail, and a later run reading it would find it
 * in a block the store has just had in memory, not where a key untouched since it was written lies.
 */
export function spreadIndices(count: number, total: number, shift = 0): number[] {
  if (count >= total) return Array.from({ length: total }, (_, i) => i);
  const offset = shift % Math.floor(total / count);
  return Array.from({ length: count }, (_, j) => Math.floor((j * total) / count) + offset);
}

/** Where keys are made live. */
export interface LiveKeyStores {
  /** The runtime's state bucket (`AGENTS_STATE`), or `undefined` when the runtime is not measured. */
  readonly runtime: KV | undefined;
  /** The baseline's state bucket (`BENCH_STATE`), or `undefined` when the baseline is not measured. */
  readonly baseline: KV | undefined;
  /** The runtime's partition count (the topology names its state keys). */
  readonly partitions: number;
}

/**
 * Makes keys `from..to-1` live in both stores, `inFlight` writes at a time; records each baseline
 * key's revision in `revisions` (for the bare updates). Resolves with the time it took.
 *
 * @throws {Error} when a write fails.
 */
export async function prepopulateLiveKeys(stores: LiveKeyStores, from: number, to: number, revisions: Float64Array, inFlight = 256): Promise<number> {
  const topology = createTopology({ partitions: stores.partitions });
  const value = new Uint8Array(BASELINE_VALUE_BYTES).fill(0x2e);
  const began = performance.now();
  let next = from;
  const lane = async (): Promise<void> => {
    while (next < to) {
      const index = next++;
      const token = liveKeyToken(index);
      const writes: Promise<unknown>[] = [];
      if (stores.runtime !== undefined) {
        const doc = encodeActorDocument({ ...emptyActorDocument(NOOP_AGENT, decodeKeyToken(token)), seq: 1 });
        writes.push(stores.runtime.put(topology.stateKey(NOOP_AGENT, token), doc));
      }
      if (stores.baseline !== undefined) {
        writes.push(stores.baseline.put(baselineStateKey(NOOP_AGENT, token), value).then((revision) => (revisions[index] = revision)));
      }
      await Promise.all(writes);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return performance.now() - began;
}

/**
 * Reads back the revisions of live keys `indices` in the baseline's bucket (after the baseline
 * system wrote them), so the next bare updates start from current revisions.
 */
export async function refreshRevisions(kv: KV, indices: readonly number[], revisions: Float64Array, inFlight = 256): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < indices.length) {
      const index = indices[next++] as number;
      const entry = await kv.get(baselineStateKey(NOOP_AGENT, liveKeyToken(index)));
      if (entry !== null) revisions[index] = entry.revision;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

/** A small deterministic PRNG (xorshift32): the same run picks the same keys. */
function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}

/**
 * `updates` revision-checked `kv.update`s of random keys among `0..liveKeys-1` (the baseline's
 * bucket), `inFlight` at a time, at the revisions in `revisions` (kept current). A key another
 * writer changed meanwhile (the baseline's earlier phases) is re-read and updated once more; that
 * extra read is counted, not timed apart. Resolves with updates per second.
 *
 * @throws {Error} when an update fails for another reason.
 */
export async function bareKvUpdates(kv: KV, liveKeys: number, revisions: Float64Array, updates: number, inFlight: number, seed: number): Promise<{ perSecond: number; rereads: number }> {
  const random = xorshift(seed);
  const value = new Uint8Array(BASELINE_VALUE_BYTES).fill(0x2a);
  let issued = 0;
  let rereads = 0;
  const busy = new Set<number>();
  const lane = async (): Promise<void> => {
    while (issued < updates) {
      issued += 1;
      let index = Math.floor(random() * liveKeys);
      // One writer per key at a time, as in every other measurement here.
      while (busy.has(index)) index = Math.floor(random() * liveKeys);
      busy.add(index);
      const key = baselineStateKey(NOOP_AGENT, liveKeyToken(index));
      try {
        revisions[index] = await kv.update(key, value, revisions[index] ?? 0);
      } catch {
        rereads += 1;
        const entry = await kv.get(key);
        if (entry === null) throw new Error(`live key ${key} is missing from the baseline's bucket`);
        revisions[index] = await kv.update(key, value, entry.revision);
      } finally {
        busy.delete(index);
      }
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: Math.min(inFlight, liveKeys) }, lane));
  const elapsedMs = performance.now() - began;
  return { perSecond: (updates * 1_000) / elapsedMs, rereads };
}
