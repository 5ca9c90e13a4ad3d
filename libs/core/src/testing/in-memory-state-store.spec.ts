// The in-memory store stands in for JetStream KV in every runtime spec, so its CAS and fault semantics are checked on their own: a lenient fake would let the runtime specs pass for the wrong reason.
import { describe, expect, it } from 'vitest';
import { emptyActorDocument } from '../actor/actor-document.js';
import { encodeActorDocument, StateSchemaFromFuture } from '../actor/state-codec.js';
import { CommitConflict } from '../actor/state-store.js';
import { RetryableError } from '../errors/runtime-error.js';
import { InjectedStoreFault, InMemoryStateStore } from './in-memory-state-store.js';
import { utf8Bytes } from './inbox-elements.js';

const doc = (seq: number): Uint8Array => encodeActorDocument({ ...emptyActorDocument('a', utf8Bytes('k')), seq });

describe('InMemoryStateStore', () => {
  it('creates only when absent and updates only at the expected revision', async () => {
    const store = new InMemoryStateStore();
    expect(await store.load('a.k')).toBeUndefined();
    const first = await store.commit('a.k', doc(1), undefined);
    await expect(store.commit('a.k', doc(2), undefined)).rejects.toBeInstanceOf(CommitConflict);
    await expect(store.commit('a.k', doc(2), first + 5)).rejects.toBeInstanceOf(CommitConflict);
    const second = await store.commit('a.k', doc(2), first);
    expect(second).toBeGreaterThan(first);
    expect(await store.load('a.k')).toMatchObject({ revision: second, doc: { seq: 2 } });
  });

  it('uses one increasing revision sequence across keys, like a KV stream', async () => {
    const store = new InMemoryStateStore();
    const a = await store.commit('a.k', doc(1), undefined);
    const b = await store.commit('a.j', doc(1), undefined);
    expect(b).toBe(a + 1);
  });

  it('fails the Nth commit before writing, leaving the value as it was', async () => {
    const store = new InMemoryStateStore().failCommit(2, 'before-write');
    const revision = await store.commit('a.k', doc(1), undefined);
    await expect(store.commit('a.k', doc(2), revision)).rejects.toBeInstanceOf(InjectedStoreFault);
    expect(store.doc('a.k')?.seq).toBe(1);
    expect(await store.commit('a.k', doc(3), revision)).toBeGreaterThan(revision);
  });

  it('fails the Nth commit after writing (ambiguous): the value landed and the error is retryable', async () => {
    const store = new InMemoryStateStore().failCommit(1, 'after-write');
    const error = await store.commit('a.k', doc(1), undefined).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RetryableError);
    expect(store.doc('a.k')?.seq).toBe(1);
    expect(store.writes).toHaveLength(1);
  });

  it('decodes through the production codec, so a future schema fails the load', async () => {
    const store = new InMemoryStateStore();
    store.put('a.k', encodeActorDocument({ ...emptyActorDocument('a', utf8Bytes('k')), stateSchemaVersion: 2 }));
    await expect(store.load('a.k')).rejects.toBeInstanceOf(StateSchemaFromFuture);
  });

  it('keeps its own copy of the bytes it was given', async () => {
    const store = new InMemoryStateStore();
    const bytes = doc(1);
    await store.commit('a.k', bytes, undefined);
    bytes.fill(0);
    expect(store.doc('a.k')?.seq).toBe(1);
  });
});
