import type { AgentDefinition } from '../agent/agent-definition.js';
import type { ModelCallRecord } from '../activation/activation-tally.js';
import { ActivationRetry } from '../activation/activation-retry.js';
import { AttemptMemo } from '../activation/attempt-memo.js';
import { ensureError, RetryableError } from '../errors/runtime-error.js';
import type { ModelProvider } from '../model/model-request.js';
import { sleep } from '../time/sleep.js';
import type { Timers } from '../time/clock.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import { ActorCache, type CachedActor } from './actor-cache.js';
import { emptyActorDocument, type ActorDocument, type RetryHoldDoc } from './actor-document.js';
import type { ActorRuntimeObserver } from './actor-runtime-observer.js';
import type { Addressing } from './addressing.js';
import { applyElement } from './apply-element.js';
import type { ActivationReport, ApplyDeps, ApplyResult } from './apply-result.js';
import { drainDeferred, needsDrain } from './deferral.js';
import { applyRefusal } from './apply-refusal.js';
import { backoffDelay, type BackoffPolicy } from './backoff.js';
import type { DirectElementScreen, ElementRefusal } from './element-refusal.js';
import type { InboxElement } from './inbox-element.js';
import { InMemoryAgentTokenLedger, type AgentTokenLedger } from '../model/agent-token-ledger.js';
import type { OutboxPublisher } from './outbox-publisher.js';
import { errorEntry, traceHeaders, type IntentSigner } from './outbox-entries.js';
import { sameTimers, type TimerIndex, type TimerOwner } from './timer-index.js';
import { encodeActorDocument, StateDocumentCorrupt } from './state-codec.js';
import { CommitConflict, type StateStore } from './state-store.js';
import { SlotMap } from '../collections/slot-map.js';

/**
 * The agent named by an inbox subject is not hosted here: a deployment mismatch. Retried in place
 * by a caller that does not check first; the activator parks such a key instead (one
 * `unknown_agent` record, see {@link ActorRuntime.recordNotHosted}) until an activator hosting the
 * agent takes the partition.
 */
export class AgentNotHosted extends RetryableError {
  override readonly name = 'AgentNotHosted';
}

/** Dependencies of the per-key actor runtime (ports injected by the activator). */
export interface ActorRuntimeDeps {
  readonly store: StateStore;
  readonly publisher: OutboxPublisher;
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  readonly provider: ModelProvider;
  readonly addressing: Addressing;
  readonly timers: Timers;
  readonly monotonicMs: () => number;
  readonly random: () => number;
  readonly activationTimeoutMs: number;
  /** Documents above this size are not written: the element fails closed instead (server max_payload minus headroom). */
  readonly maxDocumentBytes: number;
  /** How many committed documents to keep hot. */
  readonly cacheCapacity: number;
  /** Encoded bytes of the documents kept hot, at most (absent: bounded by `cacheCapacity` only). */
  readonly cacheMaxBytes?: number;
  readonly backoff: BackoffPolicy;
  /**
   * Attempts of an element whose activation fails with a retryable error (the agent's
   * `RetryableError`, a provider unavailable or rate-limited): the key is held and retried with
   * `backoff` until this many attempts failed, then an `activation_error` record carries the count.
   * Absent: 1 (recorded at once).
   */
  readonly maxActivationAttempts?: number;
  readonly observer?: ActorRuntimeObserver;
  /** Signs published intents; absent = unsigned. */
  readonly signer?: IntentSigner;
  /**
   * The shared per-agent token counter for `budget.tokensPerAgent` (every activator of a deployment
   * must share one: the activator's is a JetStream KV bucket). Absent: an in-memory one of this
   * runtime, which only bounds what this process spends.
   */
  readonly agentLedger?: AgentTokenLedger;
  /**
   * Wall-clock epoch ms (processing time), for the next-attempt time a held key's document shows
   * ({@link ActorDocument.hold}); never a decision input. Absent: holds are not written to state.
   */
  readonly nowMs?: () => number;
  /** Keeps the partition's timer index in step with commits; absent = no durable timers. */
  readonly timerIndex?: TimerIndex;
  /** The long-term tier; staged saves are flushed to it before each commit. */
  readonly longterm?: ApplyDeps['longterm'];
  /**
   * The ingress rules (key, size, the agent's `validateEvent`), applied to every event element of a
   * hosted agent and to every direct element ({@link InboxElement.direct}, which must be an event);
   * absent = nothing is validated here and an unhosted agent is held.
   */
  readonly screenDirect?: DirectElementScreen;
  /**
   * Checks the claims of a stored document that would fence this writer or make the element a
   * duplicate (its owner epoch, its last applied sequence) against what the cluster can have
   * issued: a problem (text) quarantines the key instead. Absent = documents are trusted.
   */
  readonly checkDocument?: DocumentCheck;
}

