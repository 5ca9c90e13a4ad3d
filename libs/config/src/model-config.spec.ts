// The model section, named providers and aliases: what an operator writes and what is refused at load.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load-config.js';

describe('model providers and aliases', () => {
  it('reads named providers with their limits, and aliases that point at them', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        providers: { claude: { provider: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY', limits: { maxConcurrency: 4, requestsPerMinute: 50, breaker: {} } } },
        models: { fast: { provider: 'claude', model: 'claude-haiku-4-5' }, local: { provider: 'default', model: 'fake-1' } },
      },
    });
    expect(config.providers.claude).toMatchObject({ provider: 'anthropic', baseUrl: 'https://api.anthropic.com', maxTokens: 1_024, limits: { maxConcurrency: 4, requestsPerMinute: 50, breaker: { failureThreshold: 5, openMs: 30_000 } } });
    expect(config.models.fast).toEqual({ provider: 'claude', model: 'claude-haiku-4-5' });
  });

  it('refuses an alias that names no configured provider', () => {
    expect(() => loadConfig({ env: {}, overrides: { models: { fast: { provider: 'claude', model: 'x' } } } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: {}, overrides: { models: { fast: { provider: 'claude', model: 'x' } } } })).toThrow(/no provider named 'claude'/);
  });
});
