/**
 * The per-intent protocol of the effector (ARCHITECTURE §7, beam-agents §1.17), free of NATS:
 *
 *   verify → refuse if expired → claim → execute → complete → publish → (ack, by the caller)
 *
 * - verify: a refused signature gets an error record only — no result, no store call.
 * - expiry is decided before the store is touched (`expiresAtMs <= now`, 0 included), and again
 *   after a claim that had to wait, so an intent never starts after its expiry.
 * - claim: `done` republishes the stored bytes verbatim and never executes; `in_flight` waits with
 *   bounded exponential backoff and never skips; `claimed` proceeds.
 * - complete before publish: the result is durable first, so a crash between the two republishes
 *   the stored result on redelivery (no re-execution); a refused completion (lost claim) publishes
 *   nothing and acks nothing.
 * - publish: retried with backoff, never re-executing; exhausted → unacknowledged, redelivered.
 *
 * Store outages are retried in place, holding the intent. Stopping (`scope.stopping`) ends waits
 * and releases a claim whose tool has not started; halting (`scope.halted`) abandons a running
 * tool to lease expiry.
 *
 * Honest bound: a tool runs at most once per intent id while its claim holds, but it CAN run again
 * if the effector crashes or halts between the tool's start and the completion write, or if a run
 * outlives its lease (clock skew, a paused process) and another replica takes over. Tools that pass
 * `intent.intentId` downstream as an idempotency key get exactly-once effects.
 */
import type { KeyObject } from 'node:crypto';
import {
  backoffDelay,
  decodeToolResult,
  encodeToolResult,
  ensureError,
  ErrorReason,
  intentExpired,
  sleep,
  ToolResultStatus,
  type AnyToolDefinition,
  type Clock,
  type ClusterKeys,
  type HeaderDoc,
  type OutboxEntryDoc,
  type OutboxPublisher,
  type Timers,
  type ToolIntentDoc,
} from '#core';
import type { Topology } from '#routing';
import type { ClaimHandle, ClaimOutcome, DedupStore } from './dedup/dedup-store.js';
import type { EffectorObserver, StoreOperation } from './effector-observer.js';
import { carriedTraceHeaders, refusalEntry, resultEntry, type Refusal } from './effector-messages.js';
import { routingProblem, type DecodedDelivery } from './intent-delivery.js';
import type { IntentOutcome } from './intent-outcome.js';
import { EffectorBackoff, PUBLISH_MAX_ATTEMPTS } from './retry-policy.js';
import { prepareToolCall } from './tool-call.js';
import { invokeTool } from './tool-invocation.js';
import { failedVerdict, type ToolVerdict } from './tool-verdict.js';
import { decideVerification, type VerificationMode } from './verification.js';

/** Everything the processor needs; the composition root wires NATS-backed implementations. */
export interface IntentProcessorDeps {
  readonly store: DedupStore;
  readonly publisher: OutboxPublisher;
  readonly topology: Pick<Topology, 'results' | 'errors'>;
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  readonly verification: VerificationMode;
  readonly keyring: ReadonlyMap<string, Uint8Array | KeyObject>;
  /** The cluster keys results are sealed with (docs/decisions/0058); none: results go unsealed. */
  readonly sealing?: ClusterKeys;
  /** The effector's clock: expiry, leases, `completedAtMs`, tool durations. */
  readonly clock: Clock;
  readonly timers: Timers;
  readonly random: () => number;
  /** A fresh random claim token per delivery. */
  readonly newToken: () => string;
  readonly secret: (reference: string) => string;
  readonly observer: EffectorObserver;
  /** `effector.leaseMs`: above every tool timeout. */
  readonly leaseMs: number;
  /** `effector.resultTtlMs`: how long a completed result is kept for redeliveries. */
  readonly resultTtlMs: number;
  /** `effector.toolTimeoutMs`. */
  readonly toolTimeoutMs: number;
  /**
   * The largest encoded result the deployment accepts back (`ingress.maxEventBytes`); a larger
   * OK answer is recorded as ERROR instead. Unbounded when absent.
   */
  readonly maxResultBytes?: number;
  /**
   * True while an erasure holds the entity `key` (`EntityPauses.isKeyPaused`): its intents are
   * neither claimed nor answered until the resume. Nothing is paused when absent.
   */
  readonly paused?: (entityKey: Uint8Array) => boolean;
  /** Sleeps (defaults to core `sleep` on `timers`); specs inject one that moves a fake clock. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The signals of the service's lifecycle, shared by every intent in flight. */
export interface ProcessScope {
  /** Aborted when the service starts stopping: no new claims, waits end, unstarted claims are released. */
  readonly stopping: AbortSignal;
  /** Aborted when the drain window ends: running tools are abandoned (claims left to expire), retries stop. */
  readonly halted: AbortSignal;
}

const ABANDONED = { kind: 'abandoned' } as const satisfies IntentOutcome;
const PAUSED = { kind: 'paused' } as const satisfies IntentOutcome;

/** Runs the effector protocol for one delivery at a time per intent id (the caller serialises by id). */
export class IntentProcessor {
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly deps: IntentProcessorDeps) {
    this.sleep = deps.sleep ?? ((ms, signal) => sleep(deps.timers, ms, signal));
  }