/**
 * Whether a stored document's claims are possible: `undefined` when they are, otherwise what is
 * impossible about them (e.g. an owner epoch above every lease epoch ever issued). Must be
 * deterministic for the same document and cluster history, and may throw a retryable error.
 */
export type DocumentCheck = (doc: ActorDocument) => Promise<string | undefined>;

/** Where an element is applied: its key, agent and the writer's epoch. */
export interface ElementScope {
  readonly stateKey: string;
  readonly agent: string;
  readonly ownerEpoch: number;
  /** Aborted when the partition is lost or the process stops: the element is left unacked. */
  readonly signal: AbortSignal;
}

/** One turn of {@link ActorRuntime.process}: an outcome, or a commit (after which deferred events may still be owed a run). */
type StepResult = Exclude<ProcessOutcome, { kind: 'applied' } | { kind: 'abandoned' }> | { readonly kind: 'committed'; readonly report: ActivationReport; readonly drainNext: boolean };

/** What one element has done so far across its turns: the first commit's report (a drain commits again, and the element reports what it ran). */
interface ElementProgress {
  applied: ActivationReport | undefined;
  /** Attempts of the current activation that failed retryably (reset by every commit). */
  failedAttempts: number;
}

/** How processing one element ended; the caller maps it to ack / no ack. */
export type ProcessOutcome =
  /** Committed and published: ack. */
  | { readonly kind: 'applied'; readonly report: ActivationReport }
  /** Already applied (outbox republished when it was this element's): ack. */
  | { readonly kind: 'duplicate' }
  /** Nothing to do: ack. */
  | { readonly kind: 'noop' }
  /**
   * A direct element for an agent not hosted here: its error record is stored (under an id derived
   * from the inbox sequence) and no state exists to commit to: ack.
   */
  | { readonly kind: 'refused'; readonly reason: ErrorReason }
  /** A newer owner wrote the key: do not ack; stop the partition. */
  | { readonly kind: 'fenced'; readonly storedEpoch: number }
  /**
   * The key's stored document is corrupt or impossible (forged): the element's `state_quarantined`
   * record (naming its inbox message, so it can be redriven after a repair) is published and
   * nothing is committed: ack. The partition's other keys are unaffected.
   */
  | { readonly kind: 'quarantined'; readonly detail: string }
  /** The scope's signal aborted before the element finished: do not ack (it will be redelivered). */
  | { readonly kind: 'abandoned' };

/**
 * The per-message commit protocol of ARCHITECTURE §5 over injected ports: read (cache or store) →
 * apply → CAS commit with the owner epoch → publish the outbox → report. Infrastructure failures
 * (conflicts, outages, a state schema from the future, an agent not hosted here) are retried in
 * place with backoff, holding the key's position so its order is preserved; nothing is skipped
 * and nothing is dead-lettered for them.
 *
 * Redelivery: an element at or below `lastAppliedSeq` is a duplicate; if it is the last applied
 * element its outbox is republished (the crash-between-commit-and-ack case), deduplicated
 * downstream by `Nats-Msg-Id`. Crash: nothing is acked before its commit and publish, so the
 * element comes back and takes the duplicate path.
 *
 * Every event of a hosted agent, and every direct element (published by a client straight into
 * the lane), is first screened with the ingress rules (`screenDirect`), whether or not it carries
 * the `Agents-Direct` header. A refusal for a hosted agent is committed like any failure
 * (`lastAppliedSeq` + one error record). A refusal for an agent not hosted here has no document to
 * commit to: its record is published under the id `errorMessageId(agent, key, inboxSeq)` and the
 * element is acked — the ack is the dedup mark, and a redelivery before it republishes the same id,
 * which the errors stream drops inside its duplicate window. Forwarded elements of an unhosted
 * agent are still held (deploy skew), never refused.
 *
 * Callers must serialize elements per key (see `KeyMailbox`).
 */
