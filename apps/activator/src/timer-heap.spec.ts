// The heap orders every timer firing of a partition; it is plain data structure code, so its order (including the deterministic tie-break) is checked here against a sort, without a scheduler or a clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimerHeap, type HeapEntry } from './timer-heap.js';

const entry = (fireAtMs: number, stateKey = 'a.k', timerId = 't'): HeapEntry => ({ fireAtMs, dueAtMs: fireAtMs, stateKey, timerId });

function drain(heap: TimerHeap): HeapEntry[] {
  const out: HeapEntry[] = [];
  for (let next = heap.pop(); next !== undefined; next = heap.pop()) out.push(next);
  return out;
}

describe('TimerHeap', () => {
  it('is empty at first: no peek, no pop, size 0', () => {
    const heap = new TimerHeap();
    expect([heap.size, heap.peek(), heap.pop()]).toEqual([0, undefined, undefined]);
  });

  it('pops in firing order, breaking ties by state key then timer id', () => {
    const heap = new TimerHeap();
    for (const e of [entry(30), entry(10, 'b.k', 'y'), entry(10, 'a.k', 'z'), entry(10, 'b.k', 'x'), entry(20)]) heap.push(e);
    expect(heap.peek()).toEqual(entry(10, 'a.k', 'z'));
    expect(heap.size).toBe(5);
    expect(drain(heap).map((e) => `${e.fireAtMs}:${e.stateKey}:${e.timerId}`)).toEqual(['10:a.k:z', '10:b.k:x', '10:b.k:y', '20:a.k:t', '30:a.k:t']);
    expect(heap.size).toBe(0);
  });

  it('keeps duplicates: the scheduler discards stale copies when it pops them', () => {
    const heap = new TimerHeap();
    heap.push(entry(5));
    heap.push(entry(5));
    expect(drain(heap)).toEqual([entry(5), entry(5)]);
  });

  it('agrees with a sort for any interleaving of pushes and pops', () => {
    const op = fc.oneof(fc.record({ push: fc.tuple(fc.integer({ min: 0, max: 50 }), fc.constantFrom('a.k', 'b.k'), fc.constantFrom('x', 'y')) }), fc.constant({ pop: true as const }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const heap = new TimerHeap();
        const model: HeapEntry[] = [];
        const order = (x: HeapEntry, y: HeapEntry): number => x.fireAtMs - y.fireAtMs || (x.stateKey < y.stateKey ? -1 : x.stateKey > y.stateKey ? 1 : x.timerId < y.timerId ? -1 : x.timerId > y.timerId ? 1 : 0);
        for (const o of ops) {
          if ('push' in o) {
            const e = entry(...o.push);
            heap.push(e);
            model.push(e);
            model.sort(order);
          } else {
            expect(heap.pop()).toEqual(model.shift());
          }
          expect(heap.size).toBe(model.length);
        }
        expect(drain(heap)).toEqual(model);
      }),
      { seed: 11, numRuns: 200 },
    );
  });
});
