/**
 * A LangChain chat model whose every call is the activation's `ctx.callModel`: the replay cache,
 * budgets and provider protection apply to the graph's model calls. Messages and bound tools are
 * sent in the OpenAI chat shape (role, content, tool calls), without LangChain's per-run message
 * ids, so the same conversation is the same request — and, in the same activation scope, a cache hit.
 */
import { BaseChatModel, type BaseChatModelCallOptions, type BaseChatModelParams, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import type { JsonValue } from '#core';
import { currentActivation } from './activation-scope.js';

/** Call options of {@link AgentChatModel}: the tools `bindTools` attached. */
export interface AgentChatModelCallOptions extends BaseChatModelCallOptions {
  readonly tools?: JsonValue[];
}

/** What the model is. */
export interface AgentChatModelFields extends BaseChatModelParams {
  /** The runtime model name (an alias of the deployment's model config). */
  readonly model: string;
  /** Sampling parameters sent with every call (part of the replay-cache key). */
  readonly params?: { readonly [name: string]: JsonValue };
}

const ROLES: Readonly<Record<string, string>> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool' };

/** A message as the request carries it. */
function messageJson(message: BaseMessage): JsonValue {
  const type = message.getType();
  const out: { [name: string]: JsonValue } = { role: ROLES[type] ?? type, content: message.content as JsonValue };
  if (AIMessage.isInstance(message) && message.tool_calls !== undefined && message.tool_calls.length > 0) {
    out.tool_calls = message.tool_calls.map((call) => ({ id: call.id ?? '', type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }));
  }
  const toolCallId = (message as { tool_call_id?: string }).tool_call_id;
  if (type === 'tool' && toolCallId !== undefined) out.tool_call_id = toolCallId;
  return out;
}

/**
 * `new AgentChatModel({ model: 'triage-model' })`, usable in any node of a graph run by
 * `langGraphAgent` (it throws `OutsideActivation` elsewhere). `bindTools` works as with any chat
 * model; the answer's tool calls come from the provider's typed tool calls.
 *
 * Replay and crashes: a node that re-runs (an interrupted node on resume, a retried attempt) asks
 * the same question and is answered from the replay cache or the attempt memo, with zero provider
 * calls.
 */
export class AgentChatModel extends BaseChatModel<AgentChatModelCallOptions> {
  readonly model: string;
  readonly params: { readonly [name: string]: JsonValue } | undefined;

  constructor(fields: AgentChatModelFields) {
    super(fields);
    this.model = fields.model;
    this.params = fields.params;
  }

  _llmType(): string {
    return 'nats-agents';
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<AgentChatModelCallOptions>): ReturnType<BaseChatModel<AgentChatModelCallOptions>['withConfig']> {
    return this.withConfig({ ...kwargs, tools: tools.map((t) => convertToOpenAITool(t) as unknown as JsonValue) });
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const { ctx } = currentActivation();
    const response = await ctx.callModel({
      model: this.model,
      messages: messages.map(messageJson),
      ...(options.tools !== undefined && options.tools.length > 0 ? { tools: options.tools } : {}),
      ...(this.params !== undefined ? { params: this.params } : {}),
    });
    const message = new AIMessage({
      content: response.text,
      tool_calls: response.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.arguments as Record<string, unknown>, type: 'tool_call' as const })),
    });
    return { generations: [{ text: response.text, message }] };
  }
}