export class ActorRuntime {
  private readonly cache: ActorCache;
  // In slots: set and deleted once per activation of a key (see SlotMap).
  private readonly memos = new SlotMap<string, AttemptMemo>();
  private readonly agentLedger: AgentTokenLedger;

  constructor(private readonly deps: ActorRuntimeDeps) {
    this.cache = new ActorCache({ entries: deps.cacheCapacity, bytes: deps.cacheMaxBytes ?? Number.MAX_SAFE_INTEGER });
    this.agentLedger = deps.agentLedger ?? new InMemoryAgentTokenLedger();
  }

  async process(element: InboxElement, scope: ElementScope): Promise<ProcessOutcome> {
    const refusal = this.screen(element, scope.agent);
    const progress: ElementProgress = { applied: undefined, failedAttempts: 0 };
    for (let attempt = 0; ; attempt += 1) {
      if (scope.signal.aborted) return { kind: 'abandoned' };
      try {
        const step = await this.step(element, scope, refusal, progress);
        const applied = progress.applied;
        if (step.kind !== 'committed') {
          // A commit whose publish failed comes back as a duplicate: the element is still applied.
          if (step.kind === 'duplicate' && applied !== undefined) return { kind: 'applied', report: applied };
          if (step.kind === 'duplicate') this.deps.observer?.duplicate?.(scope.stateKey, element.inboxSeq);
          return step;
        }
        if (!step.drainNext) return { kind: 'applied', report: applied ?? step.report };
        // Deferred events wait: each runs as its own commit before the element is acknowledged.
        attempt = -1;
      } catch (thrown) {
        if (thrown instanceof ActivationRetry) progress.failedAttempts = thrown.attempt;
        await this.backOff(thrown, attempt, scope, element);
      }
    }
  }

  /**
   * The ingress rules applied here: to a direct element always, and to every other event of a
   * hosted agent as well, whatever headers it carries (a publisher with rights on the inbox can
   * leave `Agents-Direct` off, and the runtime must not take an element's word for having passed
   * ingress). A forwarded event of an agent not hosted here is not screened: that is deploy skew,
   * held as {@link AgentNotHosted}. Results, approvals and timers carry no event to screen.
   */
  private screen(element: InboxElement, agent: string): ElementRefusal | undefined {
    if (element.direct === true) return this.deps.screenDirect?.(element, agent);
    if (element.payload.kind !== 'event' || !this.deps.agents.has(agent)) return undefined;
    return this.deps.screenDirect?.(element, agent);
  }

  /**
   * One turn of the protocol for `element`: read → decide → commit and publish. Throws on any
   * infrastructure failure (the caller backs off and runs the turn again from a fresh read).
   */
  private async step(element: InboxElement, scope: ElementScope, refusal: ElementRefusal | undefined, progress: ElementProgress): Promise<StepResult> {
    const agent = this.deps.agents.get(scope.agent);
    if (agent === undefined) {
      if (refusal !== undefined) return await this.refuseUnhosted(element, scope, refusal);
      throw new AgentNotHosted(`agent '${scope.agent}' is not hosted by this activator`);
    }
    const owner: TimerOwner = { stateKey: scope.stateKey, agent: scope.agent, entityKey: element.entityKey };
    let actor: CachedActor | undefined;
    try {
      actor = await this.read(scope.stateKey);
    } catch (thrown) {
      if (thrown instanceof StateDocumentCorrupt) return await this.quarantine(element, scope, thrown.message);
      throw thrown;
    }
    const deps = this.applyDeps(agent, scope, progress.failedAttempts + 1);
    const { result, drained } = await this.decide(actor, element, deps, refusal, owner);
    switch (result.kind) {
      case 'noop':
        if (element.payload.kind === 'timer') await this.deps.timerIndex?.reconcile(owner, actor?.doc.timers ?? []);
        return { kind: 'noop' };
      case 'fenced': {
        const forged = await this.implausible(actor);
        if (forged !== undefined) return await this.quarantine(element, scope, forged);
        this.cache.evict(scope.stateKey);
        this.deps.observer?.fenced?.(scope.stateKey, result.storedEpoch, scope.ownerEpoch);
        return { kind: 'fenced', storedEpoch: result.storedEpoch };
      }
      case 'duplicate': {
        const forged = await this.implausible(actor);
        if (forged !== undefined) return await this.quarantine(element, scope, forged);
        this.memos.delete(scope.stateKey);
        return { kind: 'duplicate' };
      }
      case 'commit': {
        // A drained (deferred) event's failure commit must still consume that event.
        const before = drained && actor !== undefined ? { ...actor.doc, deferred: actor.doc.deferred.slice(1) } : actor?.doc;
        return this.commit(actor, before, result, element, scope, owner, progress);
      }
    }
  }

