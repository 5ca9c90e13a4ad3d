import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isToolDefinition, TOOL_NAME_PATTERN, type AnyToolDefinition } from '#core';

/** A tool module could not be loaded or does not export valid tools. The effector exits on it. */
export class ToolModuleError extends Error {
  override readonly name = 'ToolModuleError';
}

/**
 * Imports the operator's tool modules and collects every exported tool (the default export, or
 * any named export shaped `{ name, sideEffect, handler }`), mirroring `loadAgentModules`.
 * Relative paths resolve against `cwd`. Two tools with one name, an invalid name, or a module
 * without tools are errors: the effector must not start with a tool set that differs from what
 * the operator wrote, because an intent for a missing tool is answered `REJECTED` for good.
 *
 * Read-only tools (`sideEffect: false`) are kept, so a module shared with the agents loads as is;
 * the effector answers an intent naming one with `REJECTED` (it signals a bug, not an effect).
 */
export async function loadToolModules(paths: readonly string[], cwd: string): Promise<Map<string, AnyToolDefinition>> {
  const tools = new Map<string, AnyToolDefinition>();
  for (const path of paths) {
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
    } catch (error) {
      throw new ToolModuleError(`cannot import tool module ${absolute}: ${(error as Error).message}`, { cause: error });
    }
    let found = 0;
    for (const [exportName, value] of Object.entries(module)) {
      if (!isToolDefinition(value)) continue;
      if (exportName !== 'default' && module.default === value) continue;
      if (!TOOL_NAME_PATTERN.test(value.name)) {
        throw new ToolModuleError(`tool '${value.name}' in ${absolute} has an invalid name (it must match ${TOOL_NAME_PATTERN.source})`);
      }
      const existing = tools.get(value.name);
      if (existing !== undefined && existing !== value) throw new ToolModuleError(`two tools are named '${value.name}' (second in ${absolute})`);
      tools.set(value.name, value);
      found += 1;
    }
    if (found === 0) throw new ToolModuleError(`tool module ${absolute} exports no tool (an object with a name, sideEffect and a handler)`);
  }
  return tools;
}
