/**
 * A compiled LangGraph.js graph as a runtime agent. Each activation runs the graph on one thread
 * per entity key (`thread_id` = hex of the key), with its checkpoints in the key's working memory
 * ({@link WorkingMemoryCheckpointer}): they commit atomically with the activation.
 *
 * - An event starts a run with `input(ctx)`.
 * - A graph that stops at an `interrupt()` suspends the activation: an interrupt of
 *   {@link sideEffectTool} stages the tool's intent (`ctx.act`), any other interrupt is a human
 *   approval request (`ctx.requestApproval(value)`).
 * - The answer resumes the graph with `Command({ resume })`: the tool's JSON result (or
 *   `{ error }`), or the decision `{ approved, approver, reason }` (`{ approved: false, timedOut: true }`
 *   when the suspension deadline passed). The interrupted node re-runs from its start, as LangGraph
 *   specifies; its model calls are then replay-cache hits.
 * - A run that ends completes the activation with `output(state)`.
 *
 * Interrupts are handled one at a time (a node raising several resumes once per answer).
 * Redelivery and crashes: nothing of an attempt survives unless it commits (checkpoints included),
 * and a retried attempt stages byte-identical intents (ids derive from the key, seq and step) and
 * writes byte-identical checkpoints (their ids derive from the key's checkpoint history, decision
 * 0060), so an offline replay of the key reproduces its working memory exactly.
 */
import { Command } from '@langchain/langgraph';
import type { RunnableConfig } from '@langchain/core/runnables';
import { entityKeyHex, type AgentDefinition, type OutputValue } from '#core';
import { complete, suspend, type ActivationContext } from '#sdk';
import { withActivation } from './activation-scope.js';
import { installDerivedCheckpointIds } from './derived-checkpoint-ids.js';
import { isIntentInterrupt } from './side-effect-tool.js';
import { CHECKPOINTS_MEMORY_KEY, loadTables, WorkingMemoryCheckpointer } from './working-memory-checkpointer.js';

/** A compiled graph (compiled with a {@link WorkingMemoryCheckpointer}). */
export interface RunnableGraph<S> {
  invoke(input: unknown, config: RunnableConfig): Promise<S>;
}

/** What {@link langGraphAgent} needs. */
export interface LangGraphAgentOptions<S> extends Omit<AgentDefinition, 'handler'> {
  readonly graph: RunnableGraph<S>;
  /** The graph input for an event. */
  readonly input: (ctx: ActivationContext) => unknown;
  /** The activation's output when a run ends. */
  readonly output: (state: S) => OutputValue;
}

const SNAPSHOT_FORMAT = 'nats-agents/langgraph';

interface Carried {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly intentId: string;
  readonly interruptId: string;
}

/** The value `interrupt()` returns on resume, from what resumed the activation. */
function resumeValue(ctx: ActivationContext): unknown {
  const approval = ctx.resumeApproval;
  if (approval !== undefined) return { approved: approval.approved, approver: approval.approver, reason: approval.reason };
  const result = ctx.resumeResult;
  if (result !== undefined) return result.status === 'ok' ? result.json<unknown>() : { error: result.errorMessage || result.status };
  return { approved: false, timedOut: true };
}

/**
 * @example
 * ```ts
 * export default langGraphAgent({
 *   name: 'triage',
 *   graph: builder.compile({ checkpointer: new WorkingMemoryCheckpointer() }),
 *   input: (ctx) => ({ messages: [{ role: 'user', content: ctx.eventText() }] }),
 *   output: (state) => ({ reply: state.messages.at(-1)?.content }),
 * });
 * ```
 */
export function langGraphAgent<S>(options: LangGraphAgentOptions<S>): AgentDefinition {
  const { graph, input, output, ...definition } = options;
  // Started when the agent module loads, so no activation waits for the module it imports.
  const derivedIds = installDerivedCheckpointIds((checkpointer) => checkpointer instanceof WorkingMemoryCheckpointer);
  return {
    ...definition,
    async handler(ctx) {
      await derivedIds;
      const tables = loadTables(ctx.memory.getText(CHECKPOINTS_MEMORY_KEY));
      return withActivation({ ctx, tables }, async () => {
        const config: RunnableConfig = { configurable: { thread_id: entityKeyHex(ctx.key) } };
        const carried = ctx.isResume ? ctx.snapshotJson<Partial<Carried>>() : undefined;
        const state = carried?.format === SNAPSHOT_FORMAT ? await graph.invoke(new Command({ resume: resumeValue(ctx) }), config) : await graph.invoke(input(ctx), config);
        const interrupts = (state as { __interrupt__?: readonly { id?: string; value?: unknown }[] }).__interrupt__ ?? [];
        const first = interrupts[0];
        if (first === undefined) return complete(output(state));
        const value = first.value;
        const intentId = isIntentInterrupt(value) ? ctx.act(value.tool, value.args as never) : ctx.requestApproval((value ?? null) as never);
        const snapshot: Carried = { format: SNAPSHOT_FORMAT, intentId, interruptId: first.id ?? '' };
        return suspend({ snapshot: JSON.stringify(snapshot) });
      });
    },
  };
}
