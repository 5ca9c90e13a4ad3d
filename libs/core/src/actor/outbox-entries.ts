import { errorMessageId, outputMessageId } from '../ids/message-id.js';
import { HeaderName } from '../vocabulary/header-name.js';
import { IntentKind, type HeaderDoc, type OutboxEntryDoc, type ToolIntentDoc } from './actor-document.js';
import { encodeToolIntent } from './state-codec.js';
import type { Addressing } from './addressing.js';
import { encodeErrorRecord, type ErrorRecordFields } from './error-record.js';
import { signedIntentMessageId } from '../signing/element-seal.js';

/** Trace headers carried from the inbox element onto what it causes. */
export function traceHeaders(headers: readonly HeaderDoc[]): HeaderDoc[] {
  return headers.filter((h) => h.name === HeaderName.Traceparent || h.name === HeaderName.Tracestate);
}

/**
 * The outbox entries for the outputs of the commit numbered `commitSeq` (the key's committed
 * attempts before it). Ids are derived from (agent, key, commitSeq, index) — unique per commit even
 * when a start and its resume share an activation seq — so a republish after a crash is
 * deduplicated by the stream. `Agents-Seq` carries the activation's seq (`ctx.seq`).
 */
export function outputEntries(
  addressing: Addressing,
  agent: string,
  key: Uint8Array,
  commitSeq: number,
  eventTimeMs: number,
  outputs: readonly Uint8Array[],
  carried: readonly HeaderDoc[],
  activationSeq: number = commitSeq,
): OutboxEntryDoc[] {
  return outputs.map((payload, index) => ({
    subject: addressing.output(agent, key),
    msgId: outputMessageId(agent, key, commitSeq, index),
    payload,
    headers: [
      { name: HeaderName.Seq, value: String(activationSeq) },
      { name: HeaderName.EventTime, value: String(eventTimeMs) },
      ...carried,
    ],
  }));
}

/** The outbox entry for the error record of inbox element `inboxSeq`. */
export function errorEntry(addressing: Addressing, record: ErrorRecordFields, inboxSeq: number, carried: readonly HeaderDoc[]): OutboxEntryDoc {
  return {
    subject: addressing.error(record.agent, record.reason),
    msgId: errorMessageId(record.agent, record.entityKey, inboxSeq),
    payload: encodeErrorRecord({ ...record, source: { stream: addressing.inboxStream, seq: inboxSeq } }),
    headers: [
      { name: HeaderName.Reason, value: record.reason },
      { name: HeaderName.Agent, value: record.agent },
      { name: HeaderName.EventTime, value: String(record.eventTimeMs) },
      ...carried,
    ],
  };
}

/** Signs an intent for publication (the stored pending copy stays unsigned). */
export type IntentSigner = (intent: ToolIntentDoc) => ToolIntentDoc;

/**
 * The outbox entry of a staged intent: a tool intent goes to `agents.intents.<agent>.<tool>` for
 * the effector, an approval request to `agents.approval-requests.<agent>.<key>` for humans. The
 * message id of a signed intent is derived from its signature (`signedIntentMessageId`): the same
 * on every republish and replay, but not computable without the cluster key, so a forger cannot
 * take the genuine intent's place in the stream's duplicate window. An unsigned intent's message
 * id is its intent id (signing off: nothing is authenticated anyway).
 */
export function intentEntry(addressing: Addressing, intent: ToolIntentDoc, carried: readonly HeaderDoc[], signer: IntentSigner | undefined): OutboxEntryDoc {
  const published = signer === undefined ? intent : signer(intent);
  return {
    subject: intent.kind === IntentKind.Approval ? addressing.approvalRequest(intent.agent, intent.entityKey) : addressing.intent(intent.agent, intent.toolName),
    msgId: published.signature.length > 0 ? signedIntentMessageId(published.signature) : intent.intentId,
    payload: encodeToolIntent(published),
    headers: [
      { name: HeaderName.Agent, value: intent.agent },
      { name: HeaderName.Seq, value: String(intent.seq) },
      { name: HeaderName.EventTime, value: String(intent.createdAtMs) },
      ...carried,
    ],
  };
}
