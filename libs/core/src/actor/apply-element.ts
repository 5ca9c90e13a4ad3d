import type { AgentDefinition } from '../agent/agent-definition.js';
import type { ModelProvider } from '../model/model-request.js';
import { WorkingMemory } from '../memory/working-memory.js';
import { ReplayCache } from '../replay/replay-cache.js';
import type { Timers } from '../time/clock.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import type { AttemptMemo } from '../activation/attempt-memo.js';
import type { ActivationTally } from '../activation/activation-tally.js';
import { failureDetail } from '../activation/failure-position.js';
import { outputBytes } from '../activation/output-value.js';
import { runActivation } from '../activation/run-activation.js';
import { StagingContext } from '../activation/staging-context.js';
import { emptyActorDocument, type ActorDocument, type OutboxEntryDoc } from './actor-document.js';
import type { Addressing } from './addressing.js';
import type { InboxElement } from './inbox-element.js';
import { errorEntry, outputEntries, traceHeaders } from './outbox-entries.js';

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
}

/** How an activation attempt ended, for metrics and logs (never persisted). */
export type ActivationStatus = 'completed' | 'suspended' | 'failed' | 'timed_out' | 'orphaned';

/** What the step did, for telemetry. */
export interface ActivationReport {
  readonly status: ActivationStatus;
  /** The seq the activation ran at. */
  readonly seq: number;
  readonly reason?: ErrorReason;
  readonly tally?: ActivationTally;
  readonly memoryBytes?: number;
  readonly outputs: number;
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
  | { readonly kind: 'commit'; readonly next: ActorDocument; readonly report: ActivationReport };

/**
 * Applies one inbox element to a key's committed state — the core of ARCHITECTURE §5. Pure but
 * for the agent run and the provider call (both injected): the same state and element produce
 * the same decision and byte-identical next document, which is what makes a retried or replayed
 * element safe (invariants 1–3).
 *
 * @param state the committed document, or undefined for a key that never committed
 */
export async function applyElement(state: ActorDocument | undefined, element: InboxElement, deps: ApplyDeps): Promise<ApplyResult> {
  const agent = deps.agent.name;
  const current = state ?? emptyActorDocument(agent, element.entityKey);
  if (current.ownerEpoch > deps.ownerEpoch) return { kind: 'fenced', storedEpoch: current.ownerEpoch };
  if (element.inboxSeq <= current.lastAppliedSeq) return { kind: 'duplicate' };

  const payload = element.payload;
  switch (payload.kind) {
    case 'event':
      return runStart(current, element, payload.event, deps);
    case 'result':
      return orphan(current, element, `no_continuation:${payload.result.intentId}`, deps);
    case 'approval':
      return orphan(current, element, `no_continuation:${payload.approval.intentId}`, deps);
    case 'timer':
      return { kind: 'noop' };
  }
}

async function runStart(state: ActorDocument, element: InboxElement, event: Uint8Array, deps: ApplyDeps): Promise<ApplyResult> {
  const agent = deps.agent.name;
  const controller = new AbortController();
  const memory = WorkingMemory.fromBlob(state.memory, { nowMs: element.eventTimeMs, ...(deps.onSoftCap ? { onSoftCap: deps.onSoftCap } : {}) });
  const ctx = new StagingContext({
    agent,
    key: element.entityKey,
    seq: state.seq,
    event,
    eventTimeMs: element.eventTimeMs,
    isResume: false,
    stepIndex: 0,
    memory,
    cache: ReplayCache.fromBlob(state.llmCache, { nowMs: element.eventTimeMs }),
    provider: deps.provider,
    memo: deps.memo,
    signal: controller.signal,
    monotonicMs: deps.monotonicMs,
  });
  const result = await runActivation(deps.agent.handler, ctx, {
    timeoutMs: deps.agent.timeoutMs ?? deps.activationTimeoutMs,
    timers: deps.timers,
    controller,
  });
  const carried = traceHeaders(element.headers);

  switch (result.kind) {
    case 'completed': {
      const outputs = [...ctx.outputs];
      const final = outputBytes(result.outcome.output);
      if (final.length > 0) outputs.push(final);
      const outbox = outputEntries(deps.addressing, agent, element.entityKey, state.seq, element.eventTimeMs, outputs, carried);
      const next: ActorDocument = {
        ...state,
        agent,
        entityKey: element.entityKey,
        seq: state.seq + 1,
        lastAppliedSeq: element.inboxSeq,
        ownerEpoch: deps.ownerEpoch,
        memory: memory.toBlob(),
        llmCache: ctx.replayCache.toBlob(),
        continuation: undefined,
        pending: [],
        outbox,
      };
      return {
        kind: 'commit',
        next,
        report: { status: 'completed', seq: state.seq, tally: ctx.tally, memoryBytes: memory.sizeBytes, outputs: outputs.length },
      };
    }
    case 'suspended':
      return recordFailure(state, element, ErrorReason.ActivationError, 'SuspendNotSupported: suspend() needs the re-injection path', deps, 'failed', ctx.tally);
    case 'failed':
      return recordFailure(state, element, ErrorReason.ActivationError, failureDetail(result.error, result.position), deps, 'failed', ctx.tally);
    case 'timed_out':
      return recordFailure(state, element, ErrorReason.ActivationTimeout, '', deps, 'timed_out', ctx.tally);
  }
}

function orphan(state: ActorDocument, element: InboxElement, detail: string, deps: ApplyDeps): ApplyResult {
  return recordFailure(state, element, ErrorReason.OrphanedResult, detail, deps, 'orphaned', undefined);
}

/**
 * The only commit a failed element makes: `lastAppliedSeq` (so a redelivery does not re-run it),
 * the writer's epoch and an outbox holding one error record. Memory, cache, seq and continuation
 * stay exactly as they were (invariant 1).
 */
function recordFailure(
  state: ActorDocument,
  element: InboxElement,
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
  const next: ActorDocument = {
    ...state,
    agent,
    entityKey: element.entityKey,
    lastAppliedSeq: element.inboxSeq,
    ownerEpoch: deps.ownerEpoch,
    outbox: [entry],
  };
  return { kind: 'commit', next, report: { status, seq: state.seq, reason, ...(tally ? { tally } : {}), outputs: 0 } };
}