  /**
   * The decision for `element` over the key's committed document. A duplicate of the last applied
   * element first finishes that element's work (republish its outbox if this process has not seen
   * it published, re-write its timers), then runs one deferred event if the suspension they waited
   * for has ended.
   */
  private async decide(actor: CachedActor | undefined, element: InboxElement, deps: ApplyDeps, refusal: ElementRefusal | undefined, owner: TimerOwner): Promise<{ result: ApplyResult; drained: boolean }> {
    const result = refusal === undefined ? await applyElement(actor?.doc, element, deps) : applyRefusal(actor?.doc, element, refusal, deps);
    if (result.kind !== 'duplicate' || actor === undefined) return { result, drained: false };
    const doc = actor.doc;
    const lastApplied = doc.lastAppliedSeq === element.inboxSeq;
    if (!actor.published && lastApplied) {
      if (doc.outbox.length > 0) await this.deps.publisher.publish(doc.outbox);
      // The commit's own afterCommit may never have run (its publish or index write failed, or
      // the process died): without this the schedule would miss a timer the state holds.
      await this.deps.timerIndex?.afterCommit(owner, doc.timers);
      this.cache.set(owner.stateKey, { ...actor, published: true });
    }
    // Events that waited behind a suspension which has ended run now, one commit each, before
    // the element is acknowledged (so a crash mid-drain resumes the drain on redelivery). Only
    // the last applied element drains: an older redelivery must not commit over an outbox that
    // may not be published yet.
    if (lastApplied && needsDrain(doc)) return { result: await drainDeferred(doc, deps), drained: true };
    return { result, drained: false };
  }

  /**
   * Commits a decision: size check → long-term flush → timer index (before) → CAS write with the
   * expected revision → publish the outbox → timer index (after). A failure after the write is
   * retried through the duplicate path, exactly like a crash between commit and ack.
   */
  private async commit(
    actor: CachedActor | undefined,
    before: ActorDocument | undefined,
    result: Extract<ApplyResult, { kind: 'commit' }>,
    element: InboxElement,
    scope: ElementScope,
    owner: TimerOwner,
    progress: ElementProgress,
  ): Promise<StepResult> {
    // A hold ends with the key's next commit (the document it was read from carried it forward).
    let { next, bytes, report } = this.fitToLimit(before, withoutHold(result.next), result.report, element, scope);
    // Long-term saves flush before the commit (seq-guarded, so a retry converges on the same
    // rows); a flush failure fails the activation closed.
    if (result.upserts !== undefined && result.upserts.length > 0 && this.deps.longterm !== undefined) {
      try {
        await this.deps.longterm.store.upsert(result.upserts);
      } catch (thrown) {
        // An expiry's flush must not lose memory: hold the key and retry. An activation's fails closed.
        if (result.flushFailure === 'retry') throw thrown;
        ({ next, bytes, report } = this.failClosed(before, report, element, scope, `LongTermFlushFailed: ${ensureError(thrown).message}`));
      }
    }
    const timersChanged = !sameTimers(actor?.doc.timers ?? [], next.timers);
    if (timersChanged) await this.deps.timerIndex?.beforeCommit(owner, next.timers);
    const revision = await this.deps.store.commit(scope.stateKey, bytes, actor?.revision);
    this.memos.delete(scope.stateKey);
    const cached: CachedActor = { doc: next, revision, bytes: bytes.length, published: false };
    this.cache.set(scope.stateKey, cached);
    progress.applied ??= report;
    progress.failedAttempts = 0;
    try {
      if (next.outbox.length > 0) await this.deps.publisher.publish(next.outbox);
    } finally {
      // Reported after the outbox went out (whether or not its publish then failed: the commit
      // landed once and counts once), so counting and logging are not between the state write and
      // the outputs and intents it releases.
      this.deps.observer?.committed?.(scope.stateKey, report, bytes.length);
    }
    cached.published = true;
    if (timersChanged) await this.deps.timerIndex?.afterCommit(owner, next.timers);
    return { kind: 'committed', report, drainNext: needsDrain(next) };
  }

