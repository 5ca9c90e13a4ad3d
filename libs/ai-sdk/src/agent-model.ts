/**
 * An AI SDK language model (specification `v3`, `ai@6`) that routes every call through the
 * activation's `ctx.callModel`, so the runtime's replay cache, budgets and provider protection
 * apply to agents written with `generateText` / `streamText`.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3StreamPart, LanguageModelV3StreamResult } from '@ai-sdk/provider';
import type { ActivationContext } from '#sdk';
import { toGenerateResult, toModelRequest } from './call-mapping.js';

/**
 * A model for `generateText({ model: agentModel(ctx, 'gpt-4o-mini'), ... })` inside a handler.
 * `modelId` is the runtime model name (an alias of the deployment's `model` config).
 *
 * Replay: each call is a `ctx.callModel`, keyed by the whole request (prompt, tools, settings) and
 * the activation's scope. A resumed activation re-runs `generateText` from the start; every call it
 * already made is answered from the replay cache, byte-identical and with zero provider calls, so
 * the run reaches the same point and goes on from there. A retried or crashed attempt is answered
 * from the attempt memo or the cache the same way. Streaming is served from the same single call
 * (the whole answer, then its parts), so a replayed stream is identical too.
 *
 * @example
 * ```ts
 * const { text } = await generateText({ model: agentModel(ctx, 'support-model'), prompt: ctx.eventText() });
 * ```
 */
export function agentModel(ctx: ActivationContext, modelId: string): LanguageModelV3 {
  const generate = async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => toGenerateResult(await ctx.callModel(toModelRequest(modelId, options)));
  return {
    specificationVersion: 'v3',
    provider: 'nats-agents',
    modelId,
    supportedUrls: {},
    doGenerate: generate,
    async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
      const result = await generate(options);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      result.content.forEach((part, index) => {
        if (part.type === 'text') parts.push({ type: 'text-start', id: `${index}` }, { type: 'text-delta', id: `${index}`, delta: part.text }, { type: 'text-end', id: `${index}` });
        else if (part.type === 'tool-call') parts.push(part);
      });
      parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}
