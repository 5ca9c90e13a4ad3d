import { v1 } from '#proto';
import { RetryableError, TerminalError } from '../errors/runtime-error.js';
import {
  CURRENT_STATE_SCHEMA_VERSION,
  type ActorDocument,
  type CacheBlobDoc,
  type CacheEntryDoc,
  type ContinuationDoc,
  type HeaderDoc,
  type IntentKind,
  type TimerKind,
  type ToolIntentDoc,
} from './actor-document.js';
import { migrateToCurrent } from './state-migrations.js';

/**
 * A stored document carries a schema version newer than this binary understands (invariant 7).
 * Retryable by type: the key stops (no dead letter, nothing mutated) and is retried until the
 * binary is rolled forward; it is counted, never skipped.
 */
export class StateSchemaFromFuture extends RetryableError {
  override readonly name = 'StateSchemaFromFuture';
  readonly found: number;
  readonly supported: number;
  constructor(found: number, supported: number) {
    super(`state schema version ${found} is newer than this binary's ${supported}; roll the binary forward`);
    this.found = found;
    this.supported = supported;
  }
}

/**
 * The stored bytes are not an actor document (garbage written into the bucket, a truncated or
 * foreign value). Terminal: re-reading returns the same bytes. The runtime quarantines the key
 * (`state_quarantined` records) instead of retrying it.
 */
export class StateDocumentCorrupt extends TerminalError {
  override readonly name = 'StateDocumentCorrupt';
}

const EMPTY = new Uint8Array(0);

/**
 * Encodes a document deterministically: fields in number order, zero values omitted, repeated
 * fields in document order, no maps. The same document always yields the same bytes, which the
 * golden tests pin so a release cannot silently change what sits in users' buckets.
 *
 * Every commit writes the whole document, and the replay cache (field 8) is most of it: up to
 * `REPLAY_CACHE_MAX_ENTRIES` entries, of which a commit changes one or two. Each entry's
 * encoding is therefore kept per entry object (documents and their entries are immutable values:
 * a changed entry is a new object) and copied in as a length-delimited field, which is byte for
 * byte what encoding the entry in place writes. The fields before and after it are encoded by
 * the generated encoder into the same writer, in number order.
 */
export function encodeActorDocument(doc: ActorDocument): Uint8Array {
  const writer = v1.ActorState.encode({
    stateSchemaVersion: doc.stateSchemaVersion,
    agent: doc.agent,
    entityKey: doc.entityKey,
    seq: doc.seq,
    lastAppliedSeq: doc.lastAppliedSeq,
    ownerEpoch: doc.ownerEpoch,
    memory: { entries: doc.memory.entries.map((e) => ({ key: e.key, value: e.value, lastAccessMs: e.lastAccessMs })), totalBytes: doc.memory.totalBytes },
  });
  writeLlmCache(writer, doc.llmCache);
  v1.ActorState.encode(
    {
      continuation: doc.continuation === undefined ? null : encodeContinuation(doc.continuation),
      pending: doc.pending.map(encodeIntent),
      outbox: doc.outbox.map((o) => ({ subject: o.subject, msgId: o.msgId, payload: o.payload, headers: o.headers.map(encodeHeader) })),
      timers: doc.timers.map((t) => ({ timerId: t.timerId, kind: t.kind, dueAtMs: t.dueAtMs })),
      deferred: doc.deferred.map((d) => ({
        inboxSeq: d.inboxSeq,
        envelope: { entityKey: doc.entityKey, eventTimeMs: d.eventTimeMs, event: d.event },
        headers: d.headers.map(encodeHeader),
      })),
      tokenSpend: (doc.tokenSpend ?? []).map((t) => ({ atMs: t.atMs, tokens: t.tokens })),
      hold: doc.hold === undefined ? null : { ...doc.hold },
    },
    writer,
  );
  return writer.finish();
}

