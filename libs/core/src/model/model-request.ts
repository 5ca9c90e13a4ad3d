import type { JsonValue } from '../json/canonical-json.js';

/**
 * One model call as the agent states it. Everything here is part of the replay-cache key
 * (with the entity key and seq), so two byte-identical requests inside one activation scope
 * share one cache entry. Credentials and transport settings never appear here.
 */
export interface ModelRequest {
  /** Provider model id, e.g. `gpt-4o-mini` or `fake-1`. */
  readonly model: string;
  /** Chat messages, provider-shaped (for OpenAI-compatible providers: `{ role, content }`). */
  readonly messages: readonly JsonValue[];
  /** Tool schemas offered to the model, provider-shaped. */
  readonly tools?: JsonValue;
  /** Sampling parameters (`temperature`, `max_tokens`, ...). */
  readonly params?: { readonly [name: string]: JsonValue };
}

/** Token usage decoded from a response body, when the provider reports it. */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/**
 * One tool call the model asked for, as a structured value (never JSON text to re-parse). `id` is
 * the provider's call id (echo it back with the tool's result); `arguments` is the parsed JSON the
 * model wrote, or the raw string when the model wrote something that is not JSON (the agent decides
 * what to do with it; the decoder never fails a call over it).
 */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: JsonValue;
}

/**
 * Why the model stopped, normalised across providers: `end` (a natural end or a stop sequence),
 * `tool_use` (it wants tools run), `max_tokens` (cut off by the limit), `refusal`, or `other` (a
 * reason this runtime does not know; the raw one is in the body).
 */
export type StopReason = 'end' | 'tool_use' | 'max_tokens' | 'refusal' | 'other';

/** What a decoder extracts from raw response bytes; pure, so it works identically on cached bytes. */
export interface DecodedResponse {
  readonly text: string;
  readonly usage?: TokenUsage;
  /** The tool calls of the response, in the order the model wrote them (absent: none). */
  readonly toolCalls?: readonly ToolCall[];
  readonly stopReason?: StopReason;
}

/**
 * A model response as the agent sees it. `body` is the provider's raw response, verbatim; it is
 * what the replay cache stores, so a retry returns byte-identical bytes. Deliberately nothing
 * here says whether the cache answered: an agent that branched on it would commit different
 * state on a retry than on the first attempt (cache hits are visible in traces and metrics).
 */
export interface ModelResponse {
  readonly body: Uint8Array;
  /** The decoded assistant text (provider decoder), or the UTF-8 body when there is no decoder. */
  readonly text: string;
  readonly usage?: TokenUsage;
  /** The tool calls the model asked for, structured (empty when none, or when the provider has no decoder). */
  readonly toolCalls: readonly ToolCall[];
  /** Why the model stopped, when the decoder can tell. */
  readonly stopReason?: StopReason;
  /** Lowercase hex sha256 of `body`. */
  readonly digest: string;
}

/** Options of one provider call. */
export interface ProviderCallOptions {
  /** Aborted when the activation times out or is abandoned; providers must stop work. */
  readonly signal: AbortSignal;
}

/**
 * The transport to a model: one attempt policy of its own (retries of retryable failures live
 * inside the provider), no cache (the runtime owns it). Throws `ProviderError` subclasses for
 * retryable failures that exhausted their retries and `ProviderRequestError` for requests that
 * can never succeed.
 */
export interface ModelProvider {
  /** Stable name for traces and metrics (`fake`, `openai-compatible`). */
  readonly name: string;
  complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array>;
  /** Extracts text and usage from a body; absent means the body is UTF-8 text. */
  decode?(body: Uint8Array): DecodedResponse;
}
