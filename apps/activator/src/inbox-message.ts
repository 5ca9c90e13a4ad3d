import type { JsMsg, StoredMsg } from '@nats-io/jetstream';
import { decodeInboxEnvelope, HeaderName, inboxElement, type InboxElement } from '#core';
import type { InboxAddress, Topology } from '#routing';
import { decodeKeyToken } from '#routing';
import { fromMsgHdrs, headerValue } from '#transport';

/**
 * What of an inbox message decoding reads: a delivery of the partition consumer (`JsMsg`), or a
 * message read back from the inbox stream ({@link storedInboxMessage}, a parked key's replay).
 */
export type InboxDelivery = Pick<JsMsg, 'subject' | 'data' | 'headers' | 'seq' | 'timestampNanos'> & { readonly info: { readonly deliveryCount: number } };

/**
 * A message read from the inbox stream as a delivery. Its timestamp is the same stream timestamp
 * a consumer delivery carries (to the millisecond, all decoding uses), so a direct event replayed
 * from the stream gets the activation clock it would have got when delivered.
 */
export function storedInboxMessage(stored: StoredMsg): InboxDelivery {
  return {
    subject: stored.subject,
    data: stored.data,
    headers: stored.header,
    seq: stored.seq,
    timestampNanos: BigInt(stored.time.getTime()) * 1_000_000n,
    info: { deliveryCount: 1 },
  };
}

/** A decoded inbox message: where it belongs and what it carries. */
export interface DecodedInboxMessage {
  readonly address: InboxAddress;
  readonly stateKey: string;
  readonly element: InboxElement;
}

/**
 * Why an inbox message cannot be applied at all (only a foreign or corrupt publisher produces
 * these), with what of its address could be read (for its error record).
 */
export interface InboxRejection {
  readonly problem: string;
  /** The agent the subject names (`_` when the subject is not an inbox subject). */
  readonly agent: string;
  /** The key the subject's token decodes to (empty when it does not). */
  readonly entityKey: Uint8Array;
  /** The lane of the message (its subject, or its key's state key when the subject parsed). */
  readonly lane: string;
}

/**
 * Decodes an inbox message into the element the actor applies. The subject decides the key and
 * agent; the envelope must agree with it (a mismatch is a corrupt message, never guessed at). An
 * `Agents-Direct` header marks an event a client published straight into the lane (the runtime
 * validates every event as ingress would have, header or not; the header decides the clock). A direct message that is not a readable envelope of its
 * subject is refused here like any other (the client library cannot produce one). A direct event's
 * activation clock is the inbox message's stream timestamp, never the envelope's time the client
 * wrote (fixed per message, so a redelivery decides identically); only runtime publishers (ingress,
 * timer firings) are trusted to stamp the envelope.
 */
export function decodeInboxMessage(msg: InboxDelivery, topology: Topology): DecodedInboxMessage | InboxRejection {
  const address = topology.parseInboxSubject(msg.subject);
  if (address === undefined) return { problem: `not an inbox subject of this deployment: ${msg.subject}`, agent: '_', entityKey: EMPTY, lane: `unreadable:${msg.subject}` };
  let keyFromSubject: Uint8Array;
  try {
    keyFromSubject = decodeKeyToken(address.token);
  } catch (error) {
    return { problem: `the subject's key token does not decode: ${(error as Error).message}`, agent: address.agent, entityKey: EMPTY, lane: `unreadable:${msg.subject}` };
  }
  const rejection = (problem: string): InboxRejection => ({ problem, agent: address.agent, entityKey: keyFromSubject, lane: topology.stateKey(address.agent, address.token) });
  let envelope;
  try {
    envelope = decodeInboxEnvelope(msg.data);
  } catch (error) {
    return rejection((error as Error).message);
  }
  if (!sameBytes(keyFromSubject, envelope.entityKey)) {
    return rejection(`envelope key does not match subject token ${address.token}`);
  }
  if (envelope.payload.kind !== kindOf(address.kind)) {
    return rejection(`envelope carries a ${envelope.payload.kind} on a ${address.kind} subject`);
  }
  // An activation clock outside the safe integers would fail every attempt of the key (working
  // memory refuses it): a deterministic failure, recorded once, never retried.
  if (!Number.isSafeInteger(envelope.eventTimeMs) || envelope.eventTimeMs < 0) {
    return rejection(`the envelope's event time ${String(envelope.eventTimeMs)} is not epoch milliseconds within Number.MAX_SAFE_INTEGER`);
  }
  const direct = headerValue(msg.headers, HeaderName.Direct) !== undefined;
  return {
    address,
    stateKey: topology.stateKey(address.agent, address.token),
    element: inboxElement(
      msg.seq,
      envelope.entityKey,
      direct ? Number(msg.timestampNanos / 1_000_000n) : envelope.eventTimeMs,
      envelope.payload,
      fromMsgHdrs(msg.headers),
      direct,
      msg.info.deliveryCount,
    ),
  };
}

const EMPTY = new Uint8Array(0);

/** Byte equality without copying either side (`Buffer.from(uint8Array)` copies). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function kindOf(subjectKind: InboxAddress['kind']): InboxElement['payload']['kind'] {
  return subjectKind;
}
