// Compaction decides what a long-lived key forgets; it must be deterministic and respect protected
// keys, so it is pinned here on the pure working-memory facade without any runtime.
import { describe, expect, it } from 'vitest';
import { DropOldestCompactor } from './drop-oldest-compactor.js';
import { MemoryOverflow } from './memory-overflow.js';
import { WorkingMemory } from './working-memory.js';

const KIB = 1024;
const filled = (bytes: number): string => 'x'.repeat(bytes);

function memoryWith(compactor: DropOldestCompactor | undefined, hardCapBytes = 100 * KIB): WorkingMemory {
  return WorkingMemory.fromBlob(undefined, { nowMs: 1, hardCapBytes, ...(compactor ? { compactor } : {}) });
}

describe('DropOldestCompactor', () => {
  it('lets an over-cap write succeed by evicting least recently used entries down to the target', () => {
    const memory = memoryWith(new DropOldestCompactor({ targetBytes: 50 * KIB }), 100 * KIB);
    // 70 KiB: just under the 75 % soft cap, so nothing has been compacted yet.
    for (let i = 0; i < 7; i += 1) memory.set(`k${i}`, filled(10 * KIB));
    memory.get('k0'); // k0 becomes most recently used: k1 is now the oldest
    memory.set('big', filled(35 * KIB));
    expect(memory.has('k0')).toBe(true);
    expect(memory.has('k1')).toBe(false);
    expect(memory.has('big')).toBe(true);
    expect(memory.sizeBytes).toBeLessThanOrEqual(100 * KIB);
  });

  it('never evicts protected keys, and still refuses the write when only they remain', () => {
    const memory = memoryWith(new DropOldestCompactor({ targetBytes: 10 * KIB }), 100 * KIB);
    memory.set('__profile', filled(60 * KIB));
    memory.set('history', filled(30 * KIB));
    expect(() => memory.set('more', filled(50 * KIB))).toThrow(MemoryOverflow);
    expect(memory.has('__profile')).toBe(true);
    // The compaction itself was staged even though the write was refused.
    expect(memory.has('history')).toBe(false);
  });

  it('evicts the same keys on a replay of the same activation', () => {
    const run = (): string[] => {
      const memory = memoryWith(new DropOldestCompactor({ targetBytes: 40 * KIB }), 100 * KIB);
      for (let i = 0; i < 9; i += 1) memory.set(`k${i}`, filled(10 * KIB));
      memory.get('k3');
      memory.set('k9', filled(20 * KIB));
      return memory.keys();
    };
    expect(run()).toEqual(run());
  });

  it('runs once when the soft cap is first crossed, shrinking to the target', () => {
    const memory = memoryWith(new DropOldestCompactor({ targetBytes: 20 * KIB }), 100 * KIB);
    for (let i = 0; i < 8; i += 1) memory.set(`k${i}`, filled(10 * KIB));
    expect(memory.sizeBytes).toBeLessThanOrEqual(30 * KIB);
    expect(memory.softCapCrossed).toBe(true);
  });

  it('keeps the strict contract without a compactor', () => {
    const memory = memoryWith(undefined, 100 * KIB);
    memory.set('a', filled(90 * KIB));
    expect(() => memory.set('b', filled(20 * KIB))).toThrow(MemoryOverflow);
    expect(memory.keys()).toEqual(['a']);
  });

  it('propagates a compactor failure unchanged', () => {
    const boom = new Error('compactor broke');
    const memory = WorkingMemory.fromBlob(undefined, {
      nowMs: 1,
      hardCapBytes: 10 * KIB,
      compactor: {
        compact: () => {
          throw boom;
        },
      },
    });
    expect(() => memory.set('a', filled(20 * KIB))).toThrow(boom);
  });

  it('refuses a non-positive target', () => {
    expect(() => new DropOldestCompactor({ targetBytes: 0 })).toThrow(RangeError);
  });
});
