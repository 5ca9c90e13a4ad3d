import type { AgentDefinition } from '../agent/agent-definition.js';
import type { ActivationTally, ModelCallRecord } from '../activation/activation-tally.js';
import type { AttemptMemo } from '../activation/attempt-memo.js';
import type { ModelProvider } from '../model/model-request.js';
import type { AgentTokenLedger } from '../model/agent-token-ledger.js';
import type { LongTermRecord } from '../longterm/long-term-record.js';
import type { LongTermStore } from '../longterm/long-term-store.js';
import type { Timers } from '../time/clock.js';
import type { ErrorReason } from '../vocabulary/error-reason.js';
import type { ActorDocument } from './actor-document.js';
import type { Addressing } from './addressing.js';
import type { IntentSigner } from './outbox-entries.js';

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
  /** The shared per-agent token counter (`budget.tokensPerAgent`); absent = that budget is not enforced. */
  readonly agentLedger?: AgentTokenLedger;
  /**
   * Retries of a retryable failure: `attempt` is this attempt's 1-based number for the element,
   * `maxAttempts` the bound. Below it a retryable failure throws `ActivationRetry` (the runtime
   * holds the key and retries); at it the failure commits an `activation_error` record carrying
   * the attempt count. Absent: one attempt (a retryable failure is recorded at once).
   */
  readonly retry?: { readonly attempt: number; readonly maxAttempts: number };
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
