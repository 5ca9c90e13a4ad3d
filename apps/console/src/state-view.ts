/**
 * A key's committed state document as the key inspector shows it: every part decoded (working
 * memory, replay-cache entries, pending intents, outbox, continuation, timers, deferred events,
 * seq and epoch), byte values shown as text when they are UTF-8 and as a size and a hex preview
 * otherwise. The suspension snapshot and cached model responses are shown by size only: they can
 * be large and hold model output. Pure.
 */
import { entityKeyHex, IntentKind, TimerKind, type ActorDocument } from '#core';

/** Bytes as the page shows them. */
export interface BytesView {
  readonly bytes: number;
  /**
   * The UTF-8 text, when the bytes are valid UTF-8 (cut at 4 KiB); control characters (framing
   * bytes of a ring or a length prefix) are shown as `·`.
   */
  readonly text?: string;
  /** The first 32 bytes in hex otherwise. */
  readonly hex?: string;
}

/** The decoded document. */
export interface StateView {
  readonly revision: number;
  readonly stateSchemaVersion: number;
  readonly keyHex: string;
  readonly seq: number;
  readonly lastAppliedSeq: number;
  readonly ownerEpoch: number;
  readonly memory: readonly { readonly key: string; readonly value: BytesView; readonly lastAccessMs: number }[];
  readonly memoryBytes: number;
  readonly replayCache: readonly { readonly cacheKey: string; readonly bytes: number; readonly digestOnly: boolean; readonly createdAtMs: number }[];
  readonly continuation:
    | { readonly seq: number; readonly stepIndex: number; readonly pendingIntentIds: readonly string[]; readonly snapshotBytes: number; readonly suspendedAtMs: number; readonly deadlineMs: number; readonly escalations: number; readonly traceId: string }
    | null;
  readonly pending: readonly { readonly intentId: string; readonly tool: string; readonly kind: 'tool' | 'approval'; readonly argsJson: string; readonly expiresAtMs: number }[];
  readonly outbox: readonly { readonly subject: string; readonly msgId: string; readonly payload: BytesView }[];
  readonly timers: readonly { readonly timerId: string; readonly kind: string; readonly dueAtMs: number }[];
  readonly deferred: readonly { readonly inboxSeq: number; readonly event: BytesView; readonly eventTimeMs: number }[];
}

const TEXT_LIMIT = 4096;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as text when they decode strictly as UTF-8, else a size and a short hex preview. */
export function bytesView(bytes: Uint8Array): BytesView {
  try {
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
    const text = strictUtf8.decode(bytes).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '·');
    return { bytes: bytes.length, text: text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}…` : text };
  } catch {
    return { bytes: bytes.length, hex: Buffer.from(bytes.subarray(0, 32)).toString('hex') };
  }
}

const timerKinds: Record<number, string> = { [TimerKind.Deadline]: 'deadline', [TimerKind.IdleTtl]: 'idle-ttl', [TimerKind.Flush]: 'flush' };

/** The view of a decoded document stored at `revision`. */
export function stateView(doc: ActorDocument, revision: number): StateView {
  const continuation = doc.continuation;
  return {
    revision,
    stateSchemaVersion: doc.stateSchemaVersion,
    keyHex: entityKeyHex(doc.entityKey),
    seq: doc.seq,
    lastAppliedSeq: doc.lastAppliedSeq,
    ownerEpoch: doc.ownerEpoch,
    memory: doc.memory.entries.map((e) => ({ key: e.key, value: bytesView(e.value), lastAccessMs: e.lastAccessMs })),
    memoryBytes: doc.memory.totalBytes,
    replayCache: doc.llmCache.entries.map((e) => ({ cacheKey: e.cacheKey, bytes: e.response.length, digestOnly: e.digestOnly, createdAtMs: e.createdAtMs })),
    continuation:
      continuation === undefined
        ? null
        : {
            seq: continuation.seq,
            stepIndex: continuation.stepIndex,
            pendingIntentIds: continuation.pendingIntentIds,
            snapshotBytes: continuation.snapshot.length,
            suspendedAtMs: continuation.suspendedAtMs,
            deadlineMs: continuation.deadlineMs,
            escalations: continuation.escalations,
            traceId: Buffer.from(continuation.traceId).toString('hex'),
          },
    pending: doc.pending.map((i) => ({ intentId: i.intentId, tool: i.toolName, kind: i.kind === IntentKind.Approval ? 'approval' : 'tool', argsJson: i.argsJson, expiresAtMs: i.expiresAtMs })),
    outbox: doc.outbox.map((o) => ({ subject: o.subject, msgId: o.msgId, payload: bytesView(o.payload) })),
    timers: doc.timers.map((t) => ({ timerId: t.timerId, kind: timerKinds[t.kind] ?? String(t.kind), dueAtMs: t.dueAtMs })),
    deferred: doc.deferred.map((d) => ({ inboxSeq: d.inboxSeq, event: bytesView(d.event), eventTimeMs: d.eventTimeMs })),
  };
}