/** Field 8 of `ActorState` (`llm_cache`, an `LlmCacheBlob`), always present as the generated encoder writes it. */
const LLM_CACHE_TAG = (8 << 3) | 2;
/** Field 1 of `LlmCacheBlob` (`entries`). */
const CACHE_ENTRY_TAG = (1 << 3) | 2;
/** Field 2 of `LlmCacheBlob` (`total_response_bytes`, int64). */
const CACHE_TOTAL_TAG = (2 << 3) | 0;

type Writer = ReturnType<typeof v1.ActorState.encode>;

function writeLlmCache(writer: Writer, blob: CacheBlobDoc): void {
  writer.uint32(LLM_CACHE_TAG).fork();
  writeCacheBlobFields(writer, blob, true);
  writer.ldelim();
}

/**
 * The fields of an `LlmCacheBlob`, as its generated encoder writes them (a zero total is omitted).
 * `keep`: each entry's encoding is kept for the next commit (the state document, whose entries
 * outlive this write); otherwise an entry not kept yet is encoded in place and nothing is kept.
 */
function writeCacheBlobFields(writer: Writer, blob: CacheBlobDoc, keep: boolean): void {
  for (const entry of blob.entries) {
    const kept = keep ? encodedCacheEntry(entry) : cacheEntryBytes.get(entry);
    if (kept !== undefined) writer.uint32(CACHE_ENTRY_TAG).bytes(kept);
    else v1.LlmCacheEntry.encode(cacheEntryFields(entry), writer.uint32(CACHE_ENTRY_TAG).fork()).ldelim();
  }
  if (blob.totalResponseBytes !== 0) writer.uint32(CACHE_TOTAL_TAG).int64(blob.totalResponseBytes);
}

/**
 * A replay cache on its own, as `nats_agents.v1.LlmCacheBlob` (the replay journal's payload): the
 * same bytes as the state document's `llm_cache` field for the same entries.
 *
 * Keeps no per-entry encoding: the journal is written by the commit that drops these entries from
 * the state (decision 0073), so they are never encoded again, and keeping one cost a standalone
 * copy (an off-heap buffer) per entry, on every model-calling activation.
 */
export function encodeCacheBlob(blob: CacheBlobDoc): Uint8Array {
  const writer = v1.LlmCacheBlob.encode({});
  writeCacheBlobFields(writer, blob, false);
  return writer.finish();
}

/** Decodes a blob written by {@link encodeCacheBlob}; throws (protobufjs') when the bytes are not one. */
export function decodeCacheBlob(bytes: Uint8Array): CacheBlobDoc {
  return cacheBlobOf(v1.LlmCacheBlob.decode(bytes));
}

function cacheBlobOf(m: v1.LlmCacheBlob.$Properties | null | undefined): CacheBlobDoc {
  return {
    entries: (m?.entries ?? []).map((e) => ({
      cacheKey: e.cacheKey ?? '',
      response: e.response ?? EMPTY,
      responseDigest: e.responseDigest ?? EMPTY,
      createdAtMs: e.createdAtMs ?? 0,
      lastAccessMs: e.lastAccessMs ?? 0,
      digestOnly: e.digestOnly ?? false,
    })),
    totalResponseBytes: m?.totalResponseBytes ?? 0,
  };
}

/** The `LlmCacheEntry` encoding of each entry object encoded so far (held only while the entry lives). */
const cacheEntryBytes = new WeakMap<CacheEntryDoc, Uint8Array>();

function cacheEntryFields(entry: CacheEntryDoc): v1.LlmCacheEntry.$Properties {
  return {
    cacheKey: entry.cacheKey,
    response: entry.response,
    responseDigest: entry.responseDigest,
    createdAtMs: entry.createdAtMs,
    lastAccessMs: entry.lastAccessMs,
    digestOnly: entry.digestOnly,
  };
}

function encodedCacheEntry(entry: CacheEntryDoc): Uint8Array {
  let bytes = cacheEntryBytes.get(entry);
  if (bytes === undefined) {
    const encoded = v1.LlmCacheEntry.encode(cacheEntryFields(entry)).finish();
    // A copy: the writer's result may be a view into a shared pool buffer, which the cache would pin.
    bytes = new Uint8Array(encoded);
    cacheEntryBytes.set(entry, bytes);
  }
  return bytes;
}

