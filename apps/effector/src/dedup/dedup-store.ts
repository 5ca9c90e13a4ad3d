/**
 * The effector's dedup store port (ARCHITECTURE §7, beam-agents §1.18): a three-state claim
 * protocol per intent id that lets several effector replicas share one intent stream and still
 * dispatch each intent at most once while its claim holds, and agree on one terminal result.
 * Adapters: `KvDedupStore` (JetStream KV, the deployment store) and `InMemoryDedupStore` (one
 * process; specs). Both pass the one conformance suite in `test/effector/dedup-conformance.ts`.
 */

/** Proof of ownership returned by a successful claim; `complete` and `release` check it. */
export interface ClaimHandle {
  /** The caller's random token, stored in the record (a non-owner cannot present it). */
  readonly token: string;
  /** The store revision the claim was written at (KV: the entry revision). */
  readonly revision: number;
}

/** What a claim asks for. */
export interface ClaimRequest {
  /**
   * A random token, fresh for every delivery being processed and reused across retries of the
   * same claim: a claim whose write landed but whose answer was lost (a timeout) is recognised as
   * this caller's on the retry instead of reading as someone else's live lease.
   */
  readonly token: string;
  /** How long the claim protects the execution from other replicas (must exceed the tool timeout). */
  readonly leaseMs: number;
}

/** The answer to a claim (a closed union: handle it with an exhaustive switch). */
export type ClaimOutcome =
  /** The caller owns the intent until `leaseUntilMs`: execute it, then `complete` (or `release`). */
  | { readonly kind: 'claimed'; readonly claim: ClaimHandle; readonly leaseUntilMs: number }
  /** Another claim holds a live lease: wait and ask again. NEVER skip it, NEVER execute it. */
  | { readonly kind: 'in_flight'; readonly leaseUntilMs: number }
  /** Completed: the stored `ToolResult` bytes, to be republished verbatim. NEVER execute again. */
  | { readonly kind: 'done'; readonly result: Uint8Array };

/**
 * The dedup store. Every operation is atomic against concurrent callers (two concurrent claims:
 * exactly one `claimed`). Expiry is decided against the store's clock at read time: a claim whose
 * lease ended — exactly at `leaseUntilMs` included — is re-claimable (a new token takes it over);
 * a done record older than its retention reads as never seen (the intent would execute again, so
 * keep the retention above the longest intent TTL and redelivery lag).
 *
 * Failures of the backing store reject with a `RetryableError` (`DedupStoreUnavailable`,
 * `ClaimRecordUnreadable`); callers retry in place. An ambiguous write (timeout) may have landed:
 * `claim` with the same token and `complete` with the same result bytes are safe to repeat.
 */
export interface DedupStore {
  /**
   * Claims `intentId` for `request.leaseMs`, or reports it in flight or done. Redelivery of a
   * completed intent gets `done` with byte-identical result bytes for as long as they are retained.
   */
  claim(intentId: string, request: ClaimRequest): Promise<ClaimOutcome>;
  /**
   * Records the terminal result if `claim` still owns the intent (its token is in the record,
   * even if the lease has run out, as long as nobody took it over). Returns false when the claim
   * was lost (taken over, released, expired away) or the intent is already done with a different
   * result: the caller MUST then neither publish nor acknowledge. Repeating a successful
   * completion with the same bytes returns true.
   */
  complete(intentId: string, claim: ClaimHandle, result: Uint8Array, retainMs: number): Promise<boolean>;
  /**
   * Gives a claim back before its tool started (shutdown), so another replica can claim at once.
   * Returns false when the caller no longer owns it (a non-owner cannot release).
   */
  release(intentId: string, claim: ClaimHandle): Promise<boolean>;
}
