import { spawnSync } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AGENT_NAME_PATTERN, isAgentDefinition, type AgentDefinition } from '#core';

/** An agent module could not be loaded or does not export valid agents. Services exit on it. */
export class AgentModuleError extends Error {
  override readonly name = 'AgentModuleError';
}

/** What an agent module must export, as the one line a failed start prints. */
const EXPECTED =
  "expected a default export of an agent or an array of agents, or named agent exports (objects with a name and a handler function, as defineAgent returns)";

/** The agents an export holds: an agent, or an array of agents (anything else holds none). */
function agentsOf(value: unknown): AgentDefinition[] {
  if (isAgentDefinition(value)) return [value];
  if (Array.isArray(value) && value.length > 0 && value.every(isAgentDefinition)) return value as AgentDefinition[];
  return [];
}

/** The first line of a load failure (a syntax error, a missing package), without the stack. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/**
 * The line of a syntax error in the module file itself, from `node --check` (a dynamic import's
 * SyntaxError carries no location on Node 20). Undefined when the file itself parses (the error is
 * elsewhere: in something it imports, a missing file) or the check cannot run. Only run after a
 * load failed, so a healthy start spawns nothing.
 */
function syntaxErrorLine(absolute: string): number | undefined {
  const check = spawnSync(process.execPath, ['--check', absolute], { encoding: 'utf8', timeout: 15_000 });
  if (check.status === 0 || typeof check.stderr !== 'string') return undefined;
  const first = check.stderr.split('\n')[0] ?? '';
  const match = /:(\d+)$/.exec(first);
  return first.startsWith(absolute) && match !== null ? Number(match[1]) : undefined;
}

/**
 * Imports the operator's agent modules and collects every exported agent: the default export (an
 * agent or an array of agents) and any named export shaped `{ name, handler }` (or an array of
 * them). Relative paths resolve against `cwd`; a module may live anywhere (outside `/app` too) and
 * import `@nats-agents/sdk` from its own `node_modules` or the runtime's. Two agents with one name,
 * an invalid name, a `shards` count that is not a positive integer, an unknown `isolation`, a module that fails to load or
 * a module without agents are errors whose one-line message names the file and what was expected:
 * a service must not start with an agent set that differs from what the operator wrote.
 */
export async function loadAgentModules(paths: readonly string[], cwd: string): Promise<Map<string, AgentDefinition>> {
  const agents = new Map<string, AgentDefinition>();
  for (const path of paths) {
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
    } catch (error) {
      const where = syntaxErrorLine(absolute);
      throw new AgentModuleError(`agent module ${absolute}${where !== undefined ? `:${where}` : ''} failed to load: ${firstLine(error)}`, { cause: error });
    }
    let found = 0;
    for (const [exportName, exported] of Object.entries(module)) {
      if (exportName !== 'default' && module.default === exported) continue;
      for (const value of agentsOf(exported)) {
        if (!AGENT_NAME_PATTERN.test(value.name)) {
          throw new AgentModuleError(`agent '${value.name}' in ${absolute} has an invalid name (it must match ${AGENT_NAME_PATTERN.source})`);
        }
        if (value.shards !== undefined && !(Number.isSafeInteger(value.shards) && value.shards >= 1)) {
          throw new AgentModuleError(`agent '${value.name}' in ${absolute} has shards = ${String(value.shards)}; it must be a positive integer`);
        }
        if (value.isolation !== undefined && value.isolation !== 'event-loop' && value.isolation !== 'worker') {
          throw new AgentModuleError(`agent '${value.name}' in ${absolute} has isolation = ${String(value.isolation)}; it must be 'event-loop' or 'worker'`);
        }
        const existing = agents.get(value.name);
        if (existing !== undefined && existing !== value) throw new AgentModuleError(`two agents are named '${value.name}' (second in ${absolute})`);
        agents.set(value.name, value);
        found += 1;
      }
    }
    if (found === 0) {
      const exportsList = Object.keys(module).length === 0 ? 'nothing' : Object.keys(module).sort().map((name) => `'${name}'`).join(', ');
      throw new AgentModuleError(`agent module ${absolute} exports no agent (it exports ${exportsList}): ${EXPECTED}`);
    }
  }
  return agents;
}

/**
 * Loads the configured agent modules once before a service builds its application, so a bad
 * module stops the start with its one-line message instead of a framework stack trace. Returns the
 * message to print, or `undefined` when every module loaded.
 */
export async function agentModulesProblem(paths: readonly string[], cwd: string): Promise<string | undefined> {
  try {
    await loadAgentModules(paths, cwd);
    return undefined;
  } catch (error) {
    if (error instanceof AgentModuleError) return error.message;
    throw error;
  }
}
