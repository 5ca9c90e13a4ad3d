// Layer 1: a partition owner commits only under a locally valid lease — the guard that fences a
// resumed stale owner on keys its successor has not written yet (the epoch fences the rest).
import { describe, expect, it } from 'vitest';
import { RetryableError, type StateStore, type StoredActor } from '#core';
import { LeaseGuardedStateStore, LeaseLapsed } from './lease-guarded-state-store.js';

function recordingStore(): StateStore & { readonly commits: string[] } {
  const commits: string[] = [];
  return {
    commits,
    load: (stateKey) => Promise.resolve(stateKey === 'counter.a' ? ({ revision: 7 } as unknown as StoredActor) : undefined),
    commit: (stateKey, _bytes, expected) => {
      commits.push(`${stateKey}@${expected ?? 'new'}`);
      return Promise.resolve((expected ?? 0) + 1);
    },
  };
}

describe('LeaseGuardedStateStore', () => {
  it('passes a commit through while the partition lease is held', async () => {
    const inner = recordingStore();
    const store = new LeaseGuardedStateStore(inner, () => true);
    await expect(store.commit('counter.a', new Uint8Array([1]), 7)).resolves.toBe(8);
    expect(inner.commits).toEqual(['counter.a@7']);
  });

  it('refuses a commit after the lease lapsed, before it reaches the server, as a retryable error', async () => {
    const inner = recordingStore();
    const held = new Set(['counter.b']);
    const store = new LeaseGuardedStateStore(inner, (stateKey) => held.has(stateKey));
    const refused = store.commit('counter.a', new Uint8Array([1]), 7);
    await expect(refused).rejects.toBeInstanceOf(LeaseLapsed);
    await expect(refused).rejects.toBeInstanceOf(RetryableError);
    await store.commit('counter.b', new Uint8Array([1]), undefined);
    expect(inner.commits).toEqual(['counter.b@new']);
  });

  it('checks the lease at the moment of each write, not when the store was built', async () => {
    const inner = recordingStore();
    let valid = true;
    const store = new LeaseGuardedStateStore(inner, () => valid);
    await store.commit('counter.a', new Uint8Array([1]), 1);
    valid = false;
    await expect(store.commit('counter.a', new Uint8Array([1]), 2)).rejects.toBeInstanceOf(LeaseLapsed);
    expect(inner.commits).toEqual(['counter.a@1']);
  });

  it('still loads without a lease (reads never change state)', async () => {
    const store = new LeaseGuardedStateStore(recordingStore(), () => false);
    await expect(store.load('counter.a')).resolves.toEqual({ revision: 7 });
  });
});
