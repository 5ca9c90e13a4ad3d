// The factory is what services call at startup, so the config-to-provider mapping and its startup failures are pinned here.
import { describe, expect, it } from 'vitest';
import { createModelProvider } from './model-provider-factory.js';
import { ApiKeyError, ProviderConfigError, UnmatchedRequestError } from './errors.js';
import { respondWith } from './fake-llm-behaviours.js';
import { matchAny } from './fake-llm-matchers.js';
import { FakeLlm } from './fake-llm.js';
import { OpenAiCompatibleProvider } from './openai-compatible-provider.js';

const live = (): { signal: AbortSignal } => ({ signal: new AbortController().signal });
const request = { model: 'm', messages: [] };

describe('createModelProvider', () => {
  it('builds a FakeLlm that answers with the configured rules', async () => {
    const provider = createModelProvider({ provider: 'fake', rules: [[matchAny(), respondWith('scripted')]] }, { env: {} });
    expect(provider).toBeInstanceOf(FakeLlm);
    expect(new TextDecoder().decode(await provider.complete(request, live()))).toBe('scripted');
  });

  it('builds a FakeLlm without rules that fails closed', async () => {
    const provider = createModelProvider({ provider: 'fake' }, { env: {} });
    await expect(provider.complete(request, live())).rejects.toThrow(UnmatchedRequestError);
  });

  it('builds an OpenAI-compatible provider with the key from the passed environment, never rendering it', () => {
    const provider = createModelProvider(
      { provider: 'openai-compatible', baseUrl: 'https://llm.example.test/v1', apiKeyEnv: 'LLM_KEY', timeoutMs: 5_000, maxAttempts: 2 },
      { env: { LLM_KEY: 'sk-factory-secret' } },
    );
    expect(provider).toBeInstanceOf(OpenAiCompatibleProvider);
    expect(provider.name).toBe('openai-compatible');
    expect((provider as OpenAiCompatibleProvider).endpoint).toBe('https://llm.example.test/v1/chat/completions');
    expect(JSON.stringify(provider)).not.toContain('sk-factory-secret');
  });

  it('fails at startup when the configured key is missing or the URL is malformed', () => {
    expect(() =>
      createModelProvider({ provider: 'openai-compatible', baseUrl: 'https://llm.example.test/v1', apiKeyEnv: 'LLM_KEY' }, { env: {} }),
    ).toThrow(ApiKeyError);
    expect(() => createModelProvider({ provider: 'openai-compatible', baseUrl: '::nope' }, { env: {} })).toThrow(ProviderConfigError);
  });
});
