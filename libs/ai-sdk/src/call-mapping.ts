/**
 * Maps between the AI SDK's model call (`LanguageModelV3CallOptions`, the specification version
 * of `ai@6`) and the runtime's `ModelRequest`, and from a runtime `ModelResponse` back to a
 * generate result. Everything that decides the answer (prompt, tools, sampling settings, tool
 * choice, response format) goes into the request, so it is part of the replay-cache key; the
 * abort signal and headers do not. Pure; no side effects on import.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3FinishReason, LanguageModelV3GenerateResult, LanguageModelV3Usage } from '@ai-sdk/provider';
import type { JsonValue, ModelRequest, ModelResponse, StopReason } from '#core';
import { readEnvelope } from './model-envelope.js';

/** A value made JSON-safe: bytes become base64, URLs strings, `undefined` fields are dropped. */
function json(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof URL) return value.href;
  if (Array.isArray(value)) return value.map(json);
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined && typeof v !== 'function')
        .map(([k, v]) => [k, json(v)]),
    );
  }
  return null;
}

/** The runtime request for an AI SDK call to `model`. */
export function toModelRequest(model: string, options: LanguageModelV3CallOptions): ModelRequest {
  const params = json({
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
    topP: options.topP,
    topK: options.topK,
    presencePenalty: options.presencePenalty,
    frequencyPenalty: options.frequencyPenalty,
    stopSequences: options.stopSequences,
    seed: options.seed,
    responseFormat: options.responseFormat,
    toolChoice: options.toolChoice,
    providerOptions: options.providerOptions,
  }) as { [name: string]: JsonValue };
  return {
    model,
    messages: json(options.prompt) as JsonValue[],
    ...(options.tools !== undefined && options.tools.length > 0 ? { tools: json(options.tools) } : {}),
    ...(Object.keys(params).length > 0 ? { params } : {}),
  };
}

const FINISH: Readonly<Record<StopReason, LanguageModelV3FinishReason['unified']>> = {
  end: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  refusal: 'content-filter',
  other: 'other',
};

/**
 * The generate result of a runtime answer: an AI SDK envelope is returned as it was recorded;
 * any other provider's answer is rebuilt from its decoded text, tool calls, stop reason and usage.
 */
export function toGenerateResult(response: ModelResponse): LanguageModelV3GenerateResult {
  const envelope = readEnvelope(response.body);
  if (envelope !== undefined) return { content: [...envelope.content], finishReason: envelope.finishReason, usage: envelope.usage, warnings: [] };
  const content: LanguageModelV3Content[] = [
    ...(response.text.length > 0 ? [{ type: 'text' as const, text: response.text }] : []),
    ...response.toolCalls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.arguments) })),
  ];
  const unified = response.stopReason !== undefined ? FINISH[response.stopReason] : response.toolCalls.length > 0 ? 'tool-calls' : 'stop';
  const usage: LanguageModelV3Usage = {
    inputTokens: { total: response.usage?.promptTokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: response.usage?.completionTokens, text: undefined, reasoning: undefined },
  };
  return { content, finishReason: { unified, raw: response.stopReason }, usage, warnings: [] };
}
