/**
 * How an agent's suspensions behave. Every field has a default, so `suspension` may be omitted.
 * The policy is configuration, not code: the timer route stays a pure function of state.
 */
export interface SuspensionPolicy {
  /**
   * What an event arriving for a suspended key does.
   * - `defer` (default): it waits in the key's state, in order, and runs when the suspension ends.
   * - `supersede`: it runs at once and, once it commits, replaces the suspension (a failing one
   *   leaves the suspension live); answers to the old intents become `orphaned_result` records
   *   (beam-agents' behaviour).
   */
  readonly whileSuspended?: 'defer' | 'supersede';
  /** How many events may wait while suspended before further ones become `deferred_overflow` records. Default 100. */
  readonly maxDeferred?: number;
  /** Suspension deadline when `suspend()` names none, in ms. Default 24 h. */
  readonly timeoutMs?: number;
  /** Expiry of staged intents when `act`/`requestApproval` name none, in ms. Default 1 h. */
  readonly intentTtlMs?: number;
  /**
   * What the deadline does when it passes first.
   * - `deny` (default): resume the agent with a denial (`ctx.resumeTimedOut`, a denied approval or an
   *   `expired` tool result for the first pending intent).
   * - `drop`: end the suspension with a `hitl_timeout` error record; the agent is not run.
   * - `escalate`: request approval again on `escalationChannel`, up to `maxEscalations` times, then deny.
   */
  readonly onTimeout?: 'deny' | 'drop' | 'escalate';
  /** Escalations before `escalate` falls back to `deny`. Default 1. */
  readonly maxEscalations?: number;
  /** Approval channel (tool name) of escalation requests. Default `approval`. */
  readonly escalationChannel?: string;
  /** How long each escalation waits, in ms. Default 24 h. */
  readonly escalationTimeoutMs?: number;
}

/** The policy with every default applied. */
export type ResolvedSuspensionPolicy = Required<SuspensionPolicy>;

/** The approval channel used when none is named. */
export const DEFAULT_APPROVAL_CHANNEL = 'approval';

/** Applies the documented defaults. */
export function resolveSuspensionPolicy(policy: SuspensionPolicy | undefined): ResolvedSuspensionPolicy {
  return {
    whileSuspended: policy?.whileSuspended ?? 'defer',
    maxDeferred: policy?.maxDeferred ?? 100,
    timeoutMs: policy?.timeoutMs ?? 86_400_000,
    intentTtlMs: policy?.intentTtlMs ?? 3_600_000,
    onTimeout: policy?.onTimeout ?? 'deny',
    maxEscalations: policy?.maxEscalations ?? 1,
    escalationChannel: policy?.escalationChannel ?? DEFAULT_APPROVAL_CHANNEL,
    escalationTimeoutMs: policy?.escalationTimeoutMs ?? 86_400_000,
  };
}
