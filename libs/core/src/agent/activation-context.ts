import type { JsonValue } from '../json/canonical-json.js';
import type { ModelRequest, ModelResponse } from '../model/model-request.js';
import type { OutputValue } from './outcome.js';
import type { ToolDefinition, TypedTool } from '../tools/tool-definition.js';
import type { ApprovalView, ToolResultView, TypedToolResult } from './resume-views.js';
import type { WorkingMemoryApi } from './working-memory-api.js';

/**
 * Everything an activation may see and do. Built fresh for every attempt; nothing it stages
 * reaches the world unless the attempt commits (invariant 1).
 *
 * On retry or replay of the same element the context is rebuilt from the same committed state,
 * so an agent that only uses what is here (no wall clock, no randomness of its own) walks the
 * same path and stages byte-identical effects.
 */
export interface ActivationContext<TEvent = unknown> {
  /** The agent's name. */
  readonly agent: string;
  /** The entity key, verbatim bytes. */
  readonly key: Uint8Array;
  /** The entity key decoded as UTF-8 (lossy for binary keys). */
  readonly keyText: string;
  /** The activation's seq: committed attempts on this key before it (a resume keeps its start's seq). */
  readonly seq: number;
  /**
   * The triggering event: its bytes, or the parsed, validated value when the agent declares an
   * `event` schema. Undefined on resumes and timer routes.
   */
  readonly event: TEvent | undefined;
  /** The event parsed as JSON. Throws `EventDecodeError` when it is not JSON (the activation then fails closed). */
  eventJson<T = unknown>(): T;
  /** The event decoded as UTF-8 text. */
  eventText(): string;
  /** The activation clock: the element's event time in epoch ms. Never the wall clock. */
  readonly eventTimeMs: number;
  /** True when this attempt resumes a suspension (a tool result or approval arrived, or the deadline passed). */
  readonly isResume: boolean;
  /** On a resume by a tool result: that result. */
  readonly resumeResult: ToolResultView | undefined;
  /** On a resume by a human decision: that decision. */
  readonly resumeApproval: ApprovalView | undefined;
  /** True when the resume was caused by the suspension deadline under the `deny` policy. */
  readonly resumeTimedOut: boolean;
  /** On a resume: the snapshot passed to `suspend()`. */
  readonly snapshot: Uint8Array | undefined;
  /** The snapshot parsed as JSON (`undefined` when absent or empty). */
  snapshotJson<T = unknown>(): T | undefined;
  /** The key's working memory (staged). */
  readonly memory: WorkingMemoryApi;
  /**
   * Calls the model through the replay cache (invariant 3): a request already answered in this
   * (key, seq) scope is served from the committed cache with zero provider calls, so a retried
   * or replayed activation never pays twice. Each call advances the step index.
   */
  callModel(request: ModelRequest): Promise<ModelResponse>;
  /** Stages an extra output, published in order before the completion output on commit. */
  emit(output: OutputValue): void;
  /**
   * Stages a side-effecting tool call and returns its intent id, `uuidv5(hex(key)|seq|step)`:
   * byte-identical on every replay of the same path, so the effector executes it once. Nothing
   * runs now; the intent is published when the activation commits, and its result resumes the
   * agent after `suspend()`. Advances the step index.
   */
  act(tool: string, args?: JsonValue, options?: { readonly ttlMs?: number }): string;
  /**
   * The typed form: the tool's definition instead of its name, arguments typed by its `schema`.
   * Stages the same intent as `act(tool.name, args)` (same id, same bytes).
   */
  act<A>(tool: ToolDefinition<A, unknown>, args: A, options?: { readonly ttlMs?: number }): string;
  /**
   * On a resume by a result of `tool`'s intent: that result with its value typed (and checked) by
   * the tool's `output` schema; `undefined` on any other activation. A value failing the output
   * schema throws a `TerminalError` naming the issues (the activation fails closed). The output
   * schema must validate synchronously.
   */
  toolResult<R>(tool: TypedTool<R>): TypedToolResult<R> | undefined;
  /**
   * Stages a request for a human decision (published on `agents.approval-requests.<agent>.<key>`)
   * and returns its intent id. Its tool name is `options.channel`, default `approval` (the policy's
   * `escalationChannel` names only the deadline's re-requests). The decision resumes the agent after
   * `suspend()`. Advances the step index.
   */
  requestApproval(args?: JsonValue, options?: { readonly channel?: string; readonly ttlMs?: number }): string;
  /**
   * Runs a read-only tool declared in the agent's `tools` inline and returns its value. Does not
   * advance the step index and is not cached: keep such tools deterministic. Throws
   * `SideEffectToolError` for a side-effecting tool (those go through `act`).
   */
  runTool<R = unknown>(name: string, args?: JsonValue): Promise<R>;
  /** Aborted when the activation times out; pass it to anything cancellable. */
  readonly signal: AbortSignal;
}
