import type { AgentDefinition } from '#core';
import type { RuntimeConfig } from './runtime-config.js';

/**
 * The agents with the configuration's `isolation` laid over what each definition sets (a
 * configured value wins). Read once at start-up: changing it needs a restart. Isolation changes
 * where a handler runs, never what an attempt commits, so activators of one deployment may differ
 * during a rolling change without two owners of a key deciding it differently.
 */
export function withConfiguredIsolation(agents: ReadonlyMap<string, AgentDefinition>, config: Pick<RuntimeConfig, 'isolation'>): Map<string, AgentDefinition> {
  const out = new Map<string, AgentDefinition>();
  for (const [name, agent] of agents) {
    const configured = config.isolation[name];
    out.set(name, configured === undefined || configured === agent.isolation ? agent : { ...agent, isolation: configured });
  }
  return out;
}
