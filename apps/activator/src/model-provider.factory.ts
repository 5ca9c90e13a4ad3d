import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ModelProvider } from '#core';
import type { RuntimeConfig } from '#config';
import { createModelRouter, type FakeLlmRule, type ModelProviderConfig } from '#providers';

/**
 * Builds the activator's model provider from config: the `model` section's provider, the named
 * `providers`, and the `models` aliases that point at them, as one router; each provider is
 * wrapped in its own `limits` (concurrency, rates, breaker) for this process. A fake provider
 * takes its script from a module exporting `rules` (an ordered FakeLlm rule list); without one it
 * has no rules and every model call fails closed with `UnmatchedRequestError`.
 */
export async function buildModelProvider(config: Pick<RuntimeConfig, 'model' | 'providers' | 'models'>, env: NodeJS.ProcessEnv, cwd: string): Promise<ModelProvider> {
  const providers: Record<string, ModelProviderConfig> = {};
  for (const [name, provider] of Object.entries(config.providers)) providers[name] = await withFakeRules(provider, cwd);
  return createModelRouter({ default: await withFakeRules(config.model, cwd), providers, models: config.models }, { env });
}

async function withFakeRules(config: RuntimeConfig['model'], cwd: string): Promise<ModelProviderConfig> {
  if (config.provider !== 'fake') return config;
  let rules: readonly FakeLlmRule[] = [];
  if (config.script !== undefined) {
    const path = isAbsolute(config.script) ? config.script : resolve(cwd, config.script);
    const module = (await import(pathToFileURL(path).href)) as { rules?: readonly FakeLlmRule[]; default?: { rules?: readonly FakeLlmRule[] } };
    rules = module.rules ?? module.default?.rules ?? [];
    if (rules.length === 0) throw new Error(`fake model script ${path} exports no rules`);
  }
  return { provider: 'fake', rules, ...(config.limits === undefined ? {} : { limits: config.limits }) };
}
