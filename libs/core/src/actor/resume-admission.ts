import type { ResolvedSuspensionPolicy } from '../agent/suspension-policy.js';
import { approvalView, toolResultView } from '../activation/tool-result-view.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import type { ActorDocument, ContinuationDoc } from './actor-document.js';
import { admit, type Answer } from './admission.js';
import type { ApplyDeps, ApplyResult } from './apply-result.js';
import { attempt } from './event-attempt.js';
import { recordFailure } from './failure-record.js';
import type { InboxElement } from './inbox-element.js';

/**
 * A tool result or approval for the key: resumes the live suspension when admitted (the intent is
 * pending and the deadline has not passed, see {@link admit}); otherwise one `orphaned_result`
 * record is committed. A redelivered answer is a duplicate before it gets here; a replayed one
 * re-runs the resume from the same committed state and gets the same decision.
 */
export async function resume(state: ActorDocument, element: InboxElement, answer: Answer, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): Promise<ApplyResult> {
  const admission = admit(state, answer, element.eventTimeMs);
  if (admission.kind === 'refused') return recordFailure(state, element, element.inboxSeq, ErrorReason.OrphanedResult, admission.detail, deps, 'orphaned', undefined);
  const continuation = state.continuation as ContinuationDoc;
  // One literal per kind, not `{ ...view, timedOut, … }`: a spread extended with new properties
  // gets a map of its own on every call in Node 20's optimized code (decision 0093).
  const resumed =
    answer.kind === 'result'
      ? { result: toolResultView(answer.result), timedOut: false, snapshot: continuation.snapshot, continuation, answered: answer.result.intentId }
      : { approval: approvalView(answer.approval), timedOut: false, snapshot: continuation.snapshot, continuation, answered: answer.approval.intentId };
  return attempt(
    {
      base: state,
      element,
      lastAppliedSeq: element.inboxSeq,
      seq: continuation.seq,
      stepIndex: continuation.stepIndex,
      resume: resumed,
    },
    deps,
    policy,
  );
}
