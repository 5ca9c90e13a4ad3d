/**
 * The admission rules of an inbound event, shared by the two ways into a key's lane: ingress
 * (which refuses before forwarding) and direct publishing (where the activator refuses before
 * running the agent). One implementation, so both paths refuse the same input with the same reason
 * and detail. Each rule is a pure function of its input; none throws for bad input.
 * Pure: no side effects on import.
 */
import { ErrorReason, eventProblem, type AgentDefinition, type ElementRefusal } from '#core';
import { validateEntityKey } from './key-token.js';

/** The limits an inbound event must respect (`ingress.*` of the runtime configuration). */
export interface EventLimits {
  /** The largest accepted body (event, result or approval), in bytes. */
  readonly maxEventBytes: number;
  /** The longest accepted entity key, in bytes. */
  readonly maxKeyBytes: number;
}

/** The agent an element is for, or why there is none. */
export type AgentAdmission = { readonly agent: AgentDefinition } | { readonly refusal: ElementRefusal };

/** What {@link screenEvent} checks. */
export interface InboundEvent {
  /** The agent name as addressed (subject token). */
  readonly agent: string;
  readonly entityKey: Uint8Array;
  /** The event bytes as published. */
  readonly event: Uint8Array;
}

/** `unknown_agent` unless `name` is a deployed agent. */
export function admitAgent(name: string, agents: ReadonlyMap<string, AgentDefinition>): AgentAdmission {
  const agent = agents.get(name);
  if (agent !== undefined) return { agent };
  return { refusal: { reason: ErrorReason.UnknownAgent, detail: `no agent named '${name}' is deployed` } };
}

/** `key_invalid` when the entity key is empty or longer than `maxKeyBytes`. */
export function keyRefusal(entityKey: Uint8Array, limits: Pick<EventLimits, 'maxKeyBytes'>): ElementRefusal | undefined {
  const check = validateEntityKey(entityKey, { maxKeyBytes: limits.maxKeyBytes });
  return check.ok ? undefined : { reason: ErrorReason.KeyInvalid, detail: check.problem };
}

/** `payload_too_large` when a body of `bytes` bytes exceeds `maxEventBytes`. */
export function payloadRefusal(bytes: number, limits: Pick<EventLimits, 'maxEventBytes'>): ElementRefusal | undefined {
  if (bytes <= limits.maxEventBytes) return undefined;
  return { reason: ErrorReason.PayloadTooLarge, detail: `${bytes} bytes exceed the ${limits.maxEventBytes}-byte limit` };
}

/**
 * `malformed_input` when the event fails the agent's `event` schema (not JSON, or the schema's
 * issues, all named) or its optional `validateEvent` names a problem. A validator that throws
 * refuses too (its message becomes the detail): a buggy validator must not wedge a key. A schema
 * that validates asynchronously is left to the activator, which refuses with the same detail.
 */
export function eventRefusal(agent: AgentDefinition, event: Uint8Array): ElementRefusal | undefined {
  if (agent.event !== undefined) {
    const problem = eventProblem(agent.event, event);
    if (problem !== undefined && problem !== 'async') return { reason: ErrorReason.MalformedInput, detail: problem };
  }
  if (agent.validateEvent === undefined) return undefined;
  let problem: string | undefined;
  try {
    problem = agent.validateEvent(event);
  } catch (error) {
    problem = `event validator threw: ${(error as Error).message}`;
  }
  return problem === undefined ? undefined : { reason: ErrorReason.MalformedInput, detail: problem };
}

/**
 * Every rule, in ingress's order: known agent, key, size, the agent's validator. `undefined` admits
 * the event. Ingress runs the same rules step by step (with its header checks in between); the
 * activator runs this for direct elements.
 *
 * @example
 * ```ts
 * screenEvent({ agent: 'counter', entityKey: keyFromText('k'), event }, agents, config.ingress);
 * // undefined, or e.g. { reason: 'payload_too_large', detail: '300000 bytes exceed the 262144-byte limit' }
 * ```
 */
export function screenEvent(input: InboundEvent, agents: ReadonlyMap<string, AgentDefinition>, limits: EventLimits): ElementRefusal | undefined {
  const admission = admitAgent(input.agent, agents);
  if ('refusal' in admission) return admission.refusal;
  return keyRefusal(input.entityKey, limits) ?? payloadRefusal(input.event.length, limits) ?? eventRefusal(admission.agent, input.event);
}
