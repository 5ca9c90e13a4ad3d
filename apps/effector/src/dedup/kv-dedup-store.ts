/**
 * The {@link DedupStore} over JetStream KV (`AGENTS_EFFECTS`, key = intent id, history 1, TTL =
 * `effector.resultTtlMs`). A claim is `kv.create` (the server refuses a second create: error
 * 10071), a takeover of an ended lease is `kv.update` at the revision read, a completion is a
 * `kv.update` at the claim's own revision (a conflict falls back to a token check then
 * `kv.update` at the revision read), a release is `kv.delete` at that revision. Creates and
 * updates are sent as the KV client sends them, through the pipelined publisher
 * ({@link PipelinedKvWrites}): the same conditions, without a request per write; reads (after a
 * lost race) are direct gets through the same publisher ({@link PipelinedKvReads}).
 * Every write is therefore a compare-and-set the server enforces; two replicas racing for one
 * intent get exactly one `claimed`.
 *
 * Leases and retention are decided by the reading replica's clock (`claim-decision.ts`), not by
 * the server: replicas' clocks must agree to well within the lease (a replica whose clock runs
 * ahead by more than the lease minus the tool time can take over a live claim — the intent may
 * then run twice). The bucket's TTL only reclaims space: a record of a completed intent vanishes
 * `resultTtlMs` after its last write, at which point a redelivery would execute it again.
 */
import type { KV } from '@nats-io/kv';
import { isRevisionConflict, PipelinedKvReads, PipelinedKvWrites, type PubAckPipeline } from '#transport';
import { decideCompletion, mayRelease, readForClaim } from './claim-decision.js';
import { ClaimState, decodeClaimRecord, encodeClaimRecord, type ClaimRecord } from './claim-record.js';
import { DedupStoreUnavailable } from './dedup-errors.js';
import type { ClaimHandle, ClaimOutcome, ClaimRequest, DedupStore } from './dedup-store.js';

/** CAS races one call may lose before it reports the store unavailable (the caller then retries with backoff). */
const MAX_RACES = 8;

interface StoredRecord {
  readonly record: ClaimRecord;
  readonly revision: number;
}

/**
 * {@link DedupStore} over the effects bucket; one instance per process, shared by every intent in
 * flight. Safe across replicas and restarts: all coordination is in the bucket.
 */
export class KvDedupStore implements DedupStore {
  /** Handles returned by {@link claim}: only these complete without a read (held weakly; a process restart forgets them, and its redelivery claims anew). */
  private readonly issued = new WeakSet<ClaimHandle>();

  private readonly reads: PipelinedKvReads;
  private readonly writes: PipelinedKvWrites;

  /**
   * @param kv the effects bucket, opened (never created) by the caller after provisioning: reads.
   * @param acks the connection's pipelined publisher: every write goes through it, as the KV client would send it.
   * @param bucket the effects bucket's name.
   * @param nowMs the effector's clock (epoch ms) for leases and retention.
   */
  constructor(
    private readonly kv: KV,
    acks: PubAckPipeline,
    bucket: string,
    private readonly nowMs: () => number,
  ) {
    this.reads = new PipelinedKvReads(kv, acks, bucket);
    this.writes = new PipelinedKvWrites(this.reads, acks, bucket);
  }