  /** Waits before the next turn after an infrastructure failure (a conflict's first retry is immediate). */
  private async backOff(thrown: unknown, attempt: number, scope: ElementScope, element: InboxElement): Promise<void> {
    const error = ensureError(thrown);
    if (error instanceof CommitConflict) this.deps.observer?.conflict?.(scope.stateKey);
    const floor = error instanceof RetryableError ? (error.retryAfterMs ?? 0) : 0;
    const delayMs = error instanceof CommitConflict && attempt === 0 ? 0 : backoffDelay(this.deps.backoff, attempt, this.deps.random, floor);
    if (error instanceof ActivationRetry) await this.recordHold(scope, element, error, delayMs);
    // The write may have landed (ambiguous) or the cache may be stale: re-read next time.
    this.cache.evict(scope.stateKey);
    this.deps.observer?.retrying?.(scope.stateKey, error, attempt, delayMs);
    await sleep(this.deps.timers, delayMs, scope.signal);
  }

  /**
   * Writes the hold into the key's document (`hold`: the element, its failed attempts, the next
   * attempt's time), so `nats-agents state` shows why and until when the key waits. Best effort and
   * fenced like a commit: only over a document this writer may write (its epoch or older), with the
   * revision read, never touching the attempt memo (the retry must still find its paid answers).
   * A failure to write is ignored: the hold is a view, the retry goes on regardless. The next commit
   * of the key drops it. A key with no document yet gets an empty one carrying the hold.
   */
  private async recordHold(scope: ElementScope, element: InboxElement, retry: ActivationRetry, delayMs: number): Promise<void> {
    const nowMs = this.deps.nowMs;
    if (nowMs === undefined) return;
    try {
      const stored = await this.deps.store.load(scope.stateKey);
      if (stored !== undefined && stored.doc.ownerEpoch > scope.ownerEpoch) return;
      const base = stored?.doc ?? emptyActorDocument(scope.agent, element.entityKey);
      if (base.lastAppliedSeq >= element.inboxSeq) return;
      const hold: RetryHoldDoc = {
        inboxSeq: element.inboxSeq,
        failedAttempts: retry.attempt,
        maxAttempts: this.deps.maxActivationAttempts ?? 1,
        nextAttemptAtMs: nowMs() + delayMs,
        delayMs,
        error: `${retry.cause.name}: ${retry.cause.message}`.slice(0, 512),
      };
      await this.deps.store.commit(scope.stateKey, encodeActorDocument({ ...base, ownerEpoch: scope.ownerEpoch, hold }), stored?.revision);
    } catch {
      // A view only: the retry does not depend on it.
    }
  }

  /** The pure step's ports for one turn of `scope`'s key. */
  private applyDeps(agent: AgentDefinition, scope: ElementScope, attempt: number): ApplyDeps {
    return {
      retry: { attempt, maxAttempts: this.deps.maxActivationAttempts ?? 1 },
      agent,
      provider: this.deps.provider,
      addressing: this.deps.addressing,
      timers: this.deps.timers,
      monotonicMs: this.deps.monotonicMs,
      ownerEpoch: scope.ownerEpoch,
      memo: this.memo(scope.stateKey),
      activationTimeoutMs: this.deps.activationTimeoutMs,
      onSoftCap: () => this.deps.observer?.softCap?.(scope.stateKey),
      onModelCall: (call: ModelCallRecord) => this.deps.observer?.modelCall?.(scope.stateKey, call),
      ...(this.deps.signer ? { signer: this.deps.signer } : {}),
      ...(this.deps.longterm ? { longterm: this.deps.longterm } : {}),
      agentLedger: this.agentLedger,
    };
  }

