import type { AgentHandler } from '../agent/agent-definition.js';
import type { ResolvedSuspensionPolicy } from '../agent/suspension-policy.js';
import { failureDetail } from '../activation/failure-position.js';
import { outputBytes } from '../activation/output-value.js';
import type { ResumeInput } from '../activation/resume-input.js';
import { runActivation } from '../activation/run-activation.js';
import { ActivationRetry } from '../activation/activation-retry.js';
import { AttemptAbort } from '../activation/attempt-abort.js';
import { RetryableError } from '../errors/runtime-error.js';
import { StagingContext } from '../activation/staging-context.js';
import { traceId } from '../ids/trace-id.js';
import { DropOldestCompactor } from '../memory/drop-oldest-compactor.js';
import { summarizeIfDue } from '../memory/summarize-compaction.js';
import { WorkingMemory } from '../memory/working-memory.js';
import { StagedLongTerm } from '../longterm/staged-long-term.js';
import { ReplayCache } from '../replay/replay-cache.js';
import { journalEntry } from '../replay/replay-journal.js';
import { recordSpend, spentInWindow, tallyTokens } from '../model/token-budget.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import { TimerKind, type ActorDocument, type CacheBlobDoc, type ContinuationDoc, type OutboxEntryDoc, type ToolIntentDoc } from './actor-document.js';
import type { ActivationReport, ApplyDeps, ApplyResult } from './apply-result.js';
import { recordFailure } from './failure-record.js';
import { parseEvent } from '../agent/event-schema.js';
import type { InboxElement } from './inbox-element.js';
import { intentEntry, outputEntries, traceHeaders } from './outbox-entries.js';
import { deadlineTimerId, withIdleTtl, withoutDeadline } from './suspension-timers.js';

/** The replay cache of a key with no live suspension (shared: documents are never mutated). */
const EMPTY_CACHE: CacheBlobDoc = Object.freeze({ entries: Object.freeze([]), totalResponseBytes: 0 });

/** No pending intents (shared: documents are never mutated). */
const NO_PENDING: readonly ToolIntentDoc[] = Object.freeze([]);

/** The default compactor (stateless, so one instance serves every activation). */
const defaultCompactor = new DropOldestCompactor();

