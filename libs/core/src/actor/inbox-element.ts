import type { HeaderDoc } from './actor-document.js';

/** Mirror of `nats_agents.v1.ToolResultStatus`. */
export const ToolResultStatus = {
  /** The tool ran and succeeded. */
  Ok: 1,
  /** The tool ran and failed. */
  Error: 2,
  /** The effector refused the intent because it had expired (fail-closed layer 2). */
  Expired: 3,
  /** The effector refused the intent (unknown tool, invalid arguments). */
  Rejected: 4,
} as const;
export type ToolResultStatus = (typeof ToolResultStatus)[keyof typeof ToolResultStatus];

export interface ToolResultDoc {
  readonly intentId: string;
  readonly entityKey: Uint8Array;
  readonly seq: number;
  readonly status: ToolResultStatus;
  readonly payload: Uint8Array;
  readonly errorMessage: string;
  readonly completedAtMs: number;
}

export interface ApprovalDoc {
  readonly intentId: string;
  readonly approved: boolean;
  readonly approver: string;
  readonly decidedAtMs: number;
  readonly reason: string;
}

export interface TimerFiredDoc {
  readonly timerId: string;
  readonly kind: number;
  readonly dueAtMs: number;
}

/** What an inbox element carries. */
export type InboxPayload =
  | { readonly kind: 'event'; readonly event: Uint8Array }
  | { readonly kind: 'result'; readonly result: ToolResultDoc }
  | { readonly kind: 'approval'; readonly approval: ApprovalDoc }
  | { readonly kind: 'timer'; readonly timer: TimerFiredDoc };

/** One element of a key's inbox lane, as the actor applies it. */
export interface InboxElement {
  /** The inbox stream sequence: the element's identity for deduplication. */
  readonly inboxSeq: number;
  readonly entityKey: Uint8Array;
  /** The activation clock of this element. */
  readonly eventTimeMs: number;
  readonly payload: InboxPayload;
  /** Trace context and other carried headers. */
  readonly headers: readonly HeaderDoc[];
  /**
   * True for an event a client published straight into the inbox lane (`Agents-Direct`): no
   * ingress validated it, so the runtime applies the ingress rules before the agent sees it, and
   * an agent not hosted here is a publisher's mistake (an `unknown_agent` record), not deploy skew.
   */
  readonly direct?: boolean;
  /**
   * How many times the transport has delivered this element (1 = the first delivery), when known.
   * Telemetry only (traces mark redeliveries): it never reaches a decision or the state document.
   */
  readonly deliveries?: number;
}

/**
 * Builds an {@link InboxElement}: the one constructor of the elements the runtime processes, so
 * every element has the same properties in the same order and therefore one object shape. Why:
 * the runtime's hot path reads each element's fields at many sites, and V8 keeps those reads fast
 * only while it sees one shape. A spread copy (`{ ...element, headers }`) has a shape of its own;
 * when the tracing runtime re-parented sampled elements that way, one element in ten at a 10 %
 * ratio carried a second shape through every one of those sites.
 *
 * `direct` and `deliveries` are present only when set, as an element without them always was.
 * Pure; building an element again from the same delivery gives an equal element.
 */
export function inboxElement(
  inboxSeq: number,
  entityKey: Uint8Array,
  eventTimeMs: number,
  payload: InboxPayload,
  headers: readonly HeaderDoc[],
  direct: boolean,
  deliveries: number | undefined,
): InboxElement {
  return {
    inboxSeq,
    entityKey,
    eventTimeMs,
    payload,
    headers,
    ...(direct ? { direct: true } : {}),
    ...(deliveries !== undefined ? { deliveries } : {}),
  };
}

/** `element` carrying `headers` instead of its own, in the shape {@link inboxElement} gives every element. */
export function withElementHeaders(element: InboxElement, headers: readonly HeaderDoc[]): InboxElement {
  return inboxElement(element.inboxSeq, element.entityKey, element.eventTimeMs, element.payload, headers, element.direct === true, element.deliveries);
}
