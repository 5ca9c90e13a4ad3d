import { encodeErrorRecord, HeaderName, ingestForwardMessageId, ingressErrorMessageId } from '#core';
import type { Topology } from '#routing';
import { toMsgHdrs, type PubAckPipeline } from '#transport';
import type { IngestDecision } from './ingest-decision.js';

/** Where an ingest message came from: its id for derived message ids. */
export interface IngestSource {
  readonly stream: string;
  readonly seq: number;
  /** The message's stream timestamp in nanoseconds (server-assigned: a publisher cannot predict it). */
  readonly storedAtNanos: bigint;
}

/**
 * Carries out an ingest decision: forwards into the inbox lane, or publishes the error record.
 * Both publishes use ids derived from the ingest message's stream sequence and stream timestamp,
 * so a redelivery to ingress (a crash before its ack) stores nothing twice, while a publisher with
 * rights on the inbox cannot compute the next forward's id ahead of time and squat it. Resolves when the target stream acknowledged.
 */
export async function carryOut(acks: PubAckPipeline, topology: Topology, decision: IngestDecision, source: IngestSource): Promise<void> {
  if (decision.kind === 'forward') {
    const headers = toMsgHdrs(decision.headers);
    headers.set(HeaderName.MsgId, ingestForwardMessageId(source.stream, source.seq, source.storedAtNanos));
    await acks.publish(decision.inboxSubject, decision.envelope, headers);
    return;
  }
  const headers = toMsgHdrs([
    { name: HeaderName.Reason, value: decision.reason },
    { name: HeaderName.Agent, value: decision.agent },
    { name: HeaderName.EventTime, value: String(decision.eventTimeMs) },
  ]);
  headers.set(HeaderName.MsgId, ingressErrorMessageId(source.stream, source.seq, source.storedAtNanos));
  await acks.publish(
    topology.errors(decision.agent, decision.reason),
    encodeErrorRecord({
      agent: decision.agent,
      entityKey: decision.entityKey,
      reason: decision.reason,
      detail: decision.detail,
      eventTimeMs: decision.eventTimeMs,
    }),
    headers,
  );
}

