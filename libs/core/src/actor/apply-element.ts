import type { AgentDefinition, AgentHandler } from '../agent/agent-definition.js';
import type { ApprovalView, ToolResultView } from '../agent/resume-views.js';
import { resolveSuspensionPolicy, type ResolvedSuspensionPolicy } from '../agent/suspension-policy.js';
import type { ActivationTally, ModelCallRecord } from '../activation/activation-tally.js';
import type { AttemptMemo } from '../activation/attempt-memo.js';
import { failureDetail } from '../activation/failure-position.js';
import { outputBytes } from '../activation/output-value.js';
import type { ResumeInput } from '../activation/resume-input.js';
import { runActivation } from '../activation/run-activation.js';
import { StagingContext } from '../activation/staging-context.js';
import { approvalView, toolResultView } from '../activation/tool-result-view.js';
import { intentId } from '../ids/intent-id.js';
import { traceId } from '../ids/trace-id.js';
import { canonicalJson } from '../json/canonical-json.js';
import { DropOldestCompactor } from '../memory/drop-oldest-compactor.js';
import { summarizeIfDue } from '../memory/summarize-compaction.js';
import { WorkingMemory } from '../memory/working-memory.js';
import type { ModelProvider } from '../model/model-request.js';
import type { LongTermRecord } from '../longterm/long-term-record.js';
import type { LongTermStore } from '../longterm/long-term-store.js';
import { StagedLongTerm } from '../longterm/staged-long-term.js';
import { LongTermNotConfigured } from '../longterm/long-term-not-configured.js';
import { MemoryType, retentionFor } from '../longterm/memory-type.js';
import { EXPIRED_MEMORY_KEY } from '../agent/memory-policy.js';
import { encodeMemoryBlob } from './state-codec.js';
import { ReplayCache } from '../replay/replay-cache.js';
import type { Timers } from '../time/clock.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import {
  emptyActorDocument,
  IntentKind,
  TimerKind,
  type ActorDocument,
  type ContinuationDoc,
  type OutboxEntryDoc,
  type TimerDoc,
  type ToolIntentDoc,
} from './actor-document.js';
import type { Addressing } from './addressing.js';
import { admit, type Answer } from './admission.js';
import { ToolResultStatus, type InboxElement } from './inbox-element.js';
import { errorEntry, intentEntry, outputEntries, traceHeaders, type IntentSigner } from './outbox-entries.js';

/** Everything the pure step needs besides the state and the element. */
export interface ApplyDeps {
  readonly agent: AgentDefinition;
  readonly provider: ModelProvider;
  readonly addressing: Addressing;
  readonly timers: Timers;
  readonly monotonicMs: () => number;
  /** The writer's epoch (lease revision); stamped on every document it commits. */
  readonly ownerEpoch: number;
  /** Responses of uncommitted attempts of this key (see {@link AttemptMemo}). */
  readonly memo: AttemptMemo;
  readonly activationTimeoutMs: number;
  /** Called at most once per attempt when working memory crosses its soft cap. */
  readonly onSoftCap?: () => void;
  /** Told about each model call of an attempt as it is answered (telemetry; see `StagingContextInit.onModelCall`). */
  readonly onModelCall?: (call: ModelCallRecord) => void;
  /** Signs intents as they are published (the activator's signing key); absent = unsigned. */
  readonly signer?: IntentSigner;
  /** The long-term tier (absent: `ctx.memory.longterm` throws `LongTermNotConfigured`). */
  readonly longterm?: {
    readonly store: LongTermStore;
    /** Retention per memory type in ms, overriding the defaults. */
    readonly retentionMs?: Readonly<Record<string, number>>;
  };
}

/** What an element did to its key, for metrics and logs (never persisted). */
export type ActivationStatus =
  | 'completed'
  | 'suspended'
  | 'failed'
  | 'timed_out'
  | 'orphaned'
  /** An event waits behind a live suspension. */
  | 'deferred'
  /** A deadline re-requested approval. */
  | 'escalated'
  /** A deadline ended the suspension under the `drop` policy. */
  | 'hitl_timeout'
  /** A direct element failed the ingress rules; only its error record was committed. */
  | 'refused'
  /** The idle TTL reclaimed the key. */
  | 'expired';

/** What the step did, for telemetry. */
export interface ActivationReport {
  readonly status: ActivationStatus;
  /** The seq the activation ran at (a resume keeps its start's seq). */
  readonly seq: number;
  readonly reason?: ErrorReason;
  readonly tally?: ActivationTally;
  readonly memoryBytes?: number;
  readonly outputs: number;
  /** Intents published by this commit (tool intents and approval requests). */
  readonly intents?: number;
  readonly resumed?: boolean;
}

