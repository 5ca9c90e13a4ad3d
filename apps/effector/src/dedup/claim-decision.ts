/**
 * The decisions every dedup-store adapter makes about an existing record, in one pure place, so
 * the KV and in-memory stores cannot drift: what a claim finds, whether a completion or a release
 * is allowed. Expiry is decided here against the caller's clock (a lease ending exactly now is
 * over); the KV bucket's TTL only reclaims space.
 */
import { ClaimState, type ClaimRecord } from './claim-record.js';

/** What a claim finds in an existing record. */
export type ClaimReading =
  /** Claimed under the caller's own token: a retried claim whose first write landed. It owns it. */
  | { readonly kind: 'mine'; readonly leaseUntilMs: number }
  /** Done and retained: republish the result. */
  | { readonly kind: 'done'; readonly result: Uint8Array }
  /** Someone else's live lease. */
  | { readonly kind: 'in_flight'; readonly leaseUntilMs: number }
  /** A lease that ended, or a done record past its retention: take it over by revision CAS. */
  | { readonly kind: 'reclaimable' };

/** Reads an existing record for a claim with `token` at `nowMs`. */
export function readForClaim(record: ClaimRecord, token: string, nowMs: number): ClaimReading {
  switch (record.state) {
    case ClaimState.Done:
      return record.retainUntilMs <= nowMs ? { kind: 'reclaimable' } : { kind: 'done', result: record.result };
    case ClaimState.Claimed:
      if (record.token === token) return { kind: 'mine', leaseUntilMs: record.leaseUntilMs };
      return record.leaseUntilMs <= nowMs ? { kind: 'reclaimable' } : { kind: 'in_flight', leaseUntilMs: record.leaseUntilMs };
  }
}

/** What a completion may do with the current record. */
export type CompletionDecision =
  /** The caller still owns the claim: write the done record (by CAS at the current revision). */
  | 'write'
  /** Already completed by this caller with these exact bytes (a retried completion): success. */
  | 'already_done'
  /** The claim is lost or the intent is done otherwise: refuse; publish nothing, ack nothing. */
  | 'lost';

/** Decides a completion by `token` with `result` against the current record (undefined: gone). */
export function decideCompletion(record: ClaimRecord | undefined, token: string, result: Uint8Array): CompletionDecision {
  if (record === undefined || record.token !== token) return 'lost';
  switch (record.state) {
    case ClaimState.Claimed:
      return 'write';
    case ClaimState.Done:
      return sameBytes(record.result, result) ? 'already_done' : 'lost';
  }
}

/** True when `token` may release the current record: only its own, still-claimed record. */
export function mayRelease(record: ClaimRecord | undefined, token: string): boolean {
  return record !== undefined && record.state === ClaimState.Claimed && record.token === token;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i += 1) if (a[i] !== b[i]) return false;
  return true;
}
