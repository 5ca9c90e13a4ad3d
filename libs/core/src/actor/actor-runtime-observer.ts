import type { ModelCallRecord } from '../activation/activation-tally.js';
import type { ErrorReason } from '../vocabulary/error-reason.js';
import type { ActivationReport } from './apply-result.js';

/**
 * Telemetry hooks of the actor runtime. Implementations count and log; they never influence a
 * decision and must not throw.
 */
export interface ActorRuntimeObserver {
  /**
   * A commit landed (activation, failure record or orphan). Called once per commit, after its
   * outbox publish returned or failed (a failed publish is retried through the duplicate path,
   * which does not report the commit again).
   */
  committed?(stateKey: string, report: ActivationReport, documentBytes: number): void;
  /** A redelivered element was recognised as already applied. */
  duplicate?(stateKey: string, inboxSeq: number): void;
  /** The CAS lost; the runtime re-reads. */
  conflict?(stateKey: string): void;
  /** A higher owner epoch was found; this writer stops. */
  fenced?(stateKey: string, storedEpoch: number, ownEpoch: number): void;
  /** The element will be retried after `delayMs` because of `error` (an outage, a future schema, ...). */
  retrying?(stateKey: string, error: Error, attempt: number, delayMs: number): void;
  /** Working memory crossed its soft cap. */
  softCap?(stateKey: string): void;
  /** A direct element of an agent not hosted here was refused with a record and no commit. */
  refused?(stateKey: string, reason: ErrorReason): void;
  /** The key's stored document is corrupt or impossible: the element got a `state_quarantined` record. */
  quarantined?(stateKey: string, detail: string): void;
  /**
   * A model call of the running attempt was answered: by the provider (`cacheHit` false), or by
   * the replay cache or an earlier uncommitted attempt (`cacheHit` true). Called synchronously,
   * inside the activation's asynchronous context, so a tracer can attach the call to the
   * activation's span. A retried or replayed attempt reports its calls again, as cache hits when
   * they were remembered; an attempt that is later discarded still reported them.
   */
  modelCall?(stateKey: string, call: ModelCallRecord): void;
}