/**
 * The decision for one inbox element. `commit` carries the complete next document, outbox
 * included; the caller CAS-writes it, then publishes `next.outbox`, then acks.
 */
export type ApplyResult =
  /** `inboxSeq <= lastAppliedSeq`: already applied. Republish any outbox, ack, stop. */
  | { readonly kind: 'duplicate' }
  /** The stored document was written by a newer owner: this writer is fenced and must stop. */
  | { readonly kind: 'fenced'; readonly storedEpoch: number }
  /** Nothing to commit (e.g. a timer no longer in state): ack without writing. */
  | { readonly kind: 'noop' }
  | {
      readonly kind: 'commit';
      readonly next: ActorDocument;
      readonly report: ActivationReport;
      /** Long-term upserts to flush before the commit (only for a successful activation). */
      readonly upserts?: readonly LongTermRecord[];
      /** What a failed flush does: fail the activation closed (default), or hold the key and retry (expiry). */
      readonly flushFailure?: 'fail-closed' | 'retry';
    };

/** The default compactor (stateless, so one instance serves every activation). */
const defaultCompactor = new DropOldestCompactor();

/** The deadline timer's id for a continuation (escalations re-arm under a new id). */
function deadlineTimerId(continuation: ContinuationDoc): string {
  return `deadline-${continuation.seq}-${continuation.escalations}`;
}

const withoutDeadline = (timers: readonly TimerDoc[]): TimerDoc[] => timers.filter((t) => t.kind !== TimerKind.Deadline);

/** True when a committed document still owes deferred events a run (the suspension ended). */
export function needsDrain(doc: ActorDocument): boolean {
  return doc.continuation === undefined && doc.deferred.length > 0;
}

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

/** One attempt of the agent: a start (event) or a resume (answer or denial). */
interface AttemptPlan {
  /** The committed state the attempt builds on (suspension already stripped for a supersede). */
  readonly base: ActorDocument;
  /** The state a failed or timed-out attempt leaves in place with its record; defaults to `base`. */
  readonly failureBase?: ActorDocument;
  readonly element: InboxElement;
  /** What the commit records as applied. */
  readonly lastAppliedSeq: number;
  /** The activation seq (`ctx.seq`). */
  readonly seq: number;
  readonly stepIndex: number;
  readonly event?: Uint8Array;
  readonly resume?: ResumeInput & {
    readonly continuation: ContinuationDoc;
    /** The intent the resume answered (dropped from pending); absent for a deadline denial. */
    readonly answered?: string;
  };
}

