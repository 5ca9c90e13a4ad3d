/**
 * Turns a validated provider config into a {@link ModelProvider}: the one place services pick
 * an implementation. Credentials are sourced here, once, at startup, from the environment the
 * service passes in (this file never reads `process.env`).
 */
import type { ModelProvider } from '#core';
import { AnthropicMessagesProvider } from './anthropic-messages-provider.js';
import { loadApiKey } from './api-key.js';
import type { EnvMap } from './api-key.js';
import { ApiKeyError } from './errors.js';
import { FakeLlm } from './fake-llm.js';
import type { FakeLlmRule } from './fake-llm.js';
import { ModelRouter, type ModelRoute } from './model-router.js';
import { OpenAiCompatibleProvider } from './openai-compatible-provider.js';
import { ProtectedProvider, type ProviderLimits } from './protected-provider.js';

/** The scripted {@link FakeLlm}; with no rules every call fails with `UnmatchedRequestError`. */
export interface FakeProviderConfig {
  readonly provider: 'fake';
  readonly rules?: readonly FakeLlmRule[];
  /** Protection of this provider in this process (see {@link ProtectedProvider}). */
  readonly limits?: ProviderLimits;
}

/** An {@link AnthropicMessagesProvider}; the key comes from exactly one of `apiKeyEnv` / `apiKeyFile`. */
export interface AnthropicProviderConfig {
  readonly provider: 'anthropic';
  /** API root without `/v1` (default `https://api.anthropic.com`). */
  readonly baseUrl?: string;
  readonly apiKeyEnv?: string;
  readonly apiKeyFile?: string;
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
  /** `max_tokens` when a request names none. */
  readonly maxTokens?: number;
  readonly limits?: ProviderLimits;
}

/** An {@link OpenAiCompatibleProvider}; the key comes from at most one of `apiKeyEnv` / `apiKeyFile`. */
export interface OpenAiCompatibleProviderConfig {
  readonly provider: 'openai-compatible';
  /** API root, e.g. `https://api.openai.com/v1`. */
  readonly baseUrl: string;
  /** Environment variable holding the API key. */
  readonly apiKeyEnv?: string;
  /** File holding the API key (trimmed). */
  readonly apiKeyFile?: string;
  /** Per-attempt timeout in ms (default 60 000). */
  readonly timeoutMs?: number;
  /** Attempts per call, the first included (default 4). */
  readonly maxAttempts?: number;
  readonly limits?: ProviderLimits;
}

/**
 * A model provider configuration, discriminated by `provider`. Shaped so the validated
 * `model` section of the runtime config (`#config`'s `ModelConfigSchema`) can be passed as is;
 * for `fake`, the service loads the rules (e.g. from the configured script module) and adds them.
 */
export type ModelProviderConfig = FakeProviderConfig | OpenAiCompatibleProviderConfig | AnthropicProviderConfig;

/** What the factory needs from its host. */
export interface ModelProviderFactoryDeps {
  /** The environment to read `apiKeyEnv` from; services pass `process.env`. */
  readonly env: EnvMap;
}

/**
 * Builds the provider `config` describes.
 *
 * @throws `ApiKeyError` when the configured key cannot be sourced and `ProviderConfigError` for
 *   a malformed base URL or out-of-range numbers — both at startup, before any request.
 *
 * @example
 * ```ts
 * const provider = createModelProvider(config.model, { env: process.env });
 * ```
 */
export function createModelProvider(config: ModelProviderConfig, deps: ModelProviderFactoryDeps): ModelProvider {
  const provider = bareProvider(config, deps);
  return config.limits === undefined ? provider : new ProtectedProvider(provider, { limits: config.limits });
}

/**
 * Builds the default provider, the named ones and the aliases into one {@link ModelRouter}: what
 * an activator calls. Each provider is protected by its own limits (per process).
 *
 * @throws what {@link createModelProvider} throws, and `ProviderConfigError` for an alias naming
 *   a provider that is not configured.
 */
export function createModelRouter(
  config: { readonly default: ModelProviderConfig; readonly providers?: Readonly<Record<string, ModelProviderConfig>>; readonly models?: Readonly<Record<string, ModelRoute>> },
  deps: ModelProviderFactoryDeps,
): ModelRouter {
  const providers = new Map(Object.entries(config.providers ?? {}).map(([name, c]) => [name, createModelProvider(c, deps)] as const));
  return new ModelRouter({ default: createModelProvider(config.default, deps), providers, aliases: new Map(Object.entries(config.models ?? {})) });
}

function bareProvider(config: ModelProviderConfig, deps: ModelProviderFactoryDeps): ModelProvider {
  switch (config.provider) {
    case 'fake':
      // A service never reads the call record; kept, it would grow with every call (see FakeLlmOptions).
      return new FakeLlm({ rules: config.rules ?? [], recordCalls: false });
    case 'openai-compatible': {
      const apiKey = loadApiKey(config, deps.env);
      return new OpenAiCompatibleProvider({
        baseUrl: config.baseUrl,
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
        ...(config.maxAttempts === undefined ? {} : { maxAttempts: config.maxAttempts }),
      });
    }
    case 'anthropic': {
      const apiKey = loadApiKey(config, deps.env);
      if (apiKey === undefined) throw new ApiKeyError('the anthropic provider needs apiKeyEnv or apiKeyFile', {});
      return new AnthropicMessagesProvider({
        apiKey,
        ...(config.baseUrl === undefined ? {} : { baseUrl: config.baseUrl }),
        ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
        ...(config.maxAttempts === undefined ? {} : { maxAttempts: config.maxAttempts }),
        ...(config.maxTokens === undefined ? {} : { defaultMaxTokens: config.maxTokens }),
      });
    }
    default:
      return assertNever(config);
  }
}

function assertNever(config: never): never {
  throw new TypeError(`unknown model provider: ${JSON.stringify((config as { provider?: unknown }).provider)}`);
}
