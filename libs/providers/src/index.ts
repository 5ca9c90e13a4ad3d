/**
 * @packageDocumentation
 * Model providers: the transports behind the runtime's `ModelProvider` port. The runtime calls
 * `complete` only on a replay-cache miss and stores the returned raw bytes verbatim; retries of
 * retryable failures live inside each provider. Ships the deterministic `FakeLlm` (default in
 * tests and the demo), an OpenAI-compatible chat-completions client and the Anthropic Messages
 * API client; a router that maps model aliases to providers; per-provider protection (concurrency,
 * rate limits, circuit breaker). No import side effects.
 */

// factory
export { createModelProvider } from './model-provider-factory.js';
export type {
  ModelProviderConfig,
  FakeProviderConfig,
  OpenAiCompatibleProviderConfig,
  AnthropicProviderConfig,
  ModelProviderFactoryDeps,
} from './model-provider-factory.js';
export { createModelRouter } from './model-provider-factory.js';

// routing and protection
export { ModelRouter } from './model-router.js';
export type { ModelRoute, ModelRouterOptions } from './model-router.js';
export { ProtectedProvider, ProviderUnavailable } from './protected-provider.js';
export type { ProviderLimits, ProtectedProviderOptions, CircuitState } from './protected-provider.js';

// Anthropic Messages API
export { AnthropicMessagesProvider, ANTHROPIC_MESSAGES_DEFAULTS } from './anthropic-messages-provider.js';
export type { AnthropicMessagesProviderOptions } from './anthropic-messages-provider.js';
export { decodeAnthropicMessage } from './anthropic-messages-decode.js';

// OpenAI-compatible chat completions
export { OpenAiCompatibleProvider, OPENAI_COMPATIBLE_DEFAULTS } from './openai-compatible-provider.js';
export type { OpenAiCompatibleProviderOptions } from './openai-compatible-provider.js';
export { decodeOpenAiCompatible } from './openai-compatible-decode.js';
export { decodeRecordedResponse } from './recorded-response-decode.js';
export { chatCompletionJson } from './chat-completion-json.js';
export type { ChatCompletionJsonInput } from './chat-completion-json.js';
export { fullJitterBackoffMs } from './full-jitter-backoff.js';
export { parseRetryAfterMs } from './retry-after.js';

// FakeLlm
export { FakeLlm } from './fake-llm.js';
export type { FakeLlmOptions, FakeLlmRule } from './fake-llm.js';
export { matchAny, matchModel, matchContains, matchWhere } from './fake-llm-matchers.js';
export type { FakeLlmMatcher } from './fake-llm-matchers.js';
export { respondWith, respondWithChat, raiseError, failThenSucceed } from './fake-llm-behaviours.js';
export type {
  FakeBody,
  FakeLlmBehaviour,
  FakeLlmBehaviourContext,
  LatencyOptions,
  RespondWithChatOptions,
  FailThenSucceedOptions,
} from './fake-llm-behaviours.js';

// credentials, timing, errors
export { Secret } from './secret.js';
export { loadApiKey } from './api-key.js';
export type { ApiKeySource, EnvMap } from './api-key.js';
export { abortableDelay } from './abortable-delay.js';
export type { Delay } from './abortable-delay.js';
export { ProviderConfigError, ApiKeyError, UnmatchedRequestError } from './errors.js';
