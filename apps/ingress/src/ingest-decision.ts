import {
  ErrorReason,
  HeaderName,
  encodeInboxEnvelope,
  type AgentDefinition,
  type HeaderDoc,
  type InboxPayload,
} from '#core';
import {
  decodeKeyToken,
  encodeKeyToken,
  inboxKindOfLane,
  IngestLane,
  UNNAMED_AGENT,
  validateEntityKey,
  type Topology,
} from '#routing';
import { AnswerBodyError, decodeApprovalBody, decodeResultBody } from './answer-bodies.js';

/** One message as published to the ingest stream (or posted over HTTP). */
export interface IngestInput {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: readonly HeaderDoc[];
  /** Ingest-stream timestamp in ms: the event time when the publisher sent none. */
  readonly ingestTimeMs: number;
}

/** The limits ingress enforces. */
export interface IngestLimits {
  readonly maxEventBytes: number;
  readonly maxKeyBytes: number;
}

/** What ingress does with one ingest message. */
export type IngestDecision =
  /** Valid: forward into the key's inbox lane. */
  | {
      readonly kind: 'forward';
      readonly agent: string;
      readonly token: string;
      readonly inboxSubject: string;
      readonly envelope: Uint8Array;
      readonly headers: readonly HeaderDoc[];
    }
  /** Invalid: publish an error record with the reason; never forward. */
  | {
      readonly kind: 'reject';
      readonly agent: string;
      readonly entityKey: Uint8Array;
      readonly reason: ErrorReason;
      readonly detail: string;
      readonly eventTimeMs: number;
    };

const EMPTY = new Uint8Array(0);
const carriedHeaders = new Set<string>([HeaderName.Traceparent, HeaderName.Tracestate]);

/**
 * Validates one ingest message and decides where it goes. Pure: the same message always gets
 * the same decision, so a redelivery to ingress forwards (or refuses) identically. Checks, in
 * order: subject shape, known agent, key (header or subject token), size, event time, body.
 */
export function decideIngest(input: IngestInput, agents: ReadonlyMap<string, AgentDefinition>, topology: Topology, limits: IngestLimits): IngestDecision {
  const header = (name: string): string | undefined => input.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
  const address = topology.parseIngestSubject(input.subject);
  const fallbackTime = Math.max(0, Math.floor(input.ingestTimeMs));
  if (address === undefined) {
    return reject(UNNAMED_AGENT, EMPTY, ErrorReason.MalformedInput, `not an ingest subject: ${input.subject}`, fallbackTime);
  }
  const agent = agents.get(address.agent);
  if (agent === undefined) {
    const named = /^[a-z][a-z0-9_-]{0,63}$/.test(address.agent) ? address.agent : UNNAMED_AGENT;
    return reject(named, EMPTY, ErrorReason.UnknownAgent, `no agent named '${address.agent}' is deployed`, fallbackTime);
  }

  // The key: an explicit header (for keys that are awkward in subjects), else the subject token.
  let entityKey: Uint8Array;
  const keyHeader = header(HeaderName.Key);
  if (keyHeader !== undefined) {
    const encoding = header(HeaderName.KeyEncoding);
    if (encoding !== undefined && encoding !== 'base64' && encoding !== 'utf-8') {
      return reject(agent.name, EMPTY, ErrorReason.KeyInvalid, `unknown ${HeaderName.KeyEncoding} '${encoding}'`, fallbackTime);
    }
    entityKey = encoding === 'base64' ? Buffer.from(keyHeader, 'base64') : new TextEncoder().encode(keyHeader);
    const check = validateEntityKey(entityKey, { maxKeyBytes: limits.maxKeyBytes });
    if (!check.ok) return reject(agent.name, EMPTY, ErrorReason.KeyInvalid, check.problem, fallbackTime);
    if (address.token !== '_' && address.token !== encodeKeyToken(entityKey)) {
      return reject(agent.name, entityKey, ErrorReason.KeyInvalid, `subject token '${address.token}' does not match the ${HeaderName.Key} header (use '_' or the key's token)`, fallbackTime);
    }
  } else {
    try {
      entityKey = decodeKeyToken(address.token);
    } catch (error) {
      return reject(agent.name, EMPTY, ErrorReason.KeyInvalid, (error as Error).message, fallbackTime);
    }
    const check = validateEntityKey(entityKey, { maxKeyBytes: limits.maxKeyBytes });
    if (!check.ok) return reject(agent.name, EMPTY, ErrorReason.KeyInvalid, check.problem, fallbackTime);
  }

  if (input.data.length > limits.maxEventBytes) {
    return reject(agent.name, entityKey, ErrorReason.PayloadTooLarge, `${input.data.length} bytes exceed the ${limits.maxEventBytes}-byte limit`, fallbackTime);
  }

  let eventTimeMs = fallbackTime;
  const eventTime = header(HeaderName.EventTime);
  if (eventTime !== undefined) {
    if (!/^\d{1,16}$/.test(eventTime.trim())) {
      return reject(agent.name, entityKey, ErrorReason.MalformedInput, `${HeaderName.EventTime} must be epoch milliseconds, got '${eventTime}'`, fallbackTime);
    }
    eventTimeMs = Number(eventTime.trim());
  }

  let payload: InboxPayload;
  try {
    payload = decodePayload(address.lane, input.data, entityKey, agent, header(HeaderName.ContentType));
  } catch (error) {
    if (error instanceof AnswerBodyError || error instanceof EventRejected) {
      return reject(agent.name, entityKey, ErrorReason.MalformedInput, error.message, eventTimeMs);
    }
    throw error;
  }

  const token = encodeKeyToken(entityKey);
  const partition = topology.partitionOf(token);
  return {
    kind: 'forward',
    agent: agent.name,
    token,
    inboxSubject: topology.inbox(partition, agent.name, token, inboxKindOfLane(address.lane)),
    envelope: encodeInboxEnvelope({ entityKey, eventTimeMs, payload }),
    headers: [{ name: HeaderName.EventTime, value: String(eventTimeMs) }, ...input.headers.filter((h) => carriedHeaders.has(h.name.toLowerCase()))],
  };
}

class EventRejected extends Error {
  override readonly name = 'EventRejected';
}

function decodePayload(lane: IngestLane, data: Uint8Array, entityKey: Uint8Array, agent: AgentDefinition, contentType: string | undefined): InboxPayload {
  switch (lane) {
    case IngestLane.Events: {
      if (agent.validateEvent !== undefined) {
        let problem: string | undefined;
        try {
          problem = agent.validateEvent(data);
        } catch (error) {
          problem = `event validator threw: ${(error as Error).message}`;
        }
        if (problem !== undefined) throw new EventRejected(problem);
      }
      return { kind: 'event', event: data };
    }
    case IngestLane.Results:
      return { kind: 'result', result: decodeResultBody(data, entityKey, contentType) };
    case IngestLane.Approvals:
      return { kind: 'approval', approval: decodeApprovalBody(data, contentType) };
  }
}

function reject(agent: string, entityKey: Uint8Array, reason: ErrorReason, detail: string, eventTimeMs: number): IngestDecision {
  return { kind: 'reject', agent, entityKey, reason, detail, eventTimeMs };
}
