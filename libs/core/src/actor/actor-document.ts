/**
 * The per-key actor document as the core manipulates it: plain, fully-populated values that the
 * state codec maps to and from `nats_agents.v1.ActorState`. One document is one KV value; one CAS
 * update commits a whole activation (invariant 1).
 */

/** The state schema version this binary writes. A document with a higher one stops its key (invariant 7). */
export const CURRENT_STATE_SCHEMA_VERSION = 1;

export interface MemoryEntryDoc {
  readonly key: string;
  /** Kind tag (0x00 scalar, 0x01 ring) followed by the payload. */
  readonly value: Uint8Array;
  readonly lastAccessMs: number;
}

/** Working memory, least recently used first. */
export interface MemoryBlobDoc {
  readonly entries: readonly MemoryEntryDoc[];
  readonly totalBytes: number;
}

export interface CacheEntryDoc {
  readonly cacheKey: string;
  readonly response: Uint8Array;
  readonly responseDigest: Uint8Array;
  readonly createdAtMs: number;
  readonly lastAccessMs: number;
  readonly digestOnly: boolean;
}

/** The replay cache, least recently used first. */
export interface CacheBlobDoc {
  readonly entries: readonly CacheEntryDoc[];
  readonly totalResponseBytes: number;
}

export interface ContinuationDoc {
  readonly seq: number;
  readonly stepIndex: number;
  readonly pendingIntentIds: readonly string[];
  readonly snapshot: Uint8Array;
  readonly suspendedAtMs: number;
  readonly deadlineMs: number;
  readonly escalations: number;
  readonly traceId: Uint8Array;
}

export const IntentKind = {
  /** A side-effecting tool call executed by the effector. */
  Tool: 1,
  /** A request for a human decision. */
  Approval: 2,
} as const;
export type IntentKind = (typeof IntentKind)[keyof typeof IntentKind];

/** A staged or pending tool intent (mirror of `nats_agents.v1.ToolIntent`). */
export interface ToolIntentDoc {
  readonly intentId: string;
  readonly agent: string;
  readonly entityKey: Uint8Array;
  readonly seq: number;
  readonly stepIndex: number;
  readonly toolName: string;
  readonly argsJson: string;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
  readonly attempt: number;
  readonly kind: IntentKind;
  readonly traceId: Uint8Array;
  readonly signatureScheme: number;
  readonly signingKeyId: string;
  readonly signature: Uint8Array;
}

export interface HeaderDoc {
  readonly name: string;
  readonly value: string;
}

/** A message the committed activation owes the world, published with `Nats-Msg-Id = msgId`. */
export interface OutboxEntryDoc {
  readonly subject: string;
  readonly msgId: string;
  readonly payload: Uint8Array;
  readonly headers: readonly HeaderDoc[];
}

export const TimerKind = {
  /** The suspension deadline. */
  Deadline: 1,
  /** Idle working-memory reclamation. */
  IdleTtl: 2,
  /** Batching flush. */
  Flush: 3,
} as const;
export type TimerKind = (typeof TimerKind)[keyof typeof TimerKind];

export interface TimerDoc {
  readonly timerId: string;
  readonly kind: TimerKind;
  readonly dueAtMs: number;
}

/** An inbox element waiting for the key's suspension to end. */
export interface DeferredEventDoc {
  readonly inboxSeq: number;
  readonly event: Uint8Array;
  readonly eventTimeMs: number;
  readonly headers: readonly HeaderDoc[];
}

export interface ActorDocument {
  readonly stateSchemaVersion: number;
  readonly agent: string;
  readonly entityKey: Uint8Array;
  /** Committed attempts; the next activation runs at this seq. */
  readonly seq: number;
  /** Inbox stream sequence of the last element applied; redeliveries at or below it are duplicates. */
  readonly lastAppliedSeq: number;
  /** Lease revision of the writer (fencing). */
  readonly ownerEpoch: number;
  readonly memory: MemoryBlobDoc;
  readonly llmCache: CacheBlobDoc;
  readonly continuation: ContinuationDoc | undefined;
  readonly pending: readonly ToolIntentDoc[];
  readonly outbox: readonly OutboxEntryDoc[];
  readonly timers: readonly TimerDoc[];
  readonly deferred: readonly DeferredEventDoc[];
  /** Tokens of committed activations by event time, for a per-key token budget (absent: none recorded). */
  readonly tokenSpend?: readonly TokenSpendDoc[];
  /**
   * Present while the key is held in backoff after a retryable failure of its current element:
   * written by the owner when the hold starts, dropped by the next commit. For operators (the
   * `state` command); never read by a decision, so a replay that rebuilds the document ends the
   * same without it.
   */
  readonly hold?: RetryHoldDoc;
}

/** A key held in backoff before its next attempt (see {@link ActorDocument.hold}). */
export interface RetryHoldDoc {
  /** Inbox stream sequence of the element being retried. */
  readonly inboxSeq: number;
  /** Attempts of the element that failed so far. */
  readonly failedAttempts: number;
  /** After this many failed attempts an `activation_error` record ends the element. */
  readonly maxAttempts: number;
  /** Processing time (epoch ms, the activator's clock) of the next attempt. */
  readonly nextAttemptAtMs: number;
  /** The backoff before it, in ms. */
  readonly delayMs: number;
  /** The failure's class and message. */
  readonly error: string;
}

/** The tokens one committed activation used, at its event time. */
export interface TokenSpendDoc {
  readonly atMs: number;
  readonly tokens: number;
}

const EMPTY_BYTES = new Uint8Array(0);

/** The document of a key that has never committed: seq 0, nothing applied, empty memory. */
export function emptyActorDocument(agent: string, entityKey: Uint8Array): ActorDocument {
  return {
    stateSchemaVersion: CURRENT_STATE_SCHEMA_VERSION,
    agent,
    entityKey,
    seq: 0,
    lastAppliedSeq: 0,
    ownerEpoch: 0,
    memory: { entries: [], totalBytes: 0 },
    llmCache: { entries: [], totalResponseBytes: 0 },
    continuation: undefined,
    pending: [],
    outbox: [],
    timers: [],
    deferred: [],
  };
}

export { EMPTY_BYTES };
