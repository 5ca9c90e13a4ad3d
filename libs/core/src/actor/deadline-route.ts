import type { ApprovalView, ToolResultView } from '../agent/resume-views.js';
import type { ResolvedSuspensionPolicy } from '../agent/suspension-policy.js';
import { toolResultView } from '../activation/tool-result-view.js';
import { intentId } from '../ids/intent-id.js';
import { canonicalJson } from '../json/canonical-json.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import { IntentKind, TimerKind, type ActorDocument, type ContinuationDoc, type ToolIntentDoc } from './actor-document.js';
import type { ApplyDeps, ApplyResult } from './apply-result.js';
import { attempt } from './event-attempt.js';
import { recordFailure } from './failure-record.js';
import { expire } from './idle-expiry.js';
import { ToolResultStatus, type InboxElement } from './inbox-element.js';
import { intentEntry, traceHeaders } from './outbox-entries.js';
import { deadlineTimerId, withoutDeadline } from './suspension-timers.js';

/**
 * A timer element: the idle TTL expires the key; the suspension deadline, when it passes first,
 * routes by policy (deny, drop, escalate). A stale firing (a timer no longer in state, or a
 * superseded handle) is a noop, so a timer redelivered or re-published after a crash does nothing.
 */
export async function fireTimer(state: ActorDocument, element: InboxElement, timer: { timerId: string; kind: number; dueAtMs: number }, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): Promise<ApplyResult> {
  const stored = state.timers.find((t) => t.timerId === timer.timerId && t.dueAtMs === timer.dueAtMs);
  // An idle-TTL timer left by an earlier configuration of the agent (no idleTtlMs now) is ignored.
  if (stored?.kind === TimerKind.IdleTtl) return deps.agent.memory?.idleTtlMs === undefined ? { kind: 'noop' } : expire(state, element, deps);
  if (stored === undefined || stored.kind !== TimerKind.Deadline) return { kind: 'noop' };
  const continuation = state.continuation;
  if (continuation === undefined || continuation.deadlineMs !== stored.dueAtMs) return { kind: 'noop' };

  if (policy.onTimeout === 'drop') {
    const base: ActorDocument = { ...state, continuation: undefined, pending: [], timers: withoutDeadline(state.timers) };
    return recordFailure(base, element, element.inboxSeq, ErrorReason.HitlTimeout, `seq=${continuation.seq}`, deps, 'hitl_timeout', undefined);
  }
  if (policy.onTimeout === 'escalate' && continuation.escalations < policy.maxEscalations) {
    return escalate(state, element, continuation, deps, policy);
  }
  // deny (also escalate once exhausted): resume the agent with a denial of the first pending intent.
  const firstId = continuation.pendingIntentIds[0];
  const first = state.pending.find((i) => i.intentId === firstId);
  const denial: { result?: ToolResultView; approval?: ApprovalView } =
    firstId === undefined
      ? {}
      : first === undefined || first.kind === IntentKind.Approval
        ? { approval: { intentId: firstId, approved: false, approver: 'nats-agents:deadline', reason: 'hitl_timeout', decidedAtMs: element.eventTimeMs } }
        : {
            result: toolResultView({
              intentId: firstId,
              entityKey: state.entityKey,
              seq: continuation.seq,
              status: ToolResultStatus.Expired,
              payload: new Uint8Array(0),
              errorMessage: 'the suspension deadline passed before a result arrived',
              completedAtMs: element.eventTimeMs,
            }),
          };
  // The suspension is over whatever the agent does now: even a failing denial must not leave a
  // continuation without a deadline behind.
  return attempt(
    {
      base: { ...state, continuation: undefined, pending: [], timers: withoutDeadline(state.timers) },
      element,
      lastAppliedSeq: element.inboxSeq,
      seq: continuation.seq,
      stepIndex: continuation.stepIndex,
      resume: { ...denial, timedOut: true, snapshot: continuation.snapshot, continuation },
    },
    deps,
    policy,
  );
}

/**
 * Re-requests approval at the continuation's next step: a new approval intent on the escalation
 * channel, a new deadline, the earlier intents still answerable. The agent is not run and seq
 * does not change, so a retried timer re-mints the identical escalation.
 */
function escalate(state: ActorDocument, element: InboxElement, continuation: ContinuationDoc, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): ApplyResult {
  const agent = deps.agent.name;
  const deadlineMs = element.eventTimeMs + policy.escalationTimeoutMs;
  const intent: ToolIntentDoc = {
    intentId: intentId(agent, element.entityKey, continuation.seq, continuation.stepIndex),
    agent,
    entityKey: element.entityKey,
    seq: continuation.seq,
    stepIndex: continuation.stepIndex,
    toolName: policy.escalationChannel,
    argsJson: canonicalJson({ escalation: continuation.escalations + 1, pending: continuation.pendingIntentIds }),
    createdAtMs: element.eventTimeMs,
    expiresAtMs: deadlineMs,
    attempt: 0,
    kind: IntentKind.Approval,
    traceId: continuation.traceId,
    signatureScheme: 0,
    signingKeyId: '',
    signature: new Uint8Array(0),
  };
  const escalated: ContinuationDoc = {
    ...continuation,
    stepIndex: continuation.stepIndex + 1,
    pendingIntentIds: [...continuation.pendingIntentIds, intent.intentId],
    deadlineMs,
    escalations: continuation.escalations + 1,
  };
  const next: ActorDocument = {
    ...state,
    lastAppliedSeq: element.inboxSeq,
    ownerEpoch: deps.ownerEpoch,
    continuation: escalated,
    pending: [...state.pending, intent],
    timers: [...withoutDeadline(state.timers), { timerId: deadlineTimerId(escalated), kind: TimerKind.Deadline, dueAtMs: deadlineMs }],
    outbox: [intentEntry(deps.addressing, intent, traceHeaders(element.headers), deps.signer)],
  };
  return { kind: 'commit', next, report: { status: 'escalated', seq: continuation.seq, outputs: 0, intents: 1 } };
}
