import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ModelProvider } from '#core';
import type { RuntimeConfig } from '#config';
import { createModelProvider, type FakeLlmRule } from '#providers';

/**
 * Builds the activator's model provider from config. The fake provider takes its script from a
 * module exporting `rules` (an ordered FakeLlm rule list); without one it has no rules and every
 * model call fails closed with `UnmatchedRequestError`.
 */
export async function buildModelProvider(config: RuntimeConfig['model'], env: NodeJS.ProcessEnv, cwd: string): Promise<ModelProvider> {
  if (config.provider === 'fake') {
    let rules: readonly FakeLlmRule[] = [];
    if (config.script !== undefined) {
      const path = isAbsolute(config.script) ? config.script : resolve(cwd, config.script);
      const module = (await import(pathToFileURL(path).href)) as { rules?: readonly FakeLlmRule[]; default?: { rules?: readonly FakeLlmRule[] } };
      rules = module.rules ?? module.default?.rules ?? [];
      if (rules.length === 0) throw new Error(`fake model script ${path} exports no rules`);
    }
    return createModelProvider({ provider: 'fake', rules }, { env });
  }
  return createModelProvider(config, { env });
}
