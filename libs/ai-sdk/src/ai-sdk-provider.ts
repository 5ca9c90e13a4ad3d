/**
 * A runtime model provider backed by AI SDK language models: the deployment side of the adapter.
 * `ctx.callModel` requests made by {@link agentModel} carry the AI SDK prompt, tools and settings;
 * this provider hands them to the AI SDK model named by the request (any `@ai-sdk/*` provider, or
 * the AI SDK's `MockLanguageModelV3` in tests) and returns its answer as an envelope the replay
 * cache stores. It holds no cache and no retry of its own (the runtime and the model do).
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { ProviderRequestError, type DecodedResponse, type ModelProvider, type ModelRequest, type ProviderCallOptions, type StopReason, type ToolCall } from '#core';
import { readEnvelope, writeEnvelope } from './model-envelope.js';

const STOP: Readonly<Record<string, StopReason>> = { stop: 'end', 'tool-calls': 'tool_use', length: 'max_tokens', 'content-filter': 'refusal' };

/**
 * @param models the AI SDK model per runtime model name, or a function choosing one (undefined:
 * the request is refused with `ProviderRequestError`, never retried)
 * @example
 * ```ts
 * const provider = aiSdkProvider({ 'support-model': openai('gpt-4o-mini') });
 * ```
 */
export function aiSdkProvider(models: Readonly<Record<string, LanguageModelV3>> | ((model: string) => LanguageModelV3 | undefined)): ModelProvider {
  const pick = typeof models === 'function' ? models : (name: string) => models[name];
  return {
    name: 'ai-sdk',
    async complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
      const model = pick(request.model);
      if (model === undefined) throw new ProviderRequestError(undefined, `no AI SDK model is configured for '${request.model}'`);
      const call = { ...(request.params ?? {}), prompt: request.messages as unknown as LanguageModelV3Prompt, abortSignal: options.signal } as LanguageModelV3CallOptions;
      if (request.tools !== undefined) (call as { tools?: unknown }).tools = request.tools;
      const result = await model.doGenerate(call);
      return writeEnvelope({ content: result.content, finishReason: result.finishReason, usage: result.usage });
    },
    decode(body: Uint8Array): DecodedResponse {
      const envelope = readEnvelope(body);
      if (envelope === undefined) return { text: new TextDecoder().decode(body) };
      const text = envelope.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      const toolCalls: ToolCall[] = envelope.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.toolCallId, name: part.toolName, arguments: JSON.parse(part.input) as ToolCall['arguments'] }] : []));
      const input = envelope.usage.inputTokens.total ?? 0;
      const output = envelope.usage.outputTokens.total ?? 0;
      return { text, toolCalls, stopReason: STOP[envelope.finishReason.unified] ?? 'other', usage: { promptTokens: input, completionTokens: output, totalTokens: input + output } };
    },
  };
}