  async claim(intentId: string, request: ClaimRequest): Promise<ClaimOutcome> {
    for (let race = 0; race < MAX_RACES; race += 1) {
      const now = this.nowMs();
      const leaseUntilMs = now + request.leaseMs;
      const value = encodeClaimRecord({ state: ClaimState.Claimed, token: request.token, leaseUntilMs });
      try {
        const revision = await this.writes.create(intentId, value);
        return { kind: 'claimed', claim: this.issue(request.token, revision), leaseUntilMs };
      } catch (error) {
        if (!isRevisionConflict(error)) throw unavailable(`claiming ${intentId}`, error);
      }
      const current = await this.read(intentId);
      if (current === undefined) continue; // released or expired between the create and the read
      const reading = readForClaim(current.record, request.token, now);
      switch (reading.kind) {
        case 'mine':
          return { kind: 'claimed', claim: this.issue(request.token, current.revision), leaseUntilMs: reading.leaseUntilMs };
        case 'done':
          return { kind: 'done', result: reading.result };
        case 'in_flight':
          return { kind: 'in_flight', leaseUntilMs: reading.leaseUntilMs };
        case 'reclaimable':
          try {
            const revision = await this.writes.put(intentId, value, current.revision);
            return { kind: 'claimed', claim: this.issue(request.token, revision), leaseUntilMs };
          } catch (error) {
            if (!isRevisionConflict(error)) throw unavailable(`taking over ${intentId}`, error);
          }
      }
    }
    throw new DedupStoreUnavailable(`claiming ${intentId} lost ${MAX_RACES} compare-and-set races in a row`);
  }

  async complete(intentId: string, claim: ClaimHandle, result: Uint8Array, retainMs: number): Promise<boolean> {
    // The common case first, without a read: a handle this store issued names the revision at
    // which it wrote that token's claimed record, which `decideCompletion` would answer 'write'
    // while it is still the last one; the server's revision check proves it is. Any other record
    // (a takeover, an expiry, a completion whose answer was lost) is a revision conflict, and the
    // read below decides as before. A handle it did not issue always takes the read.
    if (this.issued.has(claim)) {
      try {
        await this.writes.put(intentId, this.doneRecord(claim, result, retainMs), claim.revision);
        return true;
      } catch (error) {
        if (!isRevisionConflict(error)) throw unavailable(`completing ${intentId}`, error);
      }
    }
    for (let race = 0; race < MAX_RACES; race += 1) {
      const current = await this.read(intentId);
      const decision = decideCompletion(current?.record, claim.token, result);
      if (decision === 'lost') return false;
      if (decision === 'already_done') return true;
      if (current === undefined) return false;
      try {
        await this.writes.put(intentId, this.doneRecord(claim, result, retainMs), current.revision);
        return true;
      } catch (error) {
        if (!isRevisionConflict(error)) throw unavailable(`completing ${intentId}`, error);
      }
    }
    throw new DedupStoreUnavailable(`completing ${intentId} lost ${MAX_RACES} compare-and-set races in a row`);
  }

  async release(intentId: string, claim: ClaimHandle): Promise<boolean> {
    const current = await this.read(intentId);
    if (current === undefined || !mayRelease(current.record, claim.token)) return false;
    try {
      await this.kv.delete(intentId, { previousSeq: current.revision });
      return true;
    } catch (error) {
      if (isRevisionConflict(error)) return false;
      throw unavailable(`releasing ${intentId}`, error);
    }
  }

  /** A handle for the claimed record `token` wrote at `revision`, remembered as issued (by identity: a copy is not). */
  private issue(token: string, revision: number): ClaimHandle {
    const handle: ClaimHandle = { token, revision };
    this.issued.add(handle);
    return handle;
  }

  private doneRecord(claim: ClaimHandle, result: Uint8Array, retainMs: number): Uint8Array {
    return encodeClaimRecord({ state: ClaimState.Done, token: claim.token, retainUntilMs: this.nowMs() + retainMs, result });
  }

  private async read(intentId: string): Promise<StoredRecord | undefined> {
    let entry;
    try {
      entry = await this.reads.get(intentId);
    } catch (error) {
      throw unavailable(`reading ${intentId}`, error);
    }
    if (entry === null || entry.operation !== 'PUT') return undefined;
    return { record: decodeClaimRecord(intentId, entry.value), revision: entry.revision };
  }
}

function unavailable(what: string, error: unknown): DedupStoreUnavailable {
  return new DedupStoreUnavailable(`${what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
