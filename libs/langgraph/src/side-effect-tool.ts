/**
 * A LangChain tool whose call becomes an intent the effector runs once per intent id. Inside the
 * graph it is an `interrupt()`: the graph checkpoints and stops, `langGraphAgent` stages the intent
 * and suspends the activation; the tool's result resumes the graph (`Command({ resume })`), the
 * tool node re-runs from its start and the interrupt returns the result.
 */
import { tool } from '@langchain/core/tools';
import { interrupt } from '@langchain/langgraph';
import type { z } from 'zod';

/** The marker an intent interrupt carries (every other interrupt is a human approval request). */
export const INTENT_INTERRUPT = 'nats-agents/intent';

/** The value of an intent interrupt. */
export interface IntentInterrupt {
  readonly kind: typeof INTENT_INTERRUPT;
  readonly tool: string;
  readonly args: unknown;
}

/** True for the value of an interrupt raised by {@link sideEffectTool}. */
export function isIntentInterrupt(value: unknown): value is IntentInterrupt {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === INTENT_INTERRUPT;
}

/** What the tool answers the model with when the effector reports a failure, expiry or refusal. */
export interface ToolFailure {
  readonly error: string;
}

/**
 * @param name the effector's tool (registered there with `sideEffect: true`)
 * @example
 * ```ts
 * const refund = sideEffectTool('refund', { description: 'Refund an order', schema: z.object({ orderId: z.string(), amount: z.number() }) });
 * ```
 */
export function sideEffectTool<S extends z.ZodObject>(name: string, options: { readonly description: string; readonly schema: S }) {
  return tool((input: z.infer<S>) => JSON.stringify(interrupt<IntentInterrupt, unknown>({ kind: INTENT_INTERRUPT, tool: name, args: input })), {
    name,
    description: options.description,
    schema: options.schema,
  });
}