  /**
   * Processes one delivery. Resolves (never rejects) with the outcome the caller maps to an
   * acknowledgement. Safe to call again for a redelivery of the same intent: every phase is
   * idempotent per intent id.
   */
  async process(decoded: DecodedDelivery, scope: ProcessScope): Promise<IntentOutcome> {
    const carried = carriedTraceHeaders(decoded.delivery.headers);
    const refusal = (reason: ErrorReason, detail: string, intent: ToolIntentDoc | undefined): Refusal => ({
      reason,
      detail,
      intent,
      raw: decoded.delivery.data,
      publishedAtMs: decoded.delivery.publishedAtMs,
    });
    if (decoded.kind === 'undecodable') return this.refuse(refusal(ErrorReason.MalformedInput, decoded.detail, undefined), carried, scope);
    const intent = decoded.intent;

    // 1. verify (phase 0): before expiry, routing, the store and the tool.
    const verification = decideVerification(this.deps.verification, intent, this.deps.keyring);
    if (verification.kind === 'refuse') return this.refuse(refusal(verification.reason, verification.detail, intent), carried, scope);
    if (verification.kind === 'accept_unsigned') this.deps.observer.unsignedAccepted(intent.intentId);
    const problem = routingProblem(intent);
    if (problem !== undefined) return this.refuse(refusal(ErrorReason.MalformedInput, problem, intent), carried, scope);

    // 2. refuse if expired: no store call, no execution (fail-closed layer 2, invariant 6).
    const expiredAt = this.deps.clock.nowMs();
    if (intentExpired(intent, expiredAt)) return this.publishUnrecorded(intent, expiredVerdict(intent), expiredAt, carried, scope);

    // An entity being erased gets no new effect; its intent is erased or redelivered after the resume.
    if (this.isPaused(intent)) return PAUSED;

    // 3. claim.
    const claimed = await this.claim(intent, scope);
    if (claimed === undefined) return ABANDONED;
    if (claimed.kind === 'done') {
      this.deps.observer.deduped(intent.intentId);
      return this.republish(intent, claimed.result, carried, scope);
    }
    const claim = claimed.claim;

    // 4. execute (or refuse without starting anything).
    let verdict: ToolVerdict;
    let executed = false;
    if (intentExpired(intent, this.deps.clock.nowMs())) {
      // It expired while we waited for another replica's lease: never start it late.
      verdict = expiredVerdict(intent);
    } else {
      const call = await prepareToolCall(intent, this.deps.tools);
      if (call.kind === 'rejected') {
        verdict = call.verdict;
      } else {
        if (scope.stopping.aborted) {
          await this.release(intent.intentId, claim);
          return ABANDONED;
        }
        executed = true;
        const run = await invokeTool(call.tool, call.args, intent, scope.halted, {
          timers: this.deps.timers,
          random: this.deps.random,
          monotonicMs: () => this.deps.clock.monotonicMs(),
          defaultTimeoutMs: this.deps.toolTimeoutMs,
          secret: this.deps.secret,
        });
        if (run.kind === 'halted') {
          this.deps.observer.toolHalted(call.tool.name, intent.intentId, run.durationMs);
          return ABANDONED;
        }
        this.deps.observer.toolFinished(call.tool.name, intent.intentId, run.verdict.status, run.durationMs, run.attempts);
        verdict = run.verdict;
      }
    }

    // 5. complete: the result is durable before anyone can see it.
    const completedAtMs = this.deps.clock.nowMs();
    let bytes = encodeResult(intent, verdict, completedAtMs);
    const limit = this.deps.maxResultBytes ?? Number.POSITIVE_INFINITY;
    if (bytes.length > limit) {
      // Ingress would refuse it as payload_too_large and the agent would never hear back.
      verdict = failedVerdict(ToolResultStatus.Error, {
        name: 'ResultTooLarge',
        message: `the result of tool '${intent.toolName}' encodes to ${bytes.length} bytes, above the ${limit}-byte limit of results (ingress.maxEventBytes); the effect happened but its answer is dropped`,
      });
      bytes = encodeResult(intent, verdict, completedAtMs);
    }
    const completed = await this.withStore('complete', intent.intentId, scope.halted, () =>
      this.deps.store.complete(intent.intentId, claim, bytes, this.deps.resultTtlMs),
    );
    if (completed === undefined) return ABANDONED;
    if (!completed) {
      this.deps.observer.claimLost(intent.intentId);
      return { kind: 'claim_lost' };
    }

    // 6. publish (held back while the entity is being erased: the recorded result is erased with
    // it, or republished by the redelivery after an aborted erasure).
    if (this.isPaused(intent)) return PAUSED;
    if (!(await this.publish(intent.intentId, resultEntry(this.deps.topology, intent, bytes, completedAtMs, carried, this.deps.sealing), scope))) return { kind: 'unpublished' };
    this.deps.observer.resultPublished(intent.intentId, verdict.status);
    return { kind: 'published', status: verdict.status, executed };
  }

