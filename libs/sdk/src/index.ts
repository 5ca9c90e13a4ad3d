/**
 * @packageDocumentation
 * The public authoring API of nats-agents: declare an agent, end an activation. Everything here
 * is a typed wrapper over plain objects, so agents may also be written in plain JavaScript.
 */
export { defineAgent } from './define-agent.js';
export { complete, suspend } from './outcomes.js';
export type {
  AgentDefinition,
  AgentHandler,
  EventValidator,
  ActivationContext,
  WorkingMemoryApi,
  AppendOptions,
  Outcome,
  Complete,
  Suspend,
  SuspendOptions,
  OutputValue,
  ModelRequest,
  ModelResponse,
  TokenUsage,
  JsonValue,
} from '#core';
export { MemoryOverflow, MemoryKindError, EventDecodeError } from '#core';
