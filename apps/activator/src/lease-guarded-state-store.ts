import { RetryableError, type StateStore, type StoredActor } from '#core';

/** The writer no longer holds a locally valid lease on the key's partition: the commit was not sent. */
export class LeaseLapsed extends RetryableError {
  override readonly name = 'LeaseLapsed';
}

/**
 * The state store as a partition owner must use it (nats-design §7.4, step 2): a commit is sent
 * only while this member holds a locally valid lease on the key's partition, checked on the
 * monotonic clock at the moment of the write.
 *
 * The owner epoch fences a stale writer only on keys a newer owner has already written. A process
 * that was paused (SIGSTOP, a long GC, a starved VM) past its lease resumes with activations that
 * finish at once and commit on the revisions they read; for a key its successor has not reached
 * yet that CAS still succeeds, under the old epoch, after the takeover (observed in the stale-owner
 * chaos suite). After such a pause the lease's local deadline has passed, so the write is refused
 * here, before it reaches the server; the runtime holds the element and retries, and the partition
 * is dropped by the ownership keep-alive, which aborts the element (left unacked for the new owner).
 * A partition being drained for a hand-back keeps its renewed lease, so its drain still commits.
 */
export class LeaseGuardedStateStore implements StateStore {
  constructor(
    private readonly inner: StateStore,
    /** True while this member holds a locally valid lease on `stateKey`'s partition. */
    private readonly holds: (stateKey: string) => boolean,
  ) {}

  load(stateKey: string): Promise<StoredActor | undefined> {
    return this.inner.load(stateKey);
  }

  commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    if (!this.holds(stateKey)) return Promise.reject(new LeaseLapsed(`not committing ${stateKey}: this activator's lease on its partition has lapsed`));
    return this.inner.commit(stateKey, bytes, expectedRevision);
  }
}
