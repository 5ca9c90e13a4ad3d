import { resolveSuspensionPolicy, type ResolvedSuspensionPolicy } from '../agent/suspension-policy.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import type { ActorDocument } from './actor-document.js';
import type { ApplyDeps, ApplyResult } from './apply-result.js';
import { attempt } from './event-attempt.js';
import { recordFailure } from './failure-record.js';
import type { InboxElement } from './inbox-element.js';
import { traceHeaders } from './outbox-entries.js';
import { withIdleTtl } from './suspension-timers.js';

/** True when a committed document still owes deferred events a run (the suspension ended). */
export function needsDrain(doc: ActorDocument): boolean {
  return doc.continuation === undefined && doc.deferred.length > 0;
}

/**
 * Runs the oldest event that waited behind a suspension which has since ended. The commit keeps
 * `lastAppliedSeq` (the element being processed stays the last applied one) and consumes exactly
 * one deferred event; the caller loops until {@link needsDrain} is false.
 */
export async function drainDeferred(state: ActorDocument, deps: ApplyDeps): Promise<ApplyResult> {
  const [first, ...rest] = state.deferred;
  if (first === undefined || state.continuation !== undefined) return { kind: 'noop' };
  const policy = resolveSuspensionPolicy(deps.agent.suspension);
  const element: InboxElement = { inboxSeq: first.inboxSeq, entityKey: state.entityKey, eventTimeMs: first.eventTimeMs, payload: { kind: 'event', event: first.event }, headers: first.headers };
  const base: ActorDocument = { ...state, deferred: rest };
  return attempt({ base, element, lastAppliedSeq: state.lastAppliedSeq, seq: base.seq, stepIndex: 0, event: first.event }, deps, policy);
}

/**
 * Parks an event behind the live suspension (bounded; overflow is an error record). The commit
 * records the event as applied, so a redelivery is a duplicate; {@link drainDeferred} runs it later.
 */
export function defer(state: ActorDocument, element: InboxElement, event: Uint8Array, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): ApplyResult {
  if (state.deferred.length >= policy.maxDeferred) {
    return recordFailure(state, element, element.inboxSeq, ErrorReason.DeferredOverflow, `deferred=${state.deferred.length},max=${policy.maxDeferred}`, deps, 'failed', undefined);
  }
  const next: ActorDocument = {
    ...state,
    lastAppliedSeq: element.inboxSeq,
    ownerEpoch: deps.ownerEpoch,
    deferred: [...state.deferred, { inboxSeq: element.inboxSeq, event, eventTimeMs: element.eventTimeMs, headers: traceHeaders(element.headers) }],
    timers: withIdleTtl(state.timers, Math.max(element.eventTimeMs, state.continuation?.deadlineMs ?? 0), deps),
    outbox: [],
  };
  return { kind: 'commit', next, report: { status: 'deferred', seq: state.seq, outputs: 0 } };
}