  private isPaused(intent: ToolIntentDoc): boolean {
    return this.deps.paused?.(intent.entityKey) === true;
  }

  /** Claims, waiting out live leases of others; undefined when stopping first. */
  private async claim(intent: ToolIntentDoc, scope: ProcessScope): Promise<Exclude<ClaimOutcome, { kind: 'in_flight' }> | undefined> {
    const token = this.deps.newToken();
    for (let wait = 0; ; wait += 1) {
      if (scope.stopping.aborted) return undefined;
      const outcome = await this.withStore('claim', intent.intentId, scope.stopping, () =>
        this.deps.store.claim(intent.intentId, { token, leaseMs: this.deps.leaseMs }),
      );
      if (outcome === undefined) return undefined;
      switch (outcome.kind) {
        case 'claimed':
        case 'done':
          return outcome;
        case 'in_flight': {
          const untilLeaseEnds = Math.max(1, outcome.leaseUntilMs - this.deps.clock.nowMs());
          const delay = Math.min(backoffDelay(EffectorBackoff.inFlight, wait, this.deps.random), untilLeaseEnds);
          this.deps.observer.inFlightWait(intent.intentId, wait, delay);
          await this.sleep(delay, scope.stopping);
        }
      }
    }
  }

  /** Gives back a claim whose tool never started; best effort (one attempt: the lease covers a failure). */
  private async release(intentId: string, claim: ClaimHandle): Promise<void> {
    try {
      this.deps.observer.claimReleased(intentId, await this.deps.store.release(intentId, claim));
    } catch (error) {
      this.deps.observer.storeRetry('release', intentId, ensureError(error), 0, 0);
      this.deps.observer.claimReleased(intentId, false);
    }
  }

