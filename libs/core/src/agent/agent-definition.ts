import type { TokenBudget } from '../model/token-budget.js';
import type { AnyToolDefinition, StandardSchema } from '../tools/tool-definition.js';
import type { ActivationContext } from './activation-context.js';
import type { MemoryPolicy } from './memory-policy.js';
import type { Outcome } from './outcome.js';
import type { SuspensionPolicy } from './suspension-policy.js';

/**
 * The agent function: one activation for one element of one key. `TEvent` is what `ctx.event`
 * holds: the event bytes, or the parsed value when the agent declares an `event` schema.
 */
export type AgentHandler<TEvent = unknown> = (ctx: ActivationContext<TEvent>) => Promise<Outcome> | Outcome;

/**
 * An optional event validator applied at ingress, before anything reaches the key: return
 * `undefined` to accept, or a human-readable problem to reject the event as `malformed_input`.
 */
export type EventValidator = (event: Uint8Array) => string | undefined;

/**
 * A deployable agent. A plain object of this shape works without importing anything. `TEvent` is
 * the type of `ctx.event` (the parsed event with an `event` schema); `AgentDefinition` alone, as
 * the runtime holds agents, is any agent whatever its event type.
 */
export interface AgentDefinition<TEvent = unknown> {
  /** Subject-safe name: lowercase letter first, then `[a-z0-9_-]`, at most 64 characters. */
  readonly name: string;
  /**
   * The agent function (a method, so an agent typed for its event is still an `AgentDefinition`).
   * Called with `this` unbound: do not use `this`.
   */
  handler(ctx: ActivationContext<TEvent>): Promise<Outcome> | Outcome;
  /**
   * The event's schema (any Standard Schema: zod, valibot, arktype). The event is parsed as JSON
   * and validated before the agent runs; `ctx.event` is then the validated value. An event that
   * is not JSON or fails the schema becomes a `malformed_input` error record naming the schema's
   * issues and the agent does not run. Ingress validates too (when the schema validates
   * synchronously), so such an event is refused before it reaches a partition.
   */
  readonly event?: StandardSchema<TEvent>;
  /** Checked at ingress; a rejection is an error record, not an activation. */
  readonly validateEvent?: EventValidator;
  /**
   * Hot-key sharding: ingress rewrites each event's key `k` to `k#i`, `i` derived from the event
   * bytes (`shardKey` in `#routing`), so one busy logical key is served by this many actors in
   * parallel. A positive integer. ONLY for memory-free agents: every shard has its own working
   * memory, replay cache, seq and suspension, and events of one logical key are ordered only
   * within their shard. Tool results and approvals address the shard their intent was minted on
   * and are never re-sharded. Absent: keys are used as published.
   */
  readonly shards?: number;
  /** Overrides the activator's activation timeout for this agent (ms). */
  readonly timeoutMs?: number;
  /**
   * Where the handler runs. `event-loop` (the default): on the activator's thread, where a
   * synchronous handler that overruns its timeout blocks every key of the activator until it
   * returns (it then commits nothing but its `activation_timeout` record). `worker`: in a worker
   * thread of a bounded per-agent pool (`activator.workersPerAgent`), its context answered by the
   * activator's thread; on timeout the thread is terminated, so a CPU-bound handler cannot stall
   * other keys. Each call on `ctx` is then a message between threads (tens of microseconds at most), the event must
   * survive structured cloning, and `ctx.signal` never aborts (the thread is stopped instead).
   * Overridable per agent in the configuration (`isolation`). See docs/decisions/0070.
   */
  readonly isolation?: AgentIsolation;
  /**
   * Tools the agent uses: read-only ones run inline through `ctx.runTool`; naming side-effecting
   * ones lets `ctx.act` refuse unknown or read-only tool names early. Without `tools`, `act` accepts
   * any tool name and the effector rejects unknown ones.
   */
  readonly tools?: readonly AnyToolDefinition[];
  /** How suspensions, deadlines and events arriving meanwhile behave. */
  readonly suspension?: SuspensionPolicy;
  /** How working memory stays within its caps (compaction, summarizing). */
  readonly memory?: MemoryPolicy;
  /**
   * Token budgets (per activation, per key in a rolling window). A model call that would exceed
   * one is refused before the provider is asked, and the activation fails closed with a
   * `budget_exceeded` record. Overridable per agent in the configuration (`budgets`).
   */
  readonly budget?: TokenBudget;
}

/** Where an agent's handler runs (`AgentDefinition.isolation`). */
export type AgentIsolation = 'event-loop' | 'worker';

/** The pattern every agent name must match (it is a NATS subject token and a KV key segment). */
export const AGENT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

/** True when `value` is shaped like an agent definition. */
export function isAgentDefinition(value: unknown): value is AgentDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { name?: unknown; handler?: unknown };
  return typeof candidate.name === 'string' && typeof candidate.handler === 'function';
}
