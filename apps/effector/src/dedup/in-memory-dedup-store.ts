/**
 * A {@link DedupStore} in process memory: correct for one effector process only (replicas do not
 * share it, and a restart forgets everything). For specs and single-process experiments; it
 * passes the same conformance suite as `KvDedupStore`. No I/O; time comes from the injected clock.
 */
import { decideCompletion, mayRelease, readForClaim } from './claim-decision.js';
import { ClaimState, type ClaimRecord } from './claim-record.js';
import type { ClaimHandle, ClaimOutcome, ClaimRequest, DedupStore } from './dedup-store.js';

interface Entry {
  readonly record: ClaimRecord;
  readonly revision: number;
}

/** {@link DedupStore} in one process's memory (see the file header: not for replicas, forgets on restart). */
export class InMemoryDedupStore implements DedupStore {
  private readonly entries = new Map<string, Entry>();
  private lastRevision = 0;

  /** @param nowMs the store's clock (epoch ms): leases and retention are decided against it. */
  constructor(private readonly nowMs: () => number) {}

  claim(intentId: string, request: ClaimRequest): Promise<ClaimOutcome> {
    const now = this.nowMs();
    const existing = this.entries.get(intentId);
    if (existing !== undefined) {
      const reading = readForClaim(existing.record, request.token, now);
      switch (reading.kind) {
        case 'mine':
          return Promise.resolve({ kind: 'claimed', claim: { token: request.token, revision: existing.revision }, leaseUntilMs: reading.leaseUntilMs });
        case 'done':
          return Promise.resolve({ kind: 'done', result: reading.result.slice() });
        case 'in_flight':
          return Promise.resolve({ kind: 'in_flight', leaseUntilMs: reading.leaseUntilMs });
        case 'reclaimable':
          break;
      }
    }
    const leaseUntilMs = now + request.leaseMs;
    const revision = this.write(intentId, { state: ClaimState.Claimed, token: request.token, leaseUntilMs });
    return Promise.resolve({ kind: 'claimed', claim: { token: request.token, revision }, leaseUntilMs });
  }

  complete(intentId: string, claim: ClaimHandle, result: Uint8Array, retainMs: number): Promise<boolean> {
    const existing = this.entries.get(intentId);
    switch (decideCompletion(existing?.record, claim.token, result)) {
      case 'lost':
        return Promise.resolve(false);
      case 'already_done':
        return Promise.resolve(true);
      case 'write':
        this.write(intentId, { state: ClaimState.Done, token: claim.token, retainUntilMs: this.nowMs() + retainMs, result: result.slice() });
        return Promise.resolve(true);
    }
  }

  release(intentId: string, claim: ClaimHandle): Promise<boolean> {
    if (!mayRelease(this.entries.get(intentId)?.record, claim.token)) return Promise.resolve(false);
    this.entries.delete(intentId);
    return Promise.resolve(true);
  }

  /** Intent ids with a record (claimed or done), for assertions. */
  get size(): number {
    return this.entries.size;
  }

  private write(intentId: string, record: ClaimRecord): number {
    this.lastRevision += 1;
    this.entries.set(intentId, { record, revision: this.lastRevision });
    return this.lastRevision;
  }
}
