import { resolveSuspensionPolicy } from '../agent/suspension-policy.js';
import { emptyActorDocument, type ActorDocument } from './actor-document.js';
import type { ApplyDeps, ApplyResult } from './apply-result.js';
import { fireTimer } from './deadline-route.js';
import { defer } from './deferral.js';
import { attempt } from './event-attempt.js';
import type { InboxElement } from './inbox-element.js';
import { resume } from './resume-admission.js';
import { withoutDeadline } from './suspension-timers.js';

/**
 * Applies one inbox element to a key's committed state — the core of ARCHITECTURE §5. Pure but
 * for the agent run and the provider call (both injected): the same state and element produce
 * the same decision and byte-identical next document, which is what makes a retried or replayed
 * element safe (invariants 1–3).
 *
 * Routing: an event starts an activation (or waits behind a live suspension, or supersedes it);
 * a tool result or approval resumes the suspension if admitted, else becomes `orphaned_result`;
 * a timer runs its route (the suspension deadline: deny, drop or escalate).
 *
 * @param state the committed document, or undefined for a key that never committed
 */
export async function applyElement(state: ActorDocument | undefined, element: InboxElement, deps: ApplyDeps): Promise<ApplyResult> {
  const current = state ?? emptyActorDocument(deps.agent.name, element.entityKey);
  if (current.ownerEpoch > deps.ownerEpoch) return { kind: 'fenced', storedEpoch: current.ownerEpoch };
  if (element.inboxSeq <= current.lastAppliedSeq) return { kind: 'duplicate' };
  const policy = resolveSuspensionPolicy(deps.agent.suspension);
  const payload = element.payload;
  switch (payload.kind) {
    case 'event': {
      const suspended = current.continuation !== undefined;
      if (suspended && policy.whileSuspended === 'supersede' && current.deferred.length === 0) {
        const base: ActorDocument = { ...current, continuation: undefined, pending: [], timers: withoutDeadline(current.timers) };
        // Only a committed activation replaces the suspension: a failed one leaves it live (invariant 1).
        return attempt({ base, failureBase: current, element, lastAppliedSeq: element.inboxSeq, seq: base.seq, stepIndex: 0, event: payload.event }, deps, policy);
      }
      if (suspended || current.deferred.length > 0) return defer(current, element, payload.event, deps, policy);
      return attempt({ base: current, element, lastAppliedSeq: element.inboxSeq, seq: current.seq, stepIndex: 0, event: payload.event }, deps, policy);
    }
    case 'result':
      return resume(current, element, { kind: 'result', result: payload.result }, deps, policy);
    case 'approval':
      return resume(current, element, { kind: 'approval', approval: payload.approval }, deps, policy);
    case 'timer':
      return fireTimer(current, element, payload.timer, deps, policy);
  }
}
