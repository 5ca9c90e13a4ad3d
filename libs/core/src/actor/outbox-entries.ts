import { errorMessageId, outputMessageId } from '../ids/message-id.js';
import { HeaderName } from '../vocabulary/header-name.js';
import type { HeaderDoc, OutboxEntryDoc } from './actor-document.js';
import type { Addressing } from './addressing.js';
import { encodeErrorRecord, type ErrorRecordFields } from './error-record.js';

/** Trace headers carried from the inbox element onto what it causes. */
export function traceHeaders(headers: readonly HeaderDoc[]): HeaderDoc[] {
  return headers.filter((h) => h.name === HeaderName.Traceparent || h.name === HeaderName.Tracestate);
}

/**
 * The outbox entries for the outputs of the activation committed at `seq`. Ids are derived from
 * (agent, key, seq, index), so a republish after a crash is deduplicated by the stream.
 */
export function outputEntries(
  addressing: Addressing,
  agent: string,
  key: Uint8Array,
  seq: number,
  eventTimeMs: number,
  outputs: readonly Uint8Array[],
  carried: readonly HeaderDoc[],
): OutboxEntryDoc[] {
  return outputs.map((payload, index) => ({
    subject: addressing.output(agent, key),
    msgId: outputMessageId(agent, key, seq, index),
    payload,
    headers: [
      { name: HeaderName.Seq, value: String(seq) },
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
    payload: encodeErrorRecord(record),
    headers: [
      { name: HeaderName.Reason, value: record.reason },
      { name: HeaderName.Agent, value: record.agent },
      { name: HeaderName.EventTime, value: String(record.eventTimeMs) },
      ...carried,
    ],
  };
}
