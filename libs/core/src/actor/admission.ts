import { IntentKind, type ActorDocument, type ToolIntentDoc } from './actor-document.js';
import { ToolResultStatus, type ApprovalDoc, type ToolResultDoc } from './inbox-element.js';

/** Why an answer was refused (the prefix of an `orphaned_result` detail). */
export const OrphanReason = {
  /** The key is not suspended (never was, or the suspension already ended). */
  NoContinuation: 'no_continuation',
  /** The suspension does not wait for this intent id (or not for this kind of answer). */
  UnknownIntent: 'unknown_intent',
  /** The answer's event time is at or after the suspension deadline. */
  DeadlinePassed: 'deadline_passed',
  /** The answered intent itself had expired when the answer was made. */
  IntentExpired: 'intent_expired',
} as const;
export type OrphanReason = (typeof OrphanReason)[keyof typeof OrphanReason];

/** The admission decision for a tool result or approval. */
export type Admission =
  | { readonly kind: 'admitted'; readonly intent: ToolIntentDoc | undefined }
  | { readonly kind: 'refused'; readonly reason: OrphanReason; readonly detail: string };

/** An answer re-entering a key. */
export type Answer = { readonly kind: 'result'; readonly result: ToolResultDoc } | { readonly kind: 'approval'; readonly approval: ApprovalDoc };

/**
 * Fail-closed layer 1 (invariant 6): an answer resumes the key only when a continuation exists,
 * waits for this intent id (an approval answers an approval intent, a result a tool intent), the
 * answer's event time is strictly before the deadline, and the intent had not expired. An
 * `expired` tool result is exempt from the expiry check: the effector refusing an expired intent
 * is itself the answer, so the agent can take a degraded path. Pure: the same state and answer
 * always decide the same way.
 */
export function admit(state: ActorDocument, answer: Answer, eventTimeMs: number): Admission {
  const id = answer.kind === 'result' ? answer.result.intentId : answer.approval.intentId;
  const refuse = (reason: OrphanReason): Admission => ({ kind: 'refused', reason, detail: `${reason}:${id}` });
  const continuation = state.continuation;
  if (continuation === undefined) return refuse(OrphanReason.NoContinuation);
  if (!continuation.pendingIntentIds.includes(id)) return refuse(OrphanReason.UnknownIntent);
  const intent = state.pending.find((i) => i.intentId === id);
  if (intent !== undefined && (intent.kind === IntentKind.Approval) !== (answer.kind === 'approval')) return refuse(OrphanReason.UnknownIntent);
  if (continuation.deadlineMs <= 0 || eventTimeMs >= continuation.deadlineMs) return refuse(OrphanReason.DeadlinePassed);
  const expiredAnswer = answer.kind === 'result' && answer.result.status === ToolResultStatus.Expired;
  if (intent !== undefined && !expiredAnswer && (intent.expiresAtMs <= 0 || eventTimeMs >= intent.expiresAtMs)) {
    return refuse(OrphanReason.IntentExpired);
  }
  return { kind: 'admitted', intent };
}