  /**
   * Publishes the refusal record of a direct element whose agent is not hosted here. No document
   * is written: a state key per name a publisher mistyped would grow the bucket without bound, and
   * nothing of an unknown agent needs to be remembered. A failed publish throws (retried in place).
   */
  private async refuseUnhosted(element: InboxElement, scope: ElementScope, refusal: ElementRefusal): Promise<Extract<ProcessOutcome, { kind: 'refused' }>> {
    const record = errorEntry(
      this.deps.addressing,
      { agent: scope.agent, entityKey: element.entityKey, reason: refusal.reason, detail: refusal.detail, eventTimeMs: element.eventTimeMs },
      element.inboxSeq,
      traceHeaders(element.headers),
    );
    await this.deps.publisher.publish([record]);
    this.deps.observer?.refused?.(scope.stateKey, refusal.reason);
    return { kind: 'refused', reason: refusal.reason };
  }

  /**
   * What is impossible about a document that fences this writer or makes the element a duplicate
   * (only checked then: an ordinary commit never trusts the stored claims for anything).
   */
  private async implausible(actor: CachedActor | undefined): Promise<string | undefined> {
    if (actor === undefined || this.deps.checkDocument === undefined) return undefined;
    return this.deps.checkDocument(actor.doc);
  }

  /**
   * The key's document cannot be trusted: publishes the element's `state_quarantined` record
   * (id derived from the inbox sequence, so a redelivery before the ack is deduplicated by the
   * errors stream) and commits nothing. Every element of the key takes this path until an operator
   * repairs the document; each record names its inbox message, so `errors redrive` re-applies
   * them afterwards. A failed publish throws (retried in place).
   */
  private async quarantine(element: InboxElement, scope: ElementScope, detail: string): Promise<Extract<ProcessOutcome, { kind: 'quarantined' }>> {
    this.cache.evict(scope.stateKey);
    this.memos.delete(scope.stateKey);
    const record = errorEntry(
      this.deps.addressing,
      { agent: scope.agent, entityKey: element.entityKey, reason: ErrorReason.StateQuarantined, detail: `key quarantined: ${detail}`, eventTimeMs: element.eventTimeMs },
      element.inboxSeq,
      traceHeaders(element.headers),
    );
    await this.deps.publisher.publish([record]);
    this.deps.observer?.quarantined?.(scope.stateKey, detail);
    return { kind: 'quarantined', detail };
  }

  /**
   * Publishes the error record of an inbox message no element can be made of (it does not decode,
   * its envelope contradicts its subject, its event time is out of range): reason
   * `malformed_input` (or the `reason` given: a refused seal), id derived from the inbox sequence (a redelivery before the ack republishes
   * the same id, dropped by the errors stream). The caller acks once this resolves; a failed
   * publish throws and the message stays unacknowledged.
   */
  async recordUnreadable(input: {
    readonly agent: string;
    readonly entityKey: Uint8Array;
    readonly inboxSeq: number;
    readonly eventTimeMs: number;
    readonly detail: string;
    /** The record's reason: `malformed_input` unless given (a refused seal names its own). */
    readonly reason?: ErrorReason;
  }): Promise<void> {
    const record = errorEntry(
      this.deps.addressing,
      { agent: input.agent, entityKey: input.entityKey, reason: input.reason ?? ErrorReason.MalformedInput, detail: input.detail, eventTimeMs: input.eventTimeMs },
      input.inboxSeq,
      [],
    );
    await this.deps.publisher.publish([record]);
  }

