// The memo is the piece that makes an infrastructure retry provider-free (invariant 3); its contract is tiny and pinned here, its use in actor-runtime-retry.spec.ts.
import { describe, expect, it } from 'vitest';
import { AttemptMemo } from './attempt-memo.js';

describe('AttemptMemo', () => {
  it('remembers responses by cache key and answers nothing else', () => {
    const memo = new AttemptMemo();
    expect(memo.get('a')).toBeUndefined();
    memo.set('a', Uint8Array.from([1]));
    expect(memo.get('a')).toEqual(Uint8Array.from([1]));
    expect(memo.get('b')).toBeUndefined();
    expect(memo.size).toBe(1);
  });

  it('keeps the latest response for a repeated key', () => {
    const memo = new AttemptMemo();
    memo.set('a', Uint8Array.from([1]));
    memo.set('a', Uint8Array.from([2]));
    expect(memo.get('a')).toEqual(Uint8Array.from([2]));
    expect(memo.size).toBe(1);
  });
});
