/**
 * The bytes an AI SDK model's answer is kept as in the replay cache: one JSON object holding the
 * generate result's content, finish reason and usage (the JSON-safe parts of the AI SDK's
 * `LanguageModelV3GenerateResult`). What {@link aiSdkProvider} writes and {@link agentModel} reads
 * back, so a resumed or replayed activation gets a byte-identical answer with no provider call.
 * Pure; no side effects on import.
 */
import type { LanguageModelV3Content, LanguageModelV3FinishReason, LanguageModelV3Usage } from '@ai-sdk/provider';

/** The `format` tag of an envelope; a body without it came from another provider (OpenAI-compatible, Anthropic, fake). */
export const AI_SDK_ENVELOPE_FORMAT = 'nats-agents/ai-sdk-v3';

export interface ModelEnvelope {
  readonly format: typeof AI_SDK_ENVELOPE_FORMAT;
  readonly content: readonly LanguageModelV3Content[];
  readonly finishReason: LanguageModelV3FinishReason;
  readonly usage: LanguageModelV3Usage;
}

const utf8 = new TextDecoder();

/** The envelope in `body`, or undefined when `body` is not one. */
export function readEnvelope(body: Uint8Array): ModelEnvelope | undefined {
  try {
    const value = JSON.parse(utf8.decode(body)) as Partial<ModelEnvelope> | null;
    return value?.format === AI_SDK_ENVELOPE_FORMAT && Array.isArray(value.content) ? (value as ModelEnvelope) : undefined;
  } catch {
    return undefined;
  }
}

/** The envelope's bytes (JSON; `undefined` values dropped, so equal answers give equal bytes). */
export function writeEnvelope(envelope: Omit<ModelEnvelope, 'format'>): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ format: AI_SDK_ENVELOPE_FORMAT, content: envelope.content, finishReason: envelope.finishReason, usage: envelope.usage }));
}
