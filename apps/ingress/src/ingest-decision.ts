import {
  ErrorReason,
  HeaderName,
  encodeInboxEnvelope,
  type AgentDefinition,
  type ElementRefusal,
  type HeaderDoc,
  type InboxPayload,
} from '#core';
import {
  admitAgent,
  decodeKeyToken,
  encodeKeyToken,
  eventRefusal,
  inboxKindOfLane,
  IngestLane,
  keyFromText,
  keyRefusal,
  payloadRefusal,
  shardKey,
  UNNAMED_AGENT,
  type EventLimits,
  type Topology,
} from '#routing';
import { AnswerBodyError, decodeApprovalBody, decodeResultBody } from './answer-bodies.js';

/** One message as published to the ingest stream (or posted over HTTP). */
export interface IngestInput {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: readonly HeaderDoc[];
  /** Ingest-stream timestamp in ms: the activation clock of the element, whatever the publisher claims. */
  readonly ingestTimeMs: number;
}

/** The limits ingress enforces (the same ones the activator enforces on direct events). */
export type IngestLimits = EventLimits;

/** What ingress does with one ingest message. */
export type IngestDecision =
  /** Valid: forward into the key's inbox lane. */
  | {
      readonly kind: 'forward';
      /** The ingest lane the subject named (the `lane` label of the message counts). */
      readonly lane: IngestLane;
      readonly agent: string;
      readonly token: string;
      readonly inboxSubject: string;
      readonly envelope: Uint8Array;
      readonly headers: readonly HeaderDoc[];
    }
  /** Invalid: publish an error record with the reason; never forward. */
  | {
      readonly kind: 'reject';
      /** The ingest lane the subject named; `unknown` when it is not an ingest subject. */
      readonly lane: IngestLane | 'unknown';
      readonly agent: string;
      readonly entityKey: Uint8Array;
      readonly reason: ErrorReason;
      readonly detail: string;
      readonly eventTimeMs: number;
    };

const EMPTY = new Uint8Array(0);
const carriedHeaders = new Set<string>([HeaderName.Traceparent, HeaderName.Tracestate]);
const AUTH = HeaderName.Auth.toLowerCase();

/**
 * The publisher's headers the inbox message carries on: trace context, and the `Agents-Auth` seal
 * of a result or approval (under its canonical name), which the activator verifies; ingress does
 * not judge it (docs/decisions/0058).
 */
function carriedFrom(headers: readonly HeaderDoc[]): HeaderDoc[] {
  const carried: HeaderDoc[] = [];
  for (const h of headers) {
    const name = h.name.toLowerCase();
    if (carriedHeaders.has(name)) carried.push(h);
    else if (name === AUTH) carried.push({ name: HeaderName.Auth, value: h.value });
  }
  return carried;
}

/**
 * Validates one ingest message and decides where it goes. Pure: the same message always gets
 * the same decision, so a redelivery to ingress forwards (or refuses) identically. Checks, in
 * order: subject shape, known agent, key (header or subject token), size, event time, body. The
 * element's clock is the ingest timestamp; a publisher's `Agents-Event-Time` only travels along as
 * `Agents-Client-Time`. The
 * agent, key, size and event-validator rules are `#routing`'s event admission, which the activator
 * also applies to direct events. An event for an agent with `shards` is then forwarded to its
 * shard key `key#i` (events only: results and approvals already name the shard they answer).
 */
