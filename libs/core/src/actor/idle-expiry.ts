import { EXPIRED_MEMORY_KEY } from '../agent/memory-policy.js';
import type { LongTermRecord } from '../longterm/long-term-record.js';
import { LongTermNotConfigured } from '../longterm/long-term-not-configured.js';
import { MemoryType, retentionFor } from '../longterm/memory-type.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import type { ActorDocument, OutboxEntryDoc } from './actor-document.js';
import type { ApplyDeps, ApplyResult } from './apply-result.js';
import { recordFailure } from './failure-record.js';
import type { InboxElement } from './inbox-element.js';
import { errorEntry, traceHeaders } from './outbox-entries.js';
import { encodeMemoryBlob } from './state-codec.js';

/**
 * The idle TTL passed: wipe working memory, replay cache, any suspension and waiting events, keep
 * seq (so derived intent ids never repeat) and the dedup mark. A live suspension is reported as
 * `ttl_wiped_suspension`. With `onExpire: 'flush-to-longterm'` the committed working memory is
 * upserted first, and a failed flush holds the key (no wipe) until it succeeds.
 */
export function expire(state: ActorDocument, element: InboxElement, deps: ApplyDeps): ApplyResult {
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