/**
 * Decodes and migrates a stored document. Migration happens in memory only: the upgraded form
 * reaches the bucket with the key's next successful commit, so a failed activation leaves the old
 * bytes untouched. Throws {@link StateSchemaFromFuture} for documents from a newer binary and
 * {@link StateDocumentCorrupt} for bytes that are not a document at all.
 */
export function decodeActorDocument(bytes: Uint8Array): ActorDocument {
  let m: v1.ActorState;
  try {
    m = v1.ActorState.decode(bytes);
  } catch (error) {
    throw new StateDocumentCorrupt(`the state document (${bytes.length} bytes) does not decode: ${(error as Error).message}`, { cause: error });
  }
  for (const [field, value] of [['seq', m.seq], ['lastAppliedSeq', m.lastAppliedSeq], ['ownerEpoch', m.ownerEpoch]] as const) {
    if (!Number.isSafeInteger(value) || (value as number) < 0) throw new StateDocumentCorrupt(`the state document's ${field} is not a non-negative safe integer: ${String(value)}`);
  }
  const stored = m.stateSchemaVersion === 0 ? 1 : m.stateSchemaVersion;
  if (stored > CURRENT_STATE_SCHEMA_VERSION) throw new StateSchemaFromFuture(stored, CURRENT_STATE_SCHEMA_VERSION);
  const entityKey = m.entityKey ?? EMPTY;
  const doc: ActorDocument = {
    stateSchemaVersion: stored,
    agent: m.agent,
    entityKey,
    seq: m.seq,
    lastAppliedSeq: m.lastAppliedSeq,
    ownerEpoch: m.ownerEpoch,
    memory: {
      entries: (m.memory?.entries ?? []).map((e) => ({ key: e.key ?? '', value: e.value ?? EMPTY, lastAccessMs: e.lastAccessMs ?? 0 })),
      totalBytes: m.memory?.totalBytes ?? 0,
    },
    llmCache: cacheBlobOf(m.llmCache),
    continuation: m.continuation ? decodeContinuation(m.continuation) : undefined,
    pending: m.pending.map(decodeIntent),
    outbox: m.outbox.map((o) => ({ subject: o.subject ?? '', msgId: o.msgId ?? '', payload: o.payload ?? EMPTY, headers: (o.headers ?? []).map(decodeHeader) })),
    timers: m.timers.map((t) => ({ timerId: t.timerId ?? '', kind: (t.kind ?? 0) as TimerKind, dueAtMs: t.dueAtMs ?? 0 })),
    deferred: m.deferred.map((d) => ({
      inboxSeq: d.inboxSeq ?? 0,
      event: d.envelope?.event ?? EMPTY,
      eventTimeMs: d.envelope?.eventTimeMs ?? 0,
      headers: (d.headers ?? []).map(decodeHeader),
    })),
    ...(m.tokenSpend.length > 0 ? { tokenSpend: m.tokenSpend.map((t) => ({ atMs: t.atMs ?? 0, tokens: t.tokens ?? 0 })) } : {}),
    ...(m.hold
      ? {
          hold: {
            inboxSeq: m.hold.inboxSeq ?? 0,
            failedAttempts: m.hold.failedAttempts ?? 0,
            maxAttempts: m.hold.maxAttempts ?? 0,
            nextAttemptAtMs: m.hold.nextAttemptAtMs ?? 0,
            delayMs: m.hold.delayMs ?? 0,
            error: m.hold.error ?? '',
          },
        }
      : {}),
  };
  return migrateToCurrent(doc);
}

/** Encodes a tool intent (the wire form the effector consumes). */
export function encodeToolIntent(intent: ToolIntentDoc): Uint8Array {
  return v1.ToolIntent.encode(encodeIntent(intent)).finish();
}