export function decideIngest(input: IngestInput, agents: ReadonlyMap<string, AgentDefinition>, topology: Topology, limits: IngestLimits): IngestDecision {
  const header = (name: string): string | undefined => input.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
  const address = topology.parseIngestSubject(input.subject);
  const fallbackTime = Math.max(0, Math.floor(input.ingestTimeMs));
  if (address === undefined) {
    return reject('unknown', UNNAMED_AGENT, EMPTY, ErrorReason.MalformedInput, `not an ingest subject: ${input.subject}`, fallbackTime);
  }
  const lane = address.lane;
  const admission = admitAgent(address.agent, agents);
  if ('refusal' in admission) {
    const named = /^[a-z][a-z0-9_-]{0,63}$/.test(address.agent) ? address.agent : UNNAMED_AGENT;
    return refuse(lane, named, keyIfReadable(address.token, header(HeaderName.Key), header(HeaderName.KeyEncoding)), admission.refusal, fallbackTime);
  }
  const agent = admission.agent;

  // The key: an explicit header (for keys that are awkward in subjects), else the subject token.
  let entityKey: Uint8Array;
  const keyHeader = header(HeaderName.Key);
  if (keyHeader !== undefined) {
    const encoding = header(HeaderName.KeyEncoding);
    if (encoding !== undefined && encoding !== 'base64' && encoding !== 'utf-8') {
      return reject(lane, agent.name, EMPTY, ErrorReason.KeyInvalid, `unknown ${HeaderName.KeyEncoding} '${encoding}'`, fallbackTime);
    }
    // Text keys take the one canonical form (keyFromText: UTF-8 of NFC), as over HTTP and in the client.
    entityKey = encoding === 'base64' ? Buffer.from(keyHeader, 'base64') : keyFromText(keyHeader);
    const invalid = keyRefusal(entityKey, limits);
    if (invalid !== undefined) return refuse(lane, agent.name, EMPTY, invalid, fallbackTime);
    if (address.token !== '_' && address.token !== encodeKeyToken(entityKey)) {
      return reject(lane, agent.name, entityKey, ErrorReason.KeyInvalid, `subject token '${address.token}' does not match the ${HeaderName.Key} header (use '_' or the key's token)`, fallbackTime);
    }
  } else {
    try {
      entityKey = decodeKeyToken(address.token);
    } catch (error) {
      return reject(lane, agent.name, EMPTY, ErrorReason.KeyInvalid, (error as Error).message, fallbackTime);
    }
    const invalid = keyRefusal(entityKey, limits);
    if (invalid !== undefined) return refuse(lane, agent.name, EMPTY, invalid, fallbackTime);
  }

  const tooLarge = payloadRefusal(input.data.length, limits);
  if (tooLarge !== undefined) return refuse(lane, agent.name, entityKey, tooLarge, fallbackTime);

  // The activation clock is the server's stamp (the ingest stream's timestamp: fixed for the message,
  // so a redelivery decides identically). The publisher's claimed time is validated and carried as
  // an attribute only: trusting it would let a back-dated approval pass admission after its deadline.
  const eventTimeMs = fallbackTime;
  const eventTime = header(HeaderName.EventTime);
  let clientTime: HeaderDoc[] = [];
  if (eventTime !== undefined) {
    if (!/^\d{1,16}$/.test(eventTime.trim()) || !Number.isSafeInteger(Number(eventTime.trim()))) {
      return reject(lane, agent.name, entityKey, ErrorReason.MalformedInput, `${HeaderName.EventTime} must be epoch milliseconds up to ${Number.MAX_SAFE_INTEGER}, got '${eventTime}'`, fallbackTime);
    }
    clientTime = [{ name: HeaderName.ClientTime, value: eventTime.trim() }];
  }

  let payload: InboxPayload;
  if (address.lane === IngestLane.Events) {
    const refused = eventRefusal(agent, input.data);
    if (refused !== undefined) return refuse(lane, agent.name, entityKey, refused, eventTimeMs);
    payload = { kind: 'event', event: input.data };
    // Hot keys: events only, after every check (a refusal names the key the publisher used).
    if (agent.shards !== undefined) entityKey = shardKey(entityKey, agent.shards, input.data);
  } else {
    try {
      payload = decodeAnswer(address.lane, input.data, entityKey, header(HeaderName.ContentType));
    } catch (error) {
      if (error instanceof AnswerBodyError) return reject(lane, agent.name, entityKey, ErrorReason.MalformedInput, error.message, eventTimeMs);
      throw error;
    }
  }

  const token = encodeKeyToken(entityKey);
  const partition = topology.partitionOf(token);
  return {
    kind: 'forward',
    lane,
    agent: agent.name,
    token,
    inboxSubject: topology.inbox(partition, agent.name, token, inboxKindOfLane(address.lane)),
    envelope: encodeInboxEnvelope({ entityKey, eventTimeMs, payload }),
    headers: [{ name: HeaderName.EventTime, value: String(eventTimeMs) }, ...clientTime, ...carriedFrom(input.headers)],
  };
}

/** The body of a tool result or approval; throws {@link AnswerBodyError}. */
function decodeAnswer(lane: Exclude<IngestLane, typeof IngestLane.Events>, data: Uint8Array, entityKey: Uint8Array, contentType: string | undefined): InboxPayload {
  switch (lane) {
    case IngestLane.Results:
      return { kind: 'result', result: decodeResultBody(data, entityKey, contentType) };
    case IngestLane.Approvals:
      return { kind: 'approval', approval: decodeApprovalBody(data, contentType) };
  }
}

/**
 * The key a refused message names, when it can be read (so a record about an unknown agent still
 * says which key it was for): the `Agents-Key` header, else the subject token; empty otherwise.
 */
function keyIfReadable(token: string, keyHeader: string | undefined, encoding: string | undefined): Uint8Array {
  try {
    if (keyHeader !== undefined) return encoding === 'base64' ? Buffer.from(keyHeader, 'base64') : encoding === undefined || encoding === 'utf-8' ? keyFromText(keyHeader) : EMPTY;
    return token === '_' ? EMPTY : decodeKeyToken(token);
  } catch {
    return EMPTY;
  }
}

function reject(lane: IngestLane | 'unknown', agent: string, entityKey: Uint8Array, reason: ErrorReason, detail: string, eventTimeMs: number): IngestDecision {
  return { kind: 'reject', lane, agent, entityKey, reason, detail, eventTimeMs };
}

function refuse(lane: IngestLane, agent: string, entityKey: Uint8Array, refusal: ElementRefusal, eventTimeMs: number): IngestDecision {
  return reject(lane, agent, entityKey, refusal.reason, refusal.detail, eventTimeMs);
}
