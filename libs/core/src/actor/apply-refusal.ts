/**
 * The pure step for a refused element (a direct event that failed the ingress rules): it commits
 * exactly what any failure commits — `lastAppliedSeq`, the writer's epoch and one error record in
 * the outbox — and nothing of the agent runs (invariant 1). Owning the key still matters: the
 * fence and duplicate checks come first, exactly as in `applyElement`, so a stale owner cannot
 * record a refusal and a redelivered refusal is recognised as already applied.
 * Pure: no side effects on import.
 */
import { emptyActorDocument, type ActorDocument } from './actor-document.js';
import type { ApplyDeps, ApplyResult } from './apply-result.js';
import { recordFailure } from './failure-record.js';
import type { ElementRefusal } from './element-refusal.js';
import type { InboxElement } from './inbox-element.js';

/**
 * Commits the refusal of `element` on its key. Deterministic: the same state, element and refusal
 * give a byte-identical document, and the record's id derives from the inbox sequence, so a retry
 * after a failed commit or a republish after a crash stores one record.
 *
 * @param state the committed document, or undefined for a key that never committed
 */
export function applyRefusal(state: ActorDocument | undefined, element: InboxElement, refusal: ElementRefusal, deps: ApplyDeps): ApplyResult {
  const current = state ?? emptyActorDocument(deps.agent.name, element.entityKey);
  if (current.ownerEpoch > deps.ownerEpoch) return { kind: 'fenced', storedEpoch: current.ownerEpoch };
  if (element.inboxSeq <= current.lastAppliedSeq) return { kind: 'duplicate' };
  return recordFailure(current, element, element.inboxSeq, refusal.reason, refusal.detail, deps, 'refused', undefined);
}
