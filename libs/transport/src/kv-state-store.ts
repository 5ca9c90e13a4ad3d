import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { CommitConflict, decodeActorDocument, RetryableError, type StateStore, type StoredActor } from '#core';

/** A KV operation failed in a way that may or may not have written (timeout, disconnect, outage). */
export class StateStoreUnavailable extends RetryableError {
  override readonly name = 'StateStoreUnavailable';
}

/**
 * The actor-state port over JetStream KV (`AGENTS_STATE`). `commit` is `kv.create` for a key
 * that never committed and `kv.update(key, bytes, revision)` otherwise: a revision CAS the server
 * enforces (error 10071 → {@link CommitConflict}). Any other failure is ambiguous and surfaces
 * as {@link StateStoreUnavailable}; the runtime then re-reads before deciding anything.
 */
export class KvStateStore implements StateStore {
  constructor(private readonly kv: KV) {}

  async load(stateKey: string): Promise<StoredActor | undefined> {
    let entry;
    try {
      entry = await this.kv.get(stateKey);
    } catch (error) {
      throw new StateStoreUnavailable(`reading ${stateKey} failed: ${(error as Error).message}`, { cause: error });
    }
    if (entry === null || entry.operation !== 'PUT') return undefined;
    return { doc: decodeActorDocument(entry.value), revision: entry.revision, bytes: entry.value.length };
  }

  async commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    try {
      return expectedRevision === undefined ? await this.kv.create(stateKey, bytes) : await this.kv.update(stateKey, bytes, expectedRevision);
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence) {
        throw new CommitConflict(`state of ${stateKey} changed since revision ${expectedRevision ?? 'absent'}`, { cause: error });
      }
      throw new StateStoreUnavailable(`committing ${stateKey} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}
