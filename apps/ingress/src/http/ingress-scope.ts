/**
 * The scopes ingress's HTTP routes require. A scope is `<action>` (every agent) or
 * `<action>:<agent>` (one agent); `*` grants everything:
 *
 * | route | scope |
 * | --- | --- |
 * | `POST /v1/agents/:agent/events/:key` | `events:publish` or `events:publish:<agent>` |
 * | `POST /v1/agents/:agent/results/:key` | `results:submit` or `results:submit:<agent>` |
 * | `POST /v1/agents/:agent/approvals/:key` | `approvals:decide` or `approvals:decide:<agent>` |
 *
 * Roles (`viewer`, `operator`) grant nothing here: a machine caller of ingress is given exactly the
 * scopes it needs, and a console operator's role does not let its token publish events. Pure.
 */
import { principalHasScope, type Principal } from '#auth';
import { IngestLane } from '#routing';

/** The action of each lane, the first part of its scope. */
export const LANE_ACTION: Readonly<Record<IngestLane, string>> = {
  [IngestLane.Events]: 'events:publish',
  [IngestLane.Results]: 'results:submit',
  [IngestLane.Approvals]: 'approvals:decide',
};

/** The narrowest scope that lets a caller use `lane` for `agent` (what a 403 names). */
export function requiredScope(lane: IngestLane, agent: string): string {
  return `${LANE_ACTION[lane]}:${agent}`;
}

/** True when the principal may use `lane` for `agent`: it holds the per-agent scope, the lane-wide one, or `*`. */
export function mayUseLane(principal: Principal, lane: IngestLane, agent: string): boolean {
  return principalHasScope(principal, requiredScope(lane, agent)) || principalHasScope(principal, LANE_ACTION[lane]);
}
