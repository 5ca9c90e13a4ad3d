import type { ActivationTally } from '../activation/activation-tally.js';
import type { ErrorReason } from '../vocabulary/error-reason.js';
import type { ActorDocument, OutboxEntryDoc } from './actor-document.js';
import type { ActivationStatus, ApplyDeps, ApplyResult } from './apply-result.js';
import type { InboxElement } from './inbox-element.js';
import { errorEntry, traceHeaders } from './outbox-entries.js';

/**
 * The only commit a failed element makes: `lastAppliedSeq` (so a redelivery does not re-run it),
 * the writer's epoch and an outbox holding one error record. Memory, cache, seq and continuation
 * stay exactly as `base` had them (invariant 1).
 */
export function recordFailure(
  base: ActorDocument,
  element: InboxElement,
  lastAppliedSeq: number,
  reason: ErrorReason,
  detail: string,
  deps: ApplyDeps,
  status: ActivationStatus,
  tally: ActivationTally | undefined,
): ApplyResult {
  const agent = deps.agent.name;
  const entry: OutboxEntryDoc = errorEntry(
    deps.addressing,
    { agent, entityKey: element.entityKey, reason, detail, eventTimeMs: element.eventTimeMs },
    element.inboxSeq,
    traceHeaders(element.headers),
  );
  const next: ActorDocument = { ...base, agent, entityKey: element.entityKey, lastAppliedSeq, ownerEpoch: deps.ownerEpoch, outbox: [entry] };
  return { kind: 'commit', next, report: { status, seq: base.seq, reason, ...(tally ? { tally } : {}), outputs: 0 } };
}
