// Layer 1: the reconciliation rules of the facts agent (seed 004) and the stable prompt.
import { describe, expect, it } from 'vitest';
import { losers, reconcilePrompt, type IndexedFact } from './facts.agent.js';

const f = (key: string, subject: string, value: string, confidence: number, seq: number): IndexedFact => ({ key, subject, value, confidence, seq });
const index = (...facts: IndexedFact[]) => new Map(facts.map((x) => [x.key, x]));

describe('losers', () => {
  it('keeps the higher confidence of two duplicates, whichever is newer', () => {
    const facts = index(f('a', 's', '8', 0.9, 1), f('b', 's', '8 h', 0.6, 2));
    expect(losers({ duplicates: [['a', 'b']], conflicts: [] }, facts)).toEqual([{ key: 'b', by: 'a', why: 'duplicate' }]);
  });

  it('keeps the newer of two duplicates of equal confidence', () => {
    const facts = index(f('a', 's', '8', 0.5, 1), f('b', 's', '8', 0.5, 2));
    expect(losers({ duplicates: [['b', 'a']], conflicts: [] }, facts)).toEqual([{ key: 'a', by: 'b', why: 'duplicate' }]);
  });

  it('keeps the newer of two conflicting facts, whatever their confidence', () => {
    const facts = index(f('a', 's', '8', 0.99, 1), f('b', 's', '12', 0.1, 2));
    expect(losers({ duplicates: [], conflicts: [['a', 'b']] }, facts)).toEqual([{ key: 'a', by: 'b', why: 'conflict' }]);
  });

  it('ignores pairs naming unknown facts or one fact twice, and retires a fact once', () => {
    const facts = index(f('a', 's', '1', 0.5, 1), f('b', 's', '2', 0.5, 2), f('c', 's', '3', 0.5, 3));
    expect(losers({ duplicates: [['a', 'zz'], ['a', 'a']], conflicts: [['a', 'b'], ['a', 'c']] }, facts)).toEqual([{ key: 'a', by: 'b', why: 'conflict' }]);
  });
});

describe('reconcilePrompt', () => {
  it('is the same bytes whatever order the index holds the facts in', () => {
    const x = f('fact/a/1', 'a', '1', 0.5, 1);
    const y = f('fact/b/2', 'b', '2', 0.5, 2);
    expect(reconcilePrompt([x, y])).toBe(reconcilePrompt([y, x]));
  });
});