  /**
   * Publishes the `unknown_agent` record of an element whose agent is not hosted by this activator
   * (the deployment no longer has it): id derived from the inbox sequence, so publishing it again
   * for the same element (another owner, a restart) is dropped by the errors stream inside its
   * duplicate window. The caller parks the key instead of retrying it. A failed publish throws.
   */
  async recordNotHosted(input: { readonly agent: string; readonly entityKey: Uint8Array; readonly inboxSeq: number; readonly eventTimeMs: number; readonly headers: InboxElement['headers'] }): Promise<void> {
    const record = errorEntry(
      this.deps.addressing,
      {
        agent: input.agent,
        entityKey: input.entityKey,
        reason: ErrorReason.UnknownAgent,
        detail: `agent '${input.agent}' is not hosted by this activator: the key is parked from this element until an activator hosting it takes the partition`,
        eventTimeMs: input.eventTimeMs,
      },
      input.inboxSeq,
      traceHeaders(input.headers),
    );
    await this.deps.publisher.publish([record]);
  }

  /** Whether `agent` is hosted here. */
  hosts(agent: string): boolean {
    return this.deps.agents.has(agent);
  }

  /** Forgets cached documents of keys matching `predicate` (a partition handed away). */
  forget(predicate: (stateKey: string) => boolean): void {
    this.cache.evictWhere(predicate);
    for (const key of [...this.memos.keys()]) if (predicate(key)) this.memos.delete(key);
  }

  /** Documents currently cached, and their encoded bytes (telemetry). */
  get cacheUsage(): { readonly entries: number; readonly bytes: number } {
    return { entries: this.cache.size, bytes: this.cache.bytes };
  }

  private async read(stateKey: string): Promise<CachedActor | undefined> {
    const cached = this.cache.get(stateKey);
    if (cached !== undefined) return cached;
    const stored = await this.deps.store.load(stateKey);
    if (stored === undefined) return undefined;
    // Whether a loaded document's outbox was published is unknown: the duplicate path decides.
    const actor: CachedActor = { doc: stored.doc, revision: stored.revision, bytes: stored.bytes ?? encodeActorDocument(stored.doc).length, published: false };
    this.cache.set(stateKey, actor);
    return actor;
  }

  private memo(stateKey: string): AttemptMemo {
    let memo = this.memos.get(stateKey);
    if (memo === undefined) {
      memo = new AttemptMemo();
      this.memos.set(stateKey, memo);
    }
    return memo;
  }

  /**
   * A document the server would refuse (max_payload) must not wedge the key: the element fails
   * closed with an `activation_error` record instead, and the key carries on.
   */
  private fitToLimit(before: ActorDocument | undefined, next: ActorDocument, report: ActivationReport, element: InboxElement, scope: ElementScope): { next: ActorDocument; bytes: Uint8Array; report: ActivationReport } {
    const bytes = encodeActorDocument(next);
    if (bytes.length <= this.deps.maxDocumentBytes) return { next, bytes, report };
    return this.failClosed(before, report, element, scope, `StateTooLarge: the state document would be ${bytes.length} bytes, over the ${this.deps.maxDocumentBytes}-byte limit`);
  }

  /**
   * The failure commit replacing an activation that cannot be committed as it ran: the document
   * before the element, plus `lastAppliedSeq`, the epoch and one `activation_error` record.
   */
  private failClosed(before: ActorDocument | undefined, report: ActivationReport, element: InboxElement, scope: ElementScope, detail: string): { next: ActorDocument; bytes: Uint8Array; report: ActivationReport } {
    const record = errorEntry(
      this.deps.addressing,
      { agent: scope.agent, entityKey: element.entityKey, reason: ErrorReason.ActivationError, detail, eventTimeMs: element.eventTimeMs },
      element.inboxSeq,
      traceHeaders(element.headers),
    );
    // Roll back to what was committed before this element; keep only the failure record.
    const base = before ?? emptyActorDocument(scope.agent, element.entityKey);
    const failed: ActorDocument = { ...base, lastAppliedSeq: Math.max(base.lastAppliedSeq, element.inboxSeq), ownerEpoch: scope.ownerEpoch, outbox: [record] };
    return {
      next: failed,
      bytes: encodeActorDocument(failed),
      report: { status: 'failed', seq: report.seq, reason: ErrorReason.ActivationError, ...(report.tally ? { tally: report.tally } : {}), outputs: 0 },
    };
  }
}

/** `doc` without its retry hold (the same object when it has none). */
function withoutHold(doc: ActorDocument): ActorDocument {
  if (doc.hold === undefined) return doc;
  const { hold: _hold, ...rest } = doc;
  return rest;
}
