// Layer 1: the supersede chain is ordered by its links, so retirements stamped with the same
// millisecond (events published together) still read oldest first.
import { describe, expect, it } from 'vitest';
import type { LongTermRecord } from '#core';
import { walkSupersedeChain, type ChainLookups } from './supersede-chain.js';

function record(key: string, supersededBy = '', supersededAtMs = 0): LongTermRecord {
  return {
    entityKey: new Uint8Array([1]),
    agent: 'facts',
    key,
    value: new TextEncoder().encode(key),
    seq: 0,
    updatedAtMs: 0,
    type: 'fact',
    expiresAtMs: 0,
    supersededBy,
    supersededAtMs,
    confidence: 0,
  };
}

function lookups(records: readonly LongTermRecord[]): ChainLookups {
  return {
    load: (key) => Promise.resolve(records.find((r) => r.key === key)),
    predecessors: (key) => Promise.resolve(records.filter((r) => r.supersededBy === key)),
  };
}

describe('walkSupersedeChain', () => {
  it('puts a record retired for a predecessor before that predecessor, even at the same millisecond', async () => {
    // f1 was retired for f0, then f0 for f3, both stamped 1000: key order alone would put f0 first.
    const records = [record('f0', 'f3', 1_000), record('f1', 'f0', 1_000), record('f3')];
    expect((await walkSupersedeChain('f3', lookups(records), 10)).map((r) => r.key)).toEqual(['f1', 'f0', 'f3']);
  });

  it('orders predecessors at the same distance by retirement time, then key', async () => {
    const records = [record('b', 'c', 2_000), record('a', 'c', 3_000), record('z', 'c', 2_000), record('c')];
    expect((await walkSupersedeChain('c', lookups(records), 10)).map((r) => r.key)).toEqual(['b', 'z', 'a', 'c']);
  });

  it('follows replacements forwards from the record asked about', async () => {
    const records = [record('f1', 'f0', 5), record('f0', 'f3', 9), record('f3')];
    expect((await walkSupersedeChain('f0', lookups(records), 10)).map((r) => r.key)).toEqual(['f1', 'f0', 'f3']);
  });

  it('stops at the length bound and on a cycle', async () => {
    const cycle = [record('x', 'y', 1), record('y', 'x', 2)];
    expect((await walkSupersedeChain('x', lookups(cycle), 10)).map((r) => r.key)).toEqual(['y', 'x']);
    const long = Array.from({ length: 6 }, (_, i) => record(`k${i}`, i < 5 ? `k${i + 1}` : '', i));
    expect(await walkSupersedeChain('k5', lookups(long), 3)).toHaveLength(3);
  });
});
