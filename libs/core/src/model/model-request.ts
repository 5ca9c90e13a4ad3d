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

/** What a decoder extracts from raw response bytes; pure, so it works identically on cached bytes. */
export interface DecodedResponse {
  readonly text: string;
  readonly usage?: TokenUsage;
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
