import type { KV } from '@nats-io/kv';
import { CommitConflict, decodeActorDocument, RetryableError, type StateStore, type StoredActor } from '#core';
import { PipelinedKvReads } from './pipelined-kv-reads.js';
import { isRevisionConflict, PipelinedKvWrites } from './pipelined-kv-writes.js';
import type { PubAckPipeline } from './pub-ack-pipeline.js';

/** A KV operation failed in a way that may or may not have written (timeout, disconnect, outage). */
export class StateStoreUnavailable extends RetryableError {
  override readonly name = 'StateStoreUnavailable';
}

/**
 * The actor-state port over JetStream KV (`AGENTS_STATE`). `commit` is `kv.create` for a key
 * that never committed and otherwise what `kv.update(key, bytes, revision)` sends — a publish to
 * the key's subject with `Nats-Expected-Last-Subject-Sequence: revision` — through the pipelined
 * publisher (`acks`): a revision CAS the server enforces (error 10071 → {@link CommitConflict}).
 * Any other failure is ambiguous and surfaces as {@link StateStoreUnavailable}; the runtime then
 * re-reads before deciding anything. `load` is a direct get through the same pipeline when the
 * bucket allows direct gets ({@link PipelinedKvReads}): the read of every key not in the actor cache.
 */
export class KvStateStore implements StateStore {
  private readonly reads: PipelinedKvReads;
  private readonly writes: PipelinedKvWrites;

  /** `bucket` is the KV's name; its keys live on `$KV.<bucket>.<key>` (no JetStream domain). */
  constructor(
    kv: KV,
    acks: PubAckPipeline,
    bucket: string,
  ) {
    this.reads = new PipelinedKvReads(kv, acks, bucket);
    this.writes = new PipelinedKvWrites(this.reads, acks, bucket);
  }

  async load(stateKey: string): Promise<StoredActor | undefined> {
    let entry;
    try {
      entry = await this.reads.get(stateKey);
    } catch (error) {
      throw new StateStoreUnavailable(`reading ${stateKey} failed: ${(error as Error).message}`, { cause: error });
    }
    if (entry === null || entry.operation !== 'PUT') return undefined;
    return { doc: decodeActorDocument(entry.value), revision: entry.revision, bytes: entry.value.length };
  }

  async commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    try {
      return expectedRevision === undefined ? await this.writes.create(stateKey, bytes) : await this.writes.put(stateKey, bytes, expectedRevision);
    } catch (error) {
      if (isRevisionConflict(error)) {
        throw new CommitConflict(`state of ${stateKey} changed since revision ${expectedRevision ?? 'absent'}`, { cause: error });
      }
      throw new StateStoreUnavailable(`committing ${stateKey} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}
