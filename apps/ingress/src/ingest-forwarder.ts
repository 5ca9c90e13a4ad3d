import type { JetStreamClient } from '@nats-io/jetstream';
import { encodeErrorRecord, HeaderName, ingestForwardMessageId, ingressErrorMessageId } from '#core';
import type { Topology } from '#routing';
import { toMsgHdrs } from '#transport';
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
export async function carryOut(js: JetStreamClient, topology: Topology, decision: IngestDecision, source: IngestSource, timeoutMs: number): Promise<void> {
  if (decision.kind === 'forward') {
    await js.publish(decision.inboxSubject, decision.envelope, {
      msgID: ingestForwardMessageId(source.stream, source.seq),
      headers: toMsgHdrs(decision.headers),
      timeout: timeoutMs,
    });
    return;
  }
  await js.publish(
    topology.errors(decision.agent, decision.reason),
    encodeErrorRecord({
      agent: decision.agent,
      entityKey: decision.entityKey,
      reason: decision.reason,
      detail: decision.detail,
      eventTimeMs: decision.eventTimeMs,
    }),
    {
      msgID: ingressErrorMessageId(source.stream, source.seq),
      headers: toMsgHdrs([
        { name: HeaderName.Reason, value: decision.reason },
        { name: HeaderName.Agent, value: decision.agent },
        { name: HeaderName.EventTime, value: String(decision.eventTimeMs) },
      ]),
      timeout: timeoutMs,
    },
  );
}
