import type { ErrorReason } from '../vocabulary/error-reason.js';
import type { InboxElement } from './inbox-element.js';

/**
 * Why an inbound element is refused before any agent code sees it. The refusal becomes an error
 * record with this reason and detail (invariant 1: the element commits nothing else).
 */
export interface ElementRefusal {
  readonly reason: ErrorReason;
  /** What was wrong, for the publisher; never the payload itself. */
  readonly detail: string;
}

/**
 * The ingress validation rules (known agent, key, payload size, the agent's `validateEvent`) as
 * the runtime applies them to every event element of a hosted agent and to every **direct**
 * element ({@link InboxElement.direct}): the inbox lane can be published to without ingress, with
 * or without the direct header, so no element is trusted to have been checked. Injected because the
 * rules live above core (`#routing`'s event admission, shared with ingress). Pure: the same
 * element always gets the same answer, so a redelivery is refused (or admitted) identically.
 */
export type DirectElementScreen = (element: InboxElement, agent: string) => ElementRefusal | undefined;
