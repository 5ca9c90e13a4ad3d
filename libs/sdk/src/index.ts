/**
 * @packageDocumentation
 * The public authoring API of nats-agents: declare an agent or a tool, end an activation.
 * Everything here is a typed wrapper over plain objects, so agents and tools may also be written
 * in plain JavaScript.
 *
 * @module sdk
 */
export { defineAgent } from './define-agent.js';
export { defineTool } from './define-tool.js';
export { complete, suspend } from './outcomes.js';
export { toolDeclarations, toolParameters } from './tool-declarations.js';
export type { ToolDeclarationFormat } from './tool-declarations.js';
export type {
  AgentDefinition,
  AgentHandler,
  AgentIsolation,
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
  ToolDefinition,
  ArgumentSchema,
  StandardSchema,
  StandardResult,
  TypedTool,
  TypedToolResult,
  ToolCall,
  StopReason,
  ToolCallContext,
  IntentInfo,
} from '#core';
export { MemoryOverflow, MemoryKindError, EventDecodeError, RetryableError, TerminalError, DropOldestCompactor } from '#core';
export type { Compactor, CompactableMemory, MemoryPolicy, SummarizeOptions, SummarizeInput, SuspensionPolicy, ToolResultView, ApprovalView } from '#core';
