// Layer 1: supersede and restore only build upsert records, so their guard-relevant fields (seq, pointer) are pinned here.
import { describe, expect, it } from 'vitest';
import type { LongTermRecord } from '#core';
import { LongTermArgumentError } from '../errors.js';
import { walkSupersedeChain } from './supersede-chain.js';
import { restore, supersede } from './supersede.js';

const base: LongTermRecord = {
  entityKey: new Uint8Array([1]),
  agent: 'support',
  key: 'fact/runtime',
  value: new Uint8Array([8]),
  seq: 4,
  updatedAtMs: 100,
  type: 'fact',
  expiresAtMs: 0,
  supersededBy: '',
  supersededAtMs: 0,
  confidence: 0.9,
};

describe('supersede', () => {
  it('points the record at its replacement and keeps its content', () => {
    expect(supersede(base, 'fact/runtime-v2', 500)).toEqual({ ...base, supersededBy: 'fact/runtime-v2', supersededAtMs: 500, seq: 5 });
  });

  it("takes the reconciling activation's seq when given", () => {
    expect(supersede(base, 'fact/v2', 500, { seq: 40 }).seq).toBe(40);
    expect(supersede(base, 'fact/v2', 500, { seq: 4 }).seq).toBe(4);
  });

  it('refuses a self-pointer, an empty key, a seq the guard would refuse and a missing time', () => {
    expect(() => supersede(base, 'fact/runtime', 500)).toThrow(LongTermArgumentError);
    expect(() => supersede(base, '', 500)).toThrow(LongTermArgumentError);
    expect(() => supersede(base, 'fact/v2', 500, { seq: 3 })).toThrow(LongTermArgumentError);
    expect(() => supersede(base, 'fact/v2', 0)).toThrow(LongTermArgumentError);
  });
});

describe('restore', () => {
  it('reverses a supersede: the same content, active again, at a newer seq', () => {
    const restored = restore(supersede(base, 'fact/v2', 500));
    expect(restored).toEqual({ ...base, seq: 6 });
  });

  it('is harmless on an active record', () => {
    expect(restore(base, { seq: 9 })).toEqual({ ...base, seq: 9 });
  });
});

describe('walkSupersedeChain', () => {
  const rec = (key: string, supersededBy = '', supersededAtMs = 0): LongTermRecord => ({ ...base, key, supersededBy, supersededAtMs });
  const lookups = (records: LongTermRecord[]) => ({
    load: async (key: string) => records.find((r) => r.key === key),
    predecessors: async (key: string) => records.filter((r) => r.supersededBy === key),
  });

  it('walks back through predecessors (oldest first) and forward through replacements', async () => {
    const records = [rec('a', 'b', 10), rec('b', 'c', 20), rec('x', 'b', 5), rec('c')];
    expect((await walkSupersedeChain('b', lookups(records), 64)).map((r) => r.key)).toEqual(['x', 'a', 'b', 'c']);
  });

  it('stops at cycles and at the length bound', async () => {
    const cycle = [rec('a', 'b', 1), rec('b', 'a', 2)];
    expect((await walkSupersedeChain('a', lookups(cycle), 64)).map((r) => r.key)).toEqual(['b', 'a']);
    const long = Array.from({ length: 10 }, (_, i) => rec(`k${i}`, i < 9 ? `k${i + 1}` : '', i + 1));
    expect(await walkSupersedeChain('k0', lookups(long), 4)).toHaveLength(4);
  });

  it('returns nothing for an absent key', async () => {
    expect(await walkSupersedeChain('nope', lookups([]), 64)).toEqual([]);
  });
});
