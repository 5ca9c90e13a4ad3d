import { encodeErrorRecord, HeaderName, ingestForwardMessageId, ingressErrorMessageId } from '#core';
import type { Topology } from '#routing';
import { toMsgHdrs, type PubAckPipeline } from '#transport';
import type { IngestDecision } from './ingest-decision.js';

/** Where an ingest message came from: its id for derived message ids. */
export interface IngestSource {
  readonly stream: string;
  readonly seq: number;
}

/**
 * Carries out an ingest decision: forwards into the inbox lane, or publishes the error record.
 * Both publishes use ids derived from the ingest stream sequence, so a redelivery to ingress
 * (a crash before its ack) stores nothing twice. Resolves when the target stream acknowledged.
 */
export async function carryOut(acks: PubAckPipeline, topology: Topology, decision: IngestDecision, source: IngestSource): Promise<void> {
  if (decision.kind === 'forward') {
    const headers = toMsgHdrs(decision.headers);
    headers.set(MSG_ID, ingestForwardMessageId(source.stream, source.seq));
    await acks.publish(decision.inboxSubject, decision.envelope, headers);
    return;
  }
  const headers = toMsgHdrs([
    { name: HeaderName.Reason, value: decision.reason },
    { name: HeaderName.Agent, value: decision.agent },
    { name: HeaderName.EventTime, value: String(decision.eventTimeMs) },
  ]);
  headers.set(MSG_ID, ingressErrorMessageId(source.stream, source.seq));
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

/** JetStream's deduplication header. */
const MSG_ID = 'Nats-Msg-Id';