/** Decodes a tool intent from its wire form. */
export function decodeToolIntent(bytes: Uint8Array): ToolIntentDoc {
  return decodeIntent(v1.ToolIntent.decode(bytes));
}

function encodeContinuation(c: ContinuationDoc): v1.Continuation.$Properties {
  return {
    seq: c.seq,
    stepIndex: c.stepIndex,
    pendingIntentIds: [...c.pendingIntentIds],
    snapshot: c.snapshot,
    suspendedAtMs: c.suspendedAtMs,
    deadlineMs: c.deadlineMs,
    escalations: c.escalations,
    traceId: c.traceId,
  };
}

function decodeContinuation(c: v1.Continuation.$Properties): ContinuationDoc {
  return {
    seq: c.seq ?? 0,
    stepIndex: c.stepIndex ?? 0,
    pendingIntentIds: [...(c.pendingIntentIds ?? [])],
    snapshot: c.snapshot ?? EMPTY,
    suspendedAtMs: c.suspendedAtMs ?? 0,
    deadlineMs: c.deadlineMs ?? 0,
    escalations: c.escalations ?? 0,
    traceId: c.traceId ?? EMPTY,
  };
}

function encodeIntent(i: ToolIntentDoc): v1.ToolIntent.$Properties {
  return {
    intentId: i.intentId,
    entityKey: i.entityKey,
    seq: i.seq,
    stepIndex: i.stepIndex,
    toolName: i.toolName,
    argsJson: i.argsJson,
    createdAtMs: i.createdAtMs,
    expiresAtMs: i.expiresAtMs,
    attempt: i.attempt,
    kind: i.kind,
    traceId: i.traceId,
    signatureScheme: i.signatureScheme,
    signingKeyId: i.signingKeyId,
    signature: i.signature,
    agent: i.agent,
  };
}

function decodeIntent(i: v1.ToolIntent.$Properties): ToolIntentDoc {
  return {
    intentId: i.intentId ?? '',
    agent: i.agent ?? '',
    entityKey: i.entityKey ?? EMPTY,
    seq: i.seq ?? 0,
    stepIndex: i.stepIndex ?? 0,
    toolName: i.toolName ?? '',
    argsJson: i.argsJson ?? '',
    createdAtMs: i.createdAtMs ?? 0,
    expiresAtMs: i.expiresAtMs ?? 0,
    attempt: i.attempt ?? 0,
    // UNSPECIFIED is read as TOOL: only an explicit APPROVAL goes to the approval channel.
    kind: (i.kind === 2 ? 2 : 1) as IntentKind,
    traceId: i.traceId ?? EMPTY,
    signatureScheme: i.signatureScheme ?? 0,
    signingKeyId: i.signingKeyId ?? '',
    signature: i.signature ?? EMPTY,
  };
}

function encodeHeader(h: HeaderDoc): v1.Header.$Properties {
  return { name: h.name, value: h.value };
}

function decodeHeader(h: v1.Header.$Properties): HeaderDoc {
  return { name: h.name ?? '', value: h.value ?? '' };
}

/**
 * Deterministic bytes of a working-memory blob on its own (what `onExpire: 'flush-to-longterm'`
 * stores): the same committed memory always yields the same bytes, so a retried expiry converges.
 */
export function encodeMemoryBlob(memory: ActorDocument['memory']): Uint8Array {
  return v1.MemoryBlob.encode({ entries: memory.entries.map((e) => ({ key: e.key, value: e.value, lastAccessMs: e.lastAccessMs })), totalBytes: memory.totalBytes }).finish();
}

/** Decodes a working-memory blob stored by {@link encodeMemoryBlob}. */
export function decodeMemoryBlob(bytes: Uint8Array): ActorDocument['memory'] {
  const m = v1.MemoryBlob.decode(bytes);
  return { entries: m.entries.map((e) => ({ key: e.key ?? '', value: e.value ?? EMPTY, lastAccessMs: e.lastAccessMs ?? 0 })), totalBytes: m.totalBytes };
}
