import type { JsonValue } from '../json/canonical-json.js';

/**
 * A validator for tool arguments: any Standard Schema v1 implementation (zod 4, valibot, arktype…)
 * or a plain function returning the parsed value or throwing. Validation happens before the tool
 * runs, inline (read-only tools) or in the effector (side-effecting tools).
 */
export type ArgumentSchema<A> = StandardSchema<A> | ((value: unknown) => A);

/**
 * A Standard Schema v1 (https://standardschema.dev), structurally: zod 4, valibot, arktype and
 * others implement it, and nothing here depends on any of them. `jsonSchema` is the optional
 * Standard JSON Schema converter (zod 4 has it), used to declare tools to a model.
 */
export interface StandardSchema<T> {
  readonly '~standard': {
    readonly validate: (value: unknown) => StandardResult<T> | Promise<StandardResult<T>>;
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
  };
}

/** The result shape of a Standard Schema validation. */
export type StandardResult<A> =
  | { readonly value: A; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[] };

/** What a side-effecting tool learns about the intent it executes. */
export interface IntentInfo {
  /** Use it as the idempotency key of the downstream effect: re-executions carry the same id. */
  readonly intentId: string;
  readonly agent: string;
  readonly entityKey: Uint8Array;
  readonly seq: number;
  readonly stepIndex: number;
}

/** What a tool's handler receives besides its arguments. */
export interface ToolCallContext {
  /** Aborted when the tool's timeout passes or the service stops; stop work promptly. */
  readonly signal: AbortSignal;
  /** Present for side-effecting tools run by the effector. */
  readonly intent?: IntentInfo;
  /** Resolves a secret by reference (`env:NAME` or `file:/path`); secrets never travel in args. */
  readonly secret?: (reference: string) => string;
}

/**
 * A tool an agent can use. Read-only tools (`sideEffect: false`) run inline through
 * `ctx.runTool` and their answer is not cached: keep them deterministic for the same arguments.
 * Side-effecting tools are never run inside an activation: the agent stages an intent with
 * `ctx.act`, and the effector runs the tool once per intent id (invariant 5).
 */
export interface ToolDefinition<A = unknown, R = unknown> {
  /** `^[a-z][a-z0-9_-]{0,63}$` (a subject token: intents go to `agents.intents.<agent>.<tool>`). */
  readonly name: string;
  readonly description?: string;
  readonly sideEffect: boolean;
  /** Validates the arguments; absent means any JSON object is accepted. */
  readonly schema?: ArgumentSchema<A>;
  /**
   * Describes (and checks) what the tool returns, so the agent's resumed result is typed
   * (`ctx.toolResult(tool)`). Absent: the result is the tool's JSON as is.
   */
  readonly output?: StandardSchema<R>;
  /**
   * The arguments' JSON Schema for model tool declarations (`toolDeclarations`), when the schema
   * cannot produce one itself (a parsing function, a library without Standard JSON Schema).
   */
  readonly parameters?: { readonly [name: string]: JsonValue };
  /** Per-call timeout in ms (effector default 60 s; inline tools share the activation's signal). */
  readonly timeoutMs?: number;
  /** Extra attempts on retryable failures (a thrown `RetryableError`), effector only. Default 2. */
  readonly retries?: number;
  readonly handler: (args: A, context: ToolCallContext) => Promise<R> | R;
}

/**
 * What `ctx.toolResult` needs of a tool to type its result: the name, and the output schema or
 * the handler's return type.
 */
export interface TypedTool<R> {
  readonly name: string;
  readonly output?: StandardSchema<R>;
  readonly handler: (args: never, context: never) => Promise<R> | R;
}

/**
 * Any tool, whatever its argument and result types: the element type of tool lists. Arguments are
 * validated by the tool's own schema at run time, so the static type cannot be narrower here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous list of tools: each validates its own arguments at run time
export type AnyToolDefinition = ToolDefinition<any, unknown>;

/** The JSON-encodable value a tool returns (its result payload is its canonical JSON). */
export type ToolReturn = JsonValue | undefined;

/** The pattern every tool name must match. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

/** True when `value` is shaped like a tool definition (tools may be plain JavaScript objects). */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { name?: unknown; handler?: unknown; sideEffect?: unknown };
  return typeof candidate.name === 'string' && typeof candidate.handler === 'function' && typeof candidate.sideEffect === 'boolean';
}