/** One attempt of the agent: a start (event) or a resume (answer or denial). */
export interface AttemptPlan {
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

export async function attempt(plan: AttemptPlan, deps: ApplyDeps, policy: ResolvedSuspensionPolicy): Promise<ApplyResult> {
  const { base, element } = plan;
  const agent = deps.agent.name;
  const abort = new AttemptAbort();
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
  const keyWindow = deps.agent.budget?.tokensPerKey;
  // A typed agent sees its event parsed and validated; an event failing the schema never runs it.
  let parsedEvent: { readonly value: unknown } | undefined;
  if (plan.event !== undefined && deps.agent.event !== undefined) {
    const parsed = await parseEvent(deps.agent.event, plan.event);
    if (!parsed.ok) return recordFailure(plan.failureBase ?? base, element, plan.lastAppliedSeq, ErrorReason.MalformedInput, parsed.problem, deps, 'failed', undefined);
    parsedEvent = { value: parsed.value };
  }
  const answeredIntent = plan.resume?.result?.intentId;
  const resumeToolName = answeredIntent === undefined ? undefined : base.pending.find((i) => i.intentId === answeredIntent)?.toolName;
  // Every field spelled out (absent ones undefined) rather than spread in conditionally: this
  // object is built for every activation, and a literal of fixed shape is one allocation.
  const ctx = new StagingContext({
    agent,
    key: element.entityKey,
    seq: plan.seq,
    event: plan.event,
    parsedEvent,
    eventTimeMs: element.eventTimeMs,
    stepIndex: plan.stepIndex,
    memory,
    cache: ReplayCache.fromBlob(base.llmCache, { nowMs: element.eventTimeMs }),
    provider: deps.provider,
    memo: deps.memo,
    // Read only when needed (see `StagingContextInit.signal`): most attempts never need a signal.
    signal: () => abort.signal,
    abandoned: () => abort.abandoned,
    monotonicMs: deps.monotonicMs,
    policy,
    resume: plan.resume,
    resumeToolName,
    tools: deps.agent.tools,
    onModelCall: deps.onModelCall,
    budget: deps.agent.budget,
    agentLedger: deps.agentLedger,
    keyWindowTokens: keyWindow !== undefined ? spentInWindow(base.tokenSpend, element.eventTimeMs, keyWindow.windowMs) : undefined,
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
  const result = await runActivation(handler, ctx, { timeoutMs: deps.agent.timeoutMs ?? deps.activationTimeoutMs, timers: deps.timers, controller: abort, monotonicMs: deps.monotonicMs });
  const carried = traceHeaders(element.headers);

  const failureBase = plan.failureBase ?? base;
  // A refused model call fails the activation closed, even when the agent caught the refusal.
  const refusal = ctx.budgetRefusal;
  if (refusal !== undefined && result.kind !== 'timed_out') return recordFailure(failureBase, element, plan.lastAppliedSeq, ErrorReason.BudgetExceeded, refusal.message, deps, 'failed', ctx.tally);
  if (result.kind === 'failed') {
    const attempt = deps.retry?.attempt ?? 1;
    const retryable = result.error instanceof RetryableError;
    // A retryable failure holds the key and runs again (the runtime backs off) until attempts run out.
    if (retryable && attempt < (deps.retry?.maxAttempts ?? 1)) throw new ActivationRetry(result.error, attempt);
    const detail = failureDetail(result.error, result.position);
    return recordFailure(failureBase, element, plan.lastAppliedSeq, ErrorReason.ActivationError, retryable && deps.retry !== undefined ? `${detail} attempts=${attempt}` : detail, deps, 'failed', ctx.tally);
  }
  if (result.kind === 'timed_out') return recordFailure(failureBase, element, plan.lastAppliedSeq, ErrorReason.ActivationTimeout, '', deps, 'timed_out', ctx.tally);

  const outputs = ctx.outputs.slice();
  if (result.kind === 'completed') {
    const final = outputBytes(result.outcome.output);
    if (final.length > 0) outputs.push(final);
  }
  const staged = ctx.intents;
  const outbox: OutboxEntryDoc[] = outputEntries(deps.addressing, agent, element.entityKey, base.seq, element.eventTimeMs, outputs, carried, plan.seq);
  for (const intent of staged) outbox.push(intentEntry(deps.addressing, intent, carried, deps.signer));
  // A per-key token budget counts committed activations: record this one's tokens by event time.
  const tokenSpend = keyWindow !== undefined ? recordSpend(base.tokenSpend, element.eventTimeMs, tallyTokens(ctx.tally), keyWindow.windowMs) : base.tokenSpend;
  const memoryBlob = memory.toBlob();
  const status = result.kind === 'completed' ? 'completed' : 'suspended';
  const report: ActivationReport = {
    status,
    seq: plan.seq,
    tally: ctx.tally,
    memoryBytes: memory.sizeBytes,
    outputs: outputs.length,
    intents: staged.length,
    resumed: plan.resume !== undefined,
  };
  const upserts = longterm?.upserts;

  if (result.kind === 'completed') {
    // Nothing in the replay cache is read again once no suspension is live: its keys embed the
    // activation seq, the next activation runs at a new seq, and a redelivery of this element is a
    // duplicate that re-runs nothing. Keeping the entries only grew every later commit (see
    // docs/decisions/0016-replay-cache-holds-live-scopes-only.md). Where the deployment journals,
    // the dropped entries leave with this commit's outbox instead, for offline replay (0073); a
    // commit with an empty cache (no model call in the scope) journals nothing.
    const journal = deps.addressing.journal;
    if (journal !== undefined && ctx.replayCache.size > 0) {
      outbox.push(
        journalEntry(journal(agent, element.entityKey), {
          agent,
          key: element.entityKey,
          commitSeq: base.seq,
          activationSeq: plan.seq,
          eventTimeMs: element.eventTimeMs,
          cache: ctx.replayCache.toBlob(),
          carried,
        }),
      );
    }
    const next = committedDocument(base, element, plan, deps, {
      memory: memoryBlob,
      llmCache: EMPTY_CACHE,
      continuation: undefined,
      pending: NO_PENDING,
      outbox,
      timers: withIdleTtl(withoutDeadline(base.timers), element.eventTimeMs, deps),
      tokenSpend,
    });
    return upserts === undefined ? { kind: 'commit', next, report } : { kind: 'commit', next, report, upserts };
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
  const next = committedDocument(base, element, plan, deps, {
    memory: memoryBlob,
    llmCache: ctx.replayCache.toBlob(),
    continuation,
    pending: [...carriedPending, ...staged],
    outbox,
    timers: withIdleTtl(
      [...withoutDeadline(base.timers), { timerId: deadlineTimerId(continuation), kind: TimerKind.Deadline, dueAtMs: continuation.deadlineMs }],
      // Working-memory expiry never pre-empts a live suspension's deadline.
      Math.max(element.eventTimeMs, continuation.deadlineMs),
      deps,
    ),
    tokenSpend,
  });
  return upserts === undefined ? { kind: 'commit', next, report } : { kind: 'commit', next, report, upserts };
}

/** What an activation changes in the key's document; the rest is carried over from the base. */
type ActivationChanges = Pick<ActorDocument, 'memory' | 'llmCache' | 'continuation' | 'pending' | 'outbox' | 'timers' | 'tokenSpend'>;

/**
 * The document an activation commits: `base` with the next seq, the applied element, the writer's
 * epoch and the activation's changes. Every field is spelled out (no spread with overrides), so
 * each commit builds one object of one shape.
 */
function committedDocument(base: ActorDocument, element: InboxElement, plan: AttemptPlan, deps: ApplyDeps, changes: ActivationChanges): ActorDocument {
  return {
    stateSchemaVersion: base.stateSchemaVersion,
    agent: deps.agent.name,
    entityKey: element.entityKey,
    seq: base.seq + 1,
    lastAppliedSeq: plan.lastAppliedSeq,
    ownerEpoch: deps.ownerEpoch,
    memory: changes.memory,
    llmCache: changes.llmCache,
    continuation: changes.continuation,
    pending: changes.pending,
    outbox: changes.outbox,
    timers: changes.timers,
    deferred: base.deferred,
    tokenSpend: changes.tokenSpend,
  };
}

function snapshotBytes(snapshot: Uint8Array | string | undefined): Uint8Array {
  if (snapshot === undefined) return new Uint8Array(0);
  return typeof snapshot === 'string' ? new TextEncoder().encode(snapshot) : snapshot;
}
