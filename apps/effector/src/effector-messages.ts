/**
 * The two kinds of message the effector publishes, as outbox entries with deterministic ids and
 * headers: the `ToolResult` on the intent's key, and the error record refusing an intent. Pure.
 */
import {
  AGENT_NAME_PATTERN,
  encodeErrorRecord,
  HeaderName,
  sealElement,
  type ClusterKeys,
  type ErrorReason,
  type HeaderDoc,
  type OutboxEntryDoc,
  type ToolIntentDoc,
} from '#core';
import { encodeKeyToken, UNNAMED_AGENT, type Topology } from '#routing';
import { refusalMessageId } from './effector-message-ids.js';

/** The `Content-Type` of a published result: protobuf `nats_agents.v1.ToolResult`. */
export const RESULT_CONTENT_TYPE = 'application/x-protobuf';

/** Trace context carried from the intent message onto what the effector publishes about it. */
export function carriedTraceHeaders(headers: readonly HeaderDoc[]): HeaderDoc[] {
  return headers.filter((h) => h.name === HeaderName.Traceparent || h.name === HeaderName.Tracestate);
}

/**
 * The publication of a result: `agents.results.<agent>.<key token>`, `Agents-Event-Time` = the
 * result's `completedAtMs`, protobuf content type. `result` is published verbatim — for a
 * redelivered completed intent, the stored bytes — so every publication of one intent carries
 * byte-identical payloads and the stream stores one. With an active cluster key the result is
 * sealed (`Agents-Auth`, verified by the activator) and its `Nats-Msg-Id` is the seal's keyed id,
 * which a forger cannot compute to pre-empt it in the ingest stream's duplicate window; without
 * one the message id is the intent id.
 */
export function resultEntry(
  topology: Pick<Topology, 'results'>,
  intent: ToolIntentDoc,
  result: Uint8Array,
  completedAtMs: number,
  carried: readonly HeaderDoc[],
  keys?: ClusterKeys,
): OutboxEntryDoc {
  const seal = keys === undefined ? undefined : sealElement(keys, { kind: 'result', agent: intent.agent, entityKey: intent.entityKey, payload: result });
  return {
    subject: topology.results(intent.agent, encodeKeyToken(intent.entityKey)),
    msgId: seal?.msgId ?? intent.intentId,
    payload: result,
    headers: [
      { name: HeaderName.EventTime, value: String(completedAtMs) },
      { name: HeaderName.ContentType, value: RESULT_CONTENT_TYPE },
      ...(seal !== undefined ? [{ name: HeaderName.Auth, value: seal.header }] : []),
      ...carried,
    ],
  };
}

/** What an error record refusing an intent is about. */
export interface Refusal {
  readonly reason: ErrorReason;
  /** Identity fields only; NEVER the arguments. */
  readonly detail: string;
  /** The intent as decoded, when it decoded. */
  readonly intent: ToolIntentDoc | undefined;
  /** The message bytes as delivered (hashed into the record's id). */
  readonly raw: Uint8Array;
  /** The stream timestamp of the intent message: the record's event time when the intent has none. */
  readonly publishedAtMs: number;
}

/**
 * The error record refusing an intent, on `agents.errors.<agent>.<reason>` (`_` when the intent
 * names no valid agent). Its event time is the intent's creation time (else the message's stream
 * time), never the wall clock, so a redelivery publishes identical bytes under the same id.
 */
export function refusalEntry(topology: Pick<Topology, 'errors'>, refusal: Refusal, carried: readonly HeaderDoc[]): OutboxEntryDoc {
  const agentName = refusal.intent?.agent ?? '';
  const agent = AGENT_NAME_PATTERN.test(agentName) ? agentName : UNNAMED_AGENT;
  const eventTimeMs = refusal.intent !== undefined && refusal.intent.createdAtMs > 0 ? refusal.intent.createdAtMs : refusal.publishedAtMs;
  return {
    subject: topology.errors(agent, refusal.reason),
    msgId: refusalMessageId(refusal.reason, refusal.intent?.intentId ?? '', refusal.raw),
    payload: encodeErrorRecord({
      agent,
      entityKey: refusal.intent?.entityKey ?? new Uint8Array(0),
      reason: refusal.reason,
      detail: refusal.detail,
      eventTimeMs,
    }),
    headers: [
      { name: HeaderName.Reason, value: refusal.reason },
      { name: HeaderName.Agent, value: agent },
      { name: HeaderName.EventTime, value: String(eventTimeMs) },
      ...carried,
    ],
  };
}
