import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AGENT_NAME_PATTERN, isAgentDefinition, type AgentDefinition } from '#core';

/** An agent module could not be loaded or does not export valid agents. Services exit on it. */
export class AgentModuleError extends Error {
  override readonly name = 'AgentModuleError';
}

/**
 * Imports the operator's agent modules and collects every exported agent (the default export or
 * any named export shaped `{ name, handler }`). Relative paths resolve against `cwd`. Two agents
 * with one name, an invalid name, a `shards` count that is not a positive integer, or a module
 * without agents are errors: a service must not start with an agent set that differs from what
 * the operator wrote.
 */
export async function loadAgentModules(paths: readonly string[], cwd: string): Promise<Map<string, AgentDefinition>> {
  const agents = new Map<string, AgentDefinition>();
  for (const path of paths) {
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
    } catch (error) {
      throw new AgentModuleError(`cannot import agent module ${absolute}: ${(error as Error).message}`, { cause: error });
    }
    let found = 0;
    for (const [exportName, value] of Object.entries(module)) {
      if (!isAgentDefinition(value)) continue;
      if (exportName !== 'default' && module.default === value) continue;
      if (!AGENT_NAME_PATTERN.test(value.name)) {
        throw new AgentModuleError(`agent '${value.name}' in ${absolute} has an invalid name (it must match ${AGENT_NAME_PATTERN.source})`);
      }
      if (value.shards !== undefined && !(Number.isSafeInteger(value.shards) && value.shards >= 1)) {
        throw new AgentModuleError(`agent '${value.name}' in ${absolute} has shards = ${String(value.shards)}; it must be a positive integer`);
      }
      const existing = agents.get(value.name);
      if (existing !== undefined && existing !== value) throw new AgentModuleError(`two agents are named '${value.name}' (second in ${absolute})`);
      agents.set(value.name, value);
      found += 1;
    }
    if (found === 0) throw new AgentModuleError(`agent module ${absolute} exports no agent (an object with a name and a handler)`);
  }
  return agents;
}
