// Layer 1: the in-process adapter must fail like the service path does (retryable outages, terminal argument errors), so the activator can switch between them.
import { describe, expect, it } from 'vitest';
import { LongTermUnavailable } from '#core';
import { MemoryLongTermBackend } from '../backends/memory-long-term-backend.js';
import { LongTermArgumentError } from '../errors.js';
import type { LongTermBackend } from '../long-term-backend.js';
import { InProcessLongTermStore } from './in-process-long-term-store.js';

const scope = { entityKey: new Uint8Array([1]), agent: 'support' };

function backendWith(overrides: Partial<LongTermBackend>): LongTermBackend {
  return Object.assign(new MemoryLongTermBackend(), overrides);
}

describe('InProcessLongTermStore', () => {
  it('passes argument errors through as terminal', async () => {
    const store = new InProcessLongTermStore(new MemoryLongTermBackend());
    await expect(store.load(scope, '', 0)).rejects.toBeInstanceOf(LongTermArgumentError);
  });

  it('turns any other backend failure into LongTermUnavailable', async () => {
    const store = new InProcessLongTermStore(backendWith({ load: () => Promise.reject(new TypeError('socket hang up')) }));
    await expect(store.load(scope, 'k', 0)).rejects.toBeInstanceOf(LongTermUnavailable);
  });

  it('fails a call that outlives the deadline as LongTermUnavailable', async () => {
    const store = new InProcessLongTermStore(backendWith({ search: () => new Promise(() => undefined) }), { deadlineMs: 15 });
    await expect(store.search(scope, '', 0, { limit: 1 })).rejects.toBeInstanceOf(LongTermUnavailable);
  });
});
