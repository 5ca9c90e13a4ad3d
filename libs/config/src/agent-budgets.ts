import type { AgentDefinition } from '#core';
import type { RuntimeConfig } from './runtime-config.js';

/**
 * The agents with the configuration's `budgets` laid over what each definition sets (a configured
 * field wins; the others are kept). Read once at start-up: changing a budget needs a restart, and
 * every activator of a deployment must be given the same configuration, or two owners of one key
 * over its lifetime could decide its calls differently.
 */
export function withConfiguredBudgets(agents: ReadonlyMap<string, AgentDefinition>, config: Pick<RuntimeConfig, 'budgets'>): Map<string, AgentDefinition> {
  const out = new Map<string, AgentDefinition>();
  for (const [name, agent] of agents) {
    const configured = config.budgets[name];
    out.set(name, configured === undefined ? agent : { ...agent, budget: { ...agent.budget, ...configured } });
  }
  return out;
}
