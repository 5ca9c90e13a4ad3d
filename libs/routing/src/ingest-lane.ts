/**
 * The closed vocabulary of ingest lanes: the second token of `<prefix>.<lane>.<agent>.<key>`,
 * the subjects outsiders publish to (all captured by the `<PREFIX>_INGEST` stream). Ingress
 * forwards each lane to the key's inbox as one inbox kind ({@link inboxKindOfLane}).
 */
import { InboxKind } from './inbox-kind.js';

/** The lanes of the public ingest contract; the strings are a wire contract. */
export const IngestLane = {
  /** Events from users and upstream systems; opaque bytes (JSON by convention). */
  Events: 'events',
  /** Tool results, published by the effector (or an external tool) as `ToolResult` protobuf. */
  Results: 'results',
  /** Human approval decisions, published by the CLI, HTTP ingress or a UI. */
  Approvals: 'approvals',
} as const;

/** One ingest lane. */
export type IngestLane = (typeof IngestLane)[keyof typeof IngestLane];

const lanes: ReadonlySet<string> = new Set(Object.values(IngestLane));

/** True when `value` is a member of the ingest-lane vocabulary. */
export function isIngestLane(value: string): value is IngestLane {
  return lanes.has(value);
}

const KIND_OF_LANE = {
  [IngestLane.Events]: InboxKind.Event,
  [IngestLane.Results]: InboxKind.Result,
  [IngestLane.Approvals]: InboxKind.Approval,
} as const satisfies Record<IngestLane, InboxKind>;

/** The inbox kind ingress forwards a message of this lane as (`events` → `event`, …). */
export function inboxKindOfLane(lane: IngestLane): InboxKind {
  return KIND_OF_LANE[lane];
}
