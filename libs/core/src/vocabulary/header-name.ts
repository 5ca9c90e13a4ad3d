/**
 * The closed vocabulary of NATS header names the runtime reads or writes. Anything a publisher
 * may set is validated at ingress; anything the runtime sets is deterministic, so a republish
 * after a crash carries identical headers.
 */
export const HeaderName = {
  /** JetStream idempotent-publish id; every runtime publish carries a derived one. */
  MsgId: 'Nats-Msg-Id',
  /**
   * The element's event time in epoch milliseconds (decimal). A publisher may send it, but it is
   * never the activation clock: the runtime stamps that from the stream (the ingest or inbox
   * message's own timestamp), so a client cannot back-date an approval past its deadline or read
   * expired records. What the runtime writes here on the inbox lane is its own stamp.
   */
  EventTime: 'Agents-Event-Time',
  /** The publisher's own `Agents-Event-Time`, carried on the inbox message as an attribute only (never a decision input). */
  ClientTime: 'Agents-Client-Time',
  /** The entity key when it is not subject-safe (UTF-8 text, or base64 with Agents-Key-Encoding). */
  Key: 'Agents-Key',
  /** `base64` when Agents-Key carries arbitrary bytes; absent means UTF-8 text. */
  KeyEncoding: 'Agents-Key-Encoding',
  /** `json` or `protobuf`: how a result or approval body is encoded (default: sniffed). */
  ContentType: 'Content-Type',
  /** The error reason on an error record (same as the subject's last token). */
  Reason: 'Agents-Reason',
  /** The agent name on records the runtime publishes. */
  Agent: 'Agents-Agent',
  /** The activation seq that produced an output or intent. */
  Seq: 'Agents-Seq',
  /** Present on an event a client published straight into the inbox lane: the activator validates it as ingress would. */
  Direct: 'Agents-Direct',
  /**
   * The seal of a tool result, approval or timer firing: `hmac-sha256 <keyId> <base64url MAC>` with
   * a cluster key over (kind, agent, key, payload). Set by the effector, ingress (for an
   * authenticated HTTP caller), the console and the timer owner; verified by the activator.
   */
  Auth: 'Agents-Auth',
  /** W3C trace context. */
  Traceparent: 'traceparent',
  /** W3C trace state. */
  Tracestate: 'tracestate',
} as const;

export type HeaderName = (typeof HeaderName)[keyof typeof HeaderName];
