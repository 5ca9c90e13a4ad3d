/**
 * The closed vocabulary of error-record reasons (invariant 1: a record means the element
 * committed nothing else). Operators alert and triage on these strings; they are a
 * compatibility contract and appear as the last token of `agents.errors.<agent>.<reason>`.
 */
export const ErrorReason = {
  /** The agent threw (or a flush it caused failed); detail names the error and its step. Fix the agent. */
  ActivationError: 'activation_error',
  /** The activation outran its timeout and was abandoned with zero mutation. Check model latency or raise the timeout. */
  ActivationTimeout: 'activation_timeout',
  /** The agent exceeded its token budget and did not catch it. Raise the budget or shorten the loop. */
  BudgetExceeded: 'budget_exceeded',
  /** A tool result or approval failed admission (no continuation, unknown intent, deadline or expiry passed). Usually a late answer. */
  OrphanedResult: 'orphaned_result',
  /** A human-in-the-loop deadline passed under the `drop` policy. Nobody answered in time. */
  HitlTimeout: 'hitl_timeout',
  /** Idle-TTL reclamation wiped a key that was still suspended. The wait outlived the TTL. */
  TtlWipedSuspension: 'ttl_wiped_suspension',
  /** An event arrived while the key's deferred-event queue was full. The key is suspended too long for its traffic. */
  DeferredOverflow: 'deferred_overflow',
  /** Ingress (or the activator, for a direct publish): the message could not be read (bad subject shape, header or body) or the agent's validateEvent refused it. Fix the publisher. */
  MalformedInput: 'malformed_input',
  /** Ingress (or the activator, for a direct publish): no agent of that name is deployed. Check AGENTS_MODULES or the subject. */
  UnknownAgent: 'unknown_agent',
  /** Ingress (or the activator, for a direct publish): the entity key is empty, too long or not canonically encoded. Fix the publisher's key. */
  KeyInvalid: 'key_invalid',
  /** Ingress (or the activator, for a direct publish): the payload is larger than the configured limit. Shrink the event or raise the limit. */
  PayloadTooLarge: 'payload_too_large',
  /**
   * Activator: the key's state document cannot be trusted (it does not decode, or it claims an
   * owner epoch or applied sequence no writer can have produced). The key is quarantined: each of
   * its elements becomes this record, naming its inbox message, and is acknowledged, while the
   * partition's other keys go on. Repair: `nats-agents state reset`, then `nats-agents errors redrive`.
   */
  StateQuarantined: 'state_quarantined',
  /**
   * Effector: an intent failed signature verification and was never executed. Activator: a tool
   * result, approval or timer firing carries an `Agents-Auth` seal that does not verify; it was
   * never applied. A forgery, or a publisher with the wrong key. Check signing keys.
   */
  BadSignature: 'bad_signature',
  /** Effector: an intent carried no signature while verification requires one. */
  UnsignedIntent: 'unsigned_intent',
  /** Effector or activator: an intent or element was signed with a key id this service's keyring does not hold. */
  UnknownSigningKey: 'unknown_signing_key',
  /**
   * Activator: a tool result, approval or timer firing carries no `Agents-Auth` seal while
   * `activator.verification` is `require`; it was never applied. Answer over HTTP (ingress seals for
   * the authenticated caller) or seal with a cluster key.
   */
  UnsignedElement: 'unsigned_element',
} as const;

export type ErrorReason = (typeof ErrorReason)[keyof typeof ErrorReason];

const reasons: ReadonlySet<string> = new Set(Object.values(ErrorReason));

/** True when `value` is a member of the closed reason vocabulary. */
export function isErrorReason(value: string): value is ErrorReason {
  return reasons.has(value);
}
