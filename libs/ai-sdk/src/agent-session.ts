/**
 * Runs AI SDK code inside an activation with the runtime's guarantees: the model through
 * `ctx.callModel` ({@link agentModel}), side-effecting tools as intents the effector runs once per
 * intent id, and `generateText` with tools and a step limit across suspensions.
 *
 * How a side-effecting tool suspends. Its `execute` stages an intent (`ctx.act`) and marks the
 * tool call pending; a stop condition ends `generateText` after that step, before the model sees
 * anything, and the session answers `suspended` with a `suspend()` outcome whose snapshot records
 * the pending tool calls and the results received so far. When the result arrives, the handler
 * runs again and calls `generateText` again with the same arguments: every model call already made
 * is answered from the replay cache (zero provider calls, byte-identical), every tool call already
 * answered returns its recorded result, and the run goes on from the first step that is new.
 * Parallel tool calls of one step each stage an intent; the session suspends until every one of
 * them is answered (results are carried forward in the snapshot), then resumes once.
 *
 * Redelivery and crashes: intent ids derive from (agent, key, seq, step), and a retried attempt
 * re-runs the same calls in the same order, so it stages byte-identical intents; the effector runs
 * each intent id once.
 */
import { generateText, type StopCondition, type Tool, type ToolSet } from 'ai';
import type { FlexibleSchema } from '@ai-sdk/provider-utils';
import type { ActivationContext, JsonValue, Suspend } from '#core';
import { suspend } from '#sdk';
import { agentModel } from './agent-model.js';

/** The snapshot tag of a session's suspension. */
const SESSION_FORMAT = 'nats-agents/ai-sdk-session';

/** A tool result as the session carries it between activations. */
interface CarriedResult {
  readonly ok: boolean;
  readonly value?: JsonValue;
  readonly error?: string;
}

interface SessionSnapshot {
  readonly format: typeof SESSION_FORMAT;
  /** Tool call id → the intent staged for it, still unanswered. */
  readonly pending: Readonly<Record<string, string>>;
  /** Tool call id → its result. */
  readonly results: Readonly<Record<string, CarriedResult>>;
}

/** What a session run ended with: the AI SDK's value, or a suspension to return from the handler. */
export type SessionOutcome<T> = { readonly kind: 'done'; readonly value: T } | { readonly kind: 'suspended'; readonly outcome: Suspend };

/** A side-effecting tool's declaration. */
export interface SideEffectToolOptions<INPUT> {
  readonly description?: string;
  readonly inputSchema: FlexibleSchema<INPUT>;
  /** The intent's time to live (default the runtime's). */
  readonly ttlMs?: number;
}

/** The error a tool call's failed or refused intent answers the model with. */
export interface ToolFailure {
  readonly error: string;
}

/** One activation's AI SDK session; create one per handler run with {@link aiSdkSession}. */
export interface AiSdkSession {
  /** {@link agentModel} for this activation. */
  model(modelId: string): ReturnType<typeof agentModel>;
  /**
   * A tool whose call becomes an intent for the effector's tool `name` (registered there with
   * `sideEffect: true`). Its output is the tool's JSON result, or {@link ToolFailure} when the
   * effector reports an error, an expiry or a refusal.
   */
  sideEffectTool<INPUT>(name: string, options: SideEffectToolOptions<INPUT>): Tool<INPUT, unknown>;
  /**
   * `generateText` with the session's stop condition added to yours (`stopWhen`), and
   * `maxRetries: 0` unless given (the runtime owns retries).
   */
  generateText<TOOLS extends ToolSet>(options: Parameters<typeof generateText<TOOLS>>[0]): Promise<SessionOutcome<Awaited<ReturnType<typeof generateText<TOOLS>>>>>;
  /** Tool calls waiting for their intent's result. */
  readonly pendingToolCalls: number;
}

/**
 * Starts the session of this activation, restoring what a resumed one carried.
 *
 * @example
 * ```ts
 * handler: async (ctx) => {
 *   const ai = aiSdkSession(ctx);
 *   const run = await ai.generateText({
 *     model: ai.model('support-model'),
 *     tools: { refund: ai.sideEffectTool('refund', { inputSchema: z.object({ orderId: z.string() }) }) },
 *     stopWhen: stepCountIs(5),
 *     prompt: ctx.eventText(),
 *   });
 *   return run.kind === 'suspended' ? run.outcome : complete({ reply: run.value.text });
 * }
 * ```
 */
export function aiSdkSession(ctx: ActivationContext): AiSdkSession {
  const carried = ctx.isResume ? ctx.snapshotJson<Partial<SessionSnapshot>>() : undefined;
  const pending = new Map<string, string>(carried?.format === SESSION_FORMAT ? Object.entries(carried.pending ?? {}) : []);
  const results = new Map<string, CarriedResult>(carried?.format === SESSION_FORMAT ? Object.entries(carried.results ?? {}) : []);
  const answer = ctx.resumeResult;
  if (answer !== undefined) {
    for (const [toolCallId, intentId] of pending) {
      if (intentId !== answer.intentId) continue;
      pending.delete(toolCallId);
      results.set(toolCallId, answer.status === 'ok' ? { ok: true, value: answer.json<JsonValue>() } : { ok: false, error: answer.errorMessage || answer.status });
    }
  }
  const pendingCount = (): number => pending.size;

  return {
    model: (modelId) => agentModel(ctx, modelId),
    sideEffectTool<INPUT>(name: string, options: SideEffectToolOptions<INPUT>): Tool<INPUT, unknown> {
      return {
        ...(options.description !== undefined ? { description: options.description } : {}),
        inputSchema: options.inputSchema,
        execute: (input: INPUT, { toolCallId }: { toolCallId: string }): unknown => {
          const result = results.get(toolCallId);
          if (result !== undefined) return result.ok ? result.value : ({ error: result.error ?? 'failed' } satisfies ToolFailure);
          // Staged synchronously, in the order the AI SDK starts the step's tool calls.
          if (!pending.has(toolCallId)) pending.set(toolCallId, ctx.act(name, input as JsonValue, options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}));
          // Never shown to the model: the session's stop condition ends the run after this step.
          return { pending: toolCallId };
        },
      } as Tool<INPUT, unknown>;
    },
    async generateText<TOOLS extends ToolSet>(options: Parameters<typeof generateText<TOOLS>>[0]) {
      const user = options.stopWhen === undefined ? [] : Array.isArray(options.stopWhen) ? options.stopWhen : [options.stopWhen];
      const stopWhenPending: StopCondition<NoInfer<TOOLS>> = () => pending.size > 0;
      const value = await generateText({ maxRetries: 0, ...options, stopWhen: [...user, stopWhenPending] });
      if (pending.size === 0) return { kind: 'done', value };
      const snapshot: SessionSnapshot = { format: SESSION_FORMAT, pending: Object.fromEntries(pending), results: Object.fromEntries(results) };
      return { kind: 'suspended', outcome: suspend({ snapshot: JSON.stringify(snapshot) }) };
    },
    get pendingToolCalls() {
      return pendingCount();
    },
  };
}