async function attempt(plan: AttemptPlan, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): Promise<ApplyResult> {
  const { base, element } = plan;
  const agent = deps.agent.name;
  const controller = new AbortController();
  const compactor = deps.agent.memory?.compactor === undefined ? defaultCompactor : deps.agent.memory.compactor;
  const longterm =
    deps.longterm === undefined
      ? undefined
      : new StagedLongTerm({
          store: deps.longterm.store,
          scope: { entityKey: element.entityKey, agent },
          // The commit counter, not the activation seq: a start and its resume share an activation
          // seq, so only the counter orders every write of the key (the seq guard needs that).
          seq: base.seq,
          nowMs: element.eventTimeMs,
          ...(deps.longterm.retentionMs ? { retentionMs: deps.longterm.retentionMs } : {}),
        });
  const memory = WorkingMemory.fromBlob(base.memory, {
    nowMs: element.eventTimeMs,
    ...(deps.onSoftCap ? { onSoftCap: deps.onSoftCap } : {}),
    ...(compactor !== null ? { compactor } : {}),
    ...(longterm ? { longterm } : {}),
  });
  const ctx = new StagingContext({
    agent,
    key: element.entityKey,
    seq: plan.seq,
    event: plan.event,
    eventTimeMs: element.eventTimeMs,
    stepIndex: plan.stepIndex,
    memory,
    cache: ReplayCache.fromBlob(base.llmCache, { nowMs: element.eventTimeMs }),
    provider: deps.provider,
    memo: deps.memo,
    // A getter, read only when needed (see `StagingContextInit.signal`): most attempts never need a signal.
    get signal() {
      return controller.signal;
    },
    monotonicMs: deps.monotonicMs,
    policy,
    ...(plan.resume ? { resume: plan.resume } : {}),
    ...(deps.agent.tools ? { tools: deps.agent.tools } : {}),
    ...(deps.onModelCall ? { onModelCall: deps.onModelCall } : {}),
  });
  const summarize = deps.agent.memory?.summarize;
  // Summarizing runs inside the activation (same timeout, same failure handling) after the agent
  // returned, through the cache-first model path.
  const handler: AgentHandler =
    summarize === undefined
      ? deps.agent.handler
      : async (c) => {
          const outcome = await deps.agent.handler(c);
          await summarizeIfDue(memory, (request) => ctx.callModel(request), summarize);
          return outcome;
        };
  const result = await runActivation(handler, ctx, { timeoutMs: deps.agent.timeoutMs ?? deps.activationTimeoutMs, timers: deps.timers, controller, monotonicMs: deps.monotonicMs });
  const carried = traceHeaders(element.headers);

  const failureBase = plan.failureBase ?? base;
  if (result.kind === 'failed') return recordFailure(failureBase, element, plan.lastAppliedSeq, ErrorReason.ActivationError, failureDetail(result.error, result.position), deps, 'failed', ctx.tally);
  if (result.kind === 'timed_out') return recordFailure(failureBase, element, plan.lastAppliedSeq, ErrorReason.ActivationTimeout, '', deps, 'timed_out', ctx.tally);

  const outputs = [...ctx.outputs];
  if (result.kind === 'completed') {
    const final = outputBytes(result.outcome.output);
    if (final.length > 0) outputs.push(final);
  }
  const staged = ctx.intents;
  const outbox: OutboxEntryDoc[] = [
    ...outputEntries(deps.addressing, agent, element.entityKey, base.seq, element.eventTimeMs, outputs, carried, plan.seq),
    ...staged.map((intent) => intentEntry(deps.addressing, intent, carried, deps.signer)),
  ];
  const committed = {
    ...base,
    agent,
    entityKey: element.entityKey,
    seq: base.seq + 1,
    lastAppliedSeq: plan.lastAppliedSeq,
    ownerEpoch: deps.ownerEpoch,
    memory: memory.toBlob(),
    llmCache: ctx.replayCache.toBlob(),
    outbox,
  };
  const report = {
    seq: plan.seq,
    tally: ctx.tally,
    memoryBytes: memory.sizeBytes,
    outputs: outputs.length,
    intents: staged.length,
    resumed: plan.resume !== undefined,
  };

  if (result.kind === 'completed') {
    const next: ActorDocument = { ...committed, continuation: undefined, pending: [], timers: withIdleTtl(withoutDeadline(base.timers), element.eventTimeMs, deps) };
    return { kind: 'commit', next, report: { status: 'completed', ...report }, ...(longterm ? { upserts: longterm.upserts } : {}) };
  }

  // Suspended: carry forward what the previous suspension still waits for (unless the deadline
  // already passed), add what this attempt staged, keep the earliest deadline.
  const previous = plan.resume !== undefined && !plan.resume.timedOut ? plan.resume.continuation : undefined;
  const carriedPending: ToolIntentDoc[] = previous === undefined ? [] : base.pending.filter((i) => i.intentId !== plan.resume?.answered);
  const carriedIds = previous === undefined ? [] : previous.pendingIntentIds.filter((id) => id !== plan.resume?.answered);
  const requested = result.outcome.timeoutMs;
  const candidates = [
    ...(previous !== undefined ? [previous.deadlineMs] : [element.eventTimeMs + (requested ?? policy.timeoutMs)]),
    ...(previous !== undefined && requested !== undefined ? [element.eventTimeMs + requested] : []),
    ...staged.map((i) => i.expiresAtMs),
  ];
  const continuation: ContinuationDoc = {
    seq: plan.seq,
    stepIndex: ctx.stepIndex,
    pendingIntentIds: [...carriedIds, ...staged.map((i) => i.intentId)],
    snapshot: snapshotBytes(result.outcome.snapshot),
    suspendedAtMs: element.eventTimeMs,
    deadlineMs: Math.min(...candidates),
    escalations: previous?.escalations ?? 0,
    traceId: previous?.traceId ?? traceId(agent, element.entityKey, plan.seq),
  };
  const next: ActorDocument = {
    ...committed,
    continuation,
    pending: [...carriedPending, ...staged],
    timers: withIdleTtl(
      [...withoutDeadline(base.timers), { timerId: deadlineTimerId(continuation), kind: TimerKind.Deadline, dueAtMs: continuation.deadlineMs }],
      // Working-memory expiry never pre-empts a live suspension's deadline.
      Math.max(element.eventTimeMs, continuation.deadlineMs),
      deps,
    ),
  };
  return { kind: 'commit', next, report: { status: 'suspended', ...report }, ...(longterm ? { upserts: longterm.upserts } : {}) };
}

function snapshotBytes(snapshot: Uint8Array | string | undefined): Uint8Array {
  if (snapshot === undefined) return new Uint8Array(0);
  return typeof snapshot === 'string' ? new TextEncoder().encode(snapshot) : snapshot;
}

