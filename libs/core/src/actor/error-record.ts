import { v1 } from '#proto';
import type { ErrorReason } from '../vocabulary/error-reason.js';

/** A dead-letter record: the element that produced it committed nothing else. */
export interface ErrorRecordFields {
  readonly agent: string;
  readonly entityKey: Uint8Array;
  readonly reason: ErrorReason;
  /** Empty when nothing truthful can be said (e.g. a timeout). */
  readonly detail: string;
  /** The element's event time, never the wall clock, so a replay re-emits identical bytes. */
  readonly eventTimeMs: number;
  /**
   * The stream and sequence of the element the record is about (the activator's records name
   * their inbox message), so an operator can re-publish the original event (`nats-agents errors
   * redrive`). Absent on records about no stored element.
   */
  readonly source?: { readonly stream: string; readonly seq: number };
}

/** Deterministic protobuf bytes of an error record (`nats_agents.v1.ErrorRecord`). */
export function encodeErrorRecord(record: ErrorRecordFields): Uint8Array {
  return v1.ErrorRecord.encode({
    entityKey: record.entityKey,
    reason: record.reason,
    detail: record.detail,
    eventTimeMs: record.eventTimeMs,
    agent: record.agent,
    ...(record.source !== undefined ? { sourceStream: record.source.stream, sourceSeq: record.source.seq } : {}),
  }).finish();
}

/** Decodes an error record (for clients and tests). */
export function decodeErrorRecord(bytes: Uint8Array): ErrorRecordFields {
  const m = v1.ErrorRecord.decode(bytes);
  return {
    agent: m.agent,
    entityKey: m.entityKey ?? new Uint8Array(0),
    reason: m.reason as ErrorReason,
    detail: m.detail,
    eventTimeMs: m.eventTimeMs,
  };
}

/**
 * The element an error record is about (stream and sequence), or undefined for a record about no
 * stored element (and records written before the field existed). Kept apart from
 * {@link decodeErrorRecord} so what a record says and where it points are read separately.
 */
export function errorRecordSource(bytes: Uint8Array): { readonly stream: string; readonly seq: number } | undefined {
  const m = v1.ErrorRecord.decode(bytes);
  return m.sourceStream === '' ? undefined : { stream: m.sourceStream, seq: m.sourceSeq };
}