  /** Runs a store operation, retrying in place with backoff until it answers; undefined once `signal` aborts. */
  private async withStore<T>(operation: StoreOperation, intentId: string, signal: AbortSignal, run: () => Promise<T>): Promise<T | undefined> {
    for (let attempt = 0; ; attempt += 1) {
      if (signal.aborted) return undefined;
      try {
        return await run();
      } catch (thrown) {
        const delay = backoffDelay(EffectorBackoff.store, attempt, this.deps.random);
        this.deps.observer.storeRetry(operation, intentId, ensureError(thrown), attempt, delay);
        await this.sleep(delay, signal);
      }
    }
  }

  /** Republishes a stored result verbatim (its event time read from the bytes). */
  private async republish(intent: ToolIntentDoc, stored: Uint8Array, carried: readonly HeaderDoc[], scope: ProcessScope): Promise<IntentOutcome> {
    let completedAtMs = 0;
    try {
      completedAtMs = decodeToolResult(stored).completedAtMs;
    } catch {
      // The bytes are republished as stored all the same; ingress judges them.
    }
    const published = await this.publish(intent.intentId, resultEntry(this.deps.topology, intent, stored, completedAtMs, carried, this.deps.sealing), scope);
    return published ? { kind: 'republished' } : { kind: 'unpublished' };
  }

  /** Publishes a result that is not recorded (EXPIRED before any claim). */
  private async publishUnrecorded(intent: ToolIntentDoc, verdict: ToolVerdict, completedAtMs: number, carried: readonly HeaderDoc[], scope: ProcessScope): Promise<IntentOutcome> {
    const bytes = encodeResult(intent, verdict, completedAtMs);
    if (!(await this.publish(intent.intentId, resultEntry(this.deps.topology, intent, bytes, completedAtMs, carried, this.deps.sealing), scope))) return { kind: 'unpublished' };
    this.deps.observer.resultPublished(intent.intentId, verdict.status);
    return { kind: 'published', status: verdict.status, executed: false };
  }

  /** Publishes an error record refusing the intent; nothing else happens. */
  private async refuse(refusal: Refusal, carried: readonly HeaderDoc[], scope: ProcessScope): Promise<IntentOutcome> {
    this.deps.observer.refused(refusal.intent?.intentId ?? '', refusal.reason, refusal.detail);
    if (!(await this.publish(refusal.intent?.intentId ?? '', refusalEntry(this.deps.topology, refusal, carried), scope))) return { kind: 'unpublished' };
    return { kind: 'refused', reason: refusal.reason };
  }

  /** Publishes with bounded retries; false when they are exhausted (or the effector halted). Never re-executes anything. */
  private async publish(intentId: string, entry: OutboxEntryDoc, scope: ProcessScope): Promise<boolean> {
    // Built only on a failure: an Error captures a stack, and a placeholder built up front paid that on every intent.
    let last: Error | undefined;
    for (let attempt = 0; attempt < PUBLISH_MAX_ATTEMPTS && !scope.halted.aborted; attempt += 1) {
      try {
        await this.deps.publisher.publish([entry]);
        return true;
      } catch (thrown) {
        last = ensureError(thrown);
        if (attempt + 1 < PUBLISH_MAX_ATTEMPTS) await this.sleep(backoffDelay(EffectorBackoff.publish, attempt, this.deps.random), scope.halted);
      }
    }
    this.deps.observer.publishFailed(intentId, last ?? new Error('not attempted: the effector halted'), PUBLISH_MAX_ATTEMPTS);
    return false;
  }
}

/** The deterministic `ToolResult` bytes of `verdict` for `intent`. */
function encodeResult(intent: ToolIntentDoc, verdict: ToolVerdict, completedAtMs: number): Uint8Array {
  return encodeToolResult({
    intentId: intent.intentId,
    entityKey: intent.entityKey,
    seq: intent.seq,
    status: verdict.status,
    payload: verdict.payload,
    errorMessage: verdict.errorMessage,
    completedAtMs,
  });
}

function expiredVerdict(intent: ToolIntentDoc): ToolVerdict {
  return failedVerdict(ToolResultStatus.Expired, {
    name: 'IntentExpired',
    message: intent.expiresAtMs <= 0 ? 'the intent carries no expiry, which counts as expired' : `the intent expired at ${intent.expiresAtMs}`,
  });
}
