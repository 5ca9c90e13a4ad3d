// Layer 1: defineAgent is the authoring edge, so a sharding setting ingress could not apply fails where it is written.
import { describe, expect, it } from 'vitest';
import { defineAgent } from './define-agent.js';

const handler = (): { kind: 'complete' } => ({ kind: 'complete' });

describe('defineAgent', () => {
  it('accepts a positive shard count for a memory-free agent', () => {
    expect(defineAgent({ name: 'hot', shards: 8, handler }).shards).toBe(8);
  });

  it.each([0, -2, 2.5, Number.NaN])('refuses shards = %s', (shards) => {
    expect(() => defineAgent({ name: 'hot', shards, handler })).toThrow(/shards = .* must be a positive integer/);
  });

  it('accepts isolation worker and refuses an unknown isolation', () => {
    expect(defineAgent({ name: 'heavy', isolation: 'worker', handler }).isolation).toBe('worker');
    expect(() => defineAgent({ name: 'heavy', isolation: 'thread' as 'worker', handler })).toThrow(/isolation = thread; it must be 'event-loop' or 'worker'/);
  });
});