async function resume(state: ActorDocument, element: InboxElement, answer: Answer, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): Promise<ApplyResult> {
  const admission = admit(state, answer, element.eventTimeMs);
  if (admission.kind === 'refused') return recordFailure(state, element, element.inboxSeq, ErrorReason.OrphanedResult, admission.detail, deps, 'orphaned', undefined);
  const continuation = state.continuation as ContinuationDoc;
  const view = answer.kind === 'result' ? { result: toolResultView(answer.result) } : { approval: approvalView(answer.approval) };
  const answered = answer.kind === 'result' ? answer.result.intentId : answer.approval.intentId;
  return attempt(
    {
      base: state,
      element,
      lastAppliedSeq: element.inboxSeq,
      seq: continuation.seq,
      stepIndex: continuation.stepIndex,
      resume: { ...view, timedOut: false, snapshot: continuation.snapshot, continuation, answered },
    },
    deps,
    policy,
  );
}

/** A deadline that passes first; routes by policy. Stale firings (superseded handles) do nothing. */
async function fireTimer(state: ActorDocument, element: InboxElement, timer: { timerId: string; kind: number; dueAtMs: number }, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): Promise<ApplyResult> {
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

/** The id of the idle-TTL timer (one per key; it moves later with every applied element). */
const IDLE_TTL_TIMER_ID = 'idle-ttl';

/** `timers` with the idle-TTL timer set to `fromMs + idleTtlMs` (unchanged when the agent has no TTL). */
function withIdleTtl(timers: readonly TimerDoc[], fromMs: number, deps: ApplyDeps): TimerDoc[] {
  const ttl = deps.agent.memory?.idleTtlMs;
  const others = timers.filter((t) => t.kind !== TimerKind.IdleTtl);
  if (ttl === undefined || ttl <= 0) return others;
  return [...others, { timerId: IDLE_TTL_TIMER_ID, kind: TimerKind.IdleTtl, dueAtMs: fromMs + ttl }];
}

/**
 * The idle TTL passed: wipe working memory, replay cache, any suspension and waiting events, keep
 * seq (so derived intent ids never repeat) and the dedup mark. A live suspension is reported as
 * `ttl_wiped_suspension`. With `onExpire: 'flush-to-longterm'` the committed working memory is
 * upserted first, and a failed flush holds the key (no wipe) until it succeeds.
 */
function expire(state: ActorDocument, element: InboxElement, deps: ApplyDeps): ApplyResult {
  const agent = deps.agent.name;
  const outbox: OutboxEntryDoc[] = [];
  const continuation = state.continuation;
  if (continuation !== undefined || state.deferred.length > 0) {
    outbox.push(
      errorEntry(
        deps.addressing,
        {
          agent,
          entityKey: element.entityKey,
          reason: ErrorReason.TtlWipedSuspension,
          detail: `seq=${continuation?.seq ?? state.seq},deadline_ms=${continuation?.deadlineMs ?? 0},deferred=${state.deferred.length}`,
          eventTimeMs: element.eventTimeMs,
        },
        element.inboxSeq,
        traceHeaders(element.headers),
      ),
    );
  }
  const flush = deps.agent.memory?.onExpire === 'flush-to-longterm' && state.memory.entries.length > 0;
  if (flush && deps.longterm === undefined) {
    return recordFailure(state, element, element.inboxSeq, ErrorReason.ActivationError, new LongTermNotConfigured().message, deps, 'failed', undefined);
  }
  const next: ActorDocument = {
    ...state,
    lastAppliedSeq: element.inboxSeq,
    ownerEpoch: deps.ownerEpoch,
    memory: { entries: [], totalBytes: 0 },
    llmCache: { entries: [], totalResponseBytes: 0 },
    continuation: undefined,
    pending: [],
    timers: [],
    deferred: [],
    outbox,
  };
  // The demoted record follows its type's retention (operator overrides included), like any save.
  const retention = retentionFor(MemoryType.Episodic, deps.longterm?.retentionMs);
  const upserts: LongTermRecord[] = flush
    ? [
        {
          entityKey: element.entityKey,
          agent,
          key: EXPIRED_MEMORY_KEY,
          value: encodeMemoryBlob(state.memory),
          seq: state.seq,
          updatedAtMs: element.eventTimeMs,
          type: MemoryType.Episodic,
          expiresAtMs: retention > 0 ? element.eventTimeMs + retention : 0,
          supersededBy: '',
          supersededAtMs: 0,
          confidence: 0,
        },
      ]
    : [];
  return {
    kind: 'commit',
    next,
    report: { status: 'expired', seq: state.seq, outputs: 0, ...(outbox.length > 0 ? { reason: ErrorReason.TtlWipedSuspension } : {}) },
    ...(flush ? { upserts, flushFailure: 'retry' as const } : {}),
  };
}

/** Parks an event behind the live suspension (bounded; overflow is an error record). */
function defer(state: ActorDocument, element: InboxElement, event: Uint8Array, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): ApplyResult {
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
