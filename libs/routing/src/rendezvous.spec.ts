// The assignment is a pure function of (P, members); its balance and its movement on join and
// leave are the properties the cluster relies on, so they are checked here without any broker.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignPartitions, rendezvousOwner } from './rendezvous.js';

const members = (n: number): string[] => Array.from({ length: n }, (_, i) => `activator-${i}`);

describe('rendezvous assignment', () => {
  it('gives every partition exactly one owner, independent of member order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 300 }), (ids, partitions) => {
        const a = assignPartitions(partitions, ids);
        const b = assignPartitions(partitions, [...ids].reverse());
        const owned = [...a.values()].flat().sort((x, y) => x - y);
        expect(owned).toEqual(Array.from({ length: partitions }, (_, i) => i));
        for (const id of ids) expect(b.get(id)).toEqual(a.get(id));
      }),
      { seed: 3, numRuns: 100 },
    );
  });

  it('has no owner without members', () => {
    expect(rendezvousOwner(3, [])).toBeUndefined();
  });

  it('moves only the joiner\'s share when a member joins, and only the leaver\'s partitions when one leaves', () => {
    const partitions = 256;
    const before = assignPartitions(partitions, members(4));
    const after = assignPartitions(partitions, members(5));
    let moved = 0;
    for (let p = 0; p < partitions; p += 1) {
      const was = rendezvousOwner(p, members(4));
      const now = rendezvousOwner(p, members(5));
      if (was !== now) {
        moved += 1;
        expect(now).toBe('activator-4');
      }
    }
    expect(moved).toBe(after.get('activator-4')?.length);
    expect(moved).toBeGreaterThan(partitions / 5 / 2);
    expect(moved).toBeLessThan((partitions / 5) * 2);
    const leaver = before.get('activator-3') ?? [];
    for (let p = 0; p < partitions; p += 1) {
      if (!leaver.includes(p)) expect(rendezvousOwner(p, members(3))).toBe(rendezvousOwner(p, members(4)));
    }
  });

  it('balances within a factor that shrinks as P grows (max/mean partitions per member)', () => {
    for (const [partitions, bound] of [
      [256, 1.6],
      [4096, 1.15],
    ] as const) {
      const loads = [...assignPartitions(partitions, members(8)).values()].map((l) => l.length);
      const mean = partitions / 8;
      expect(Math.max(...loads) / mean).toBeLessThan(bound);
    }
  });
});
