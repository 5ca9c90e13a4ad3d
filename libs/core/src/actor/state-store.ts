import { RetryableError } from '../errors/runtime-error.js';
import type { ActorDocument } from './actor-document.js';

/** A committed document and the store revision it was read at (the CAS token of the next commit). */
export interface StoredActor {
  readonly doc: ActorDocument;
  readonly revision: number;
  /** Size of the stored encoding, when the store knows it (the actor cache weighs entries by it; absent: re-encoded to measure). */
  readonly bytes?: number;
}

/**
 * The optimistic-concurrency write lost: someone wrote the key since `revision` was read.
 * Retryable by type; the runtime re-reads, and the re-read decides between duplicate, fenced
 * (a higher owner epoch) and a fresh attempt.
 */
export class CommitConflict extends RetryableError {
  override readonly name = 'CommitConflict';
}

/**
 * Where actor documents live (JetStream KV `AGENTS_STATE` in the services). Implementations must
 * make `commit` a compare-and-set on `expectedRevision` (`undefined` = create only if absent)
 * and throw {@link CommitConflict} when it does not hold; any other failure may have written or
 * not (ambiguous) and must be a retryable error, after which the runtime re-reads.
 */
export interface StateStore {
  /** The committed document, or undefined for a key that never committed (or was erased). */
  load(stateKey: string): Promise<StoredActor | undefined>;
  /** CAS-writes `bytes`; resolves to the new revision. */
  commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number>;
}
