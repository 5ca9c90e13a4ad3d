/**
 * Builds an OpenAI chat-completions response body, so scripted responses (FakeLlm, test
 * servers) go through the same decoder as real ones. Deterministic: fixed id and timestamp, and
 * `JSON.stringify` over a fixed key order, so equal inputs give byte-identical bodies.
 */
import type { TokenUsage } from '#core';

/** What goes into a scripted chat completion. */
export interface ChatCompletionJsonInput {
  /** The assistant message content. */
  readonly text: string;
  /** Echoed as the response's `model`. */
  readonly model: string;
  /** Written as `usage.{prompt_tokens, completion_tokens, total_tokens}`; omitted when absent. */
  readonly usage?: TokenUsage;
}

/**
 * A minimal, valid chat-completions body (`id`, `object`, `created: 0`, `model`, one `stop`
 * choice, optional `usage`) as a JSON string. `decodeOpenAiCompatible` reads `text` and `usage`
 * back unchanged.
 */
export function chatCompletionJson(input: ChatCompletionJsonInput): string {
  return JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model: input.model,
    choices: [{ index: 0, message: { role: 'assistant', content: input.text }, finish_reason: 'stop' }],
    ...(input.usage === undefined
      ? {}
      : {
          usage: {
            prompt_tokens: input.usage.promptTokens,
            completion_tokens: input.usage.completionTokens,
            total_tokens: input.usage.totalTokens,
          },
        }),
  });
}
