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
}

/** Deterministic protobuf bytes of an error record (`nats_agents.v1.ErrorRecord`). */
export function encodeErrorRecord(record: ErrorRecordFields): Uint8Array {
  return v1.ErrorRecord.encode({
    entityKey: record.entityKey,
    reason: record.reason,
    detail: record.detail,
    eventTimeMs: record.eventTimeMs,
    agent: record.agent,
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
