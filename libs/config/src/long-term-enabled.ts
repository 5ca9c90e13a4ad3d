import type { RuntimeConfig } from './runtime-config.js';

/**
 * Whether an activator offers `ctx.memory.longterm` (through the memory-store service): the
 * explicit `longterm.enabled`, else whether `longterm.uri` is set. Read once at start-up; changing
 * it needs a restart, and a key whose agent saved long-term memory keeps its rows either way.
 */
export function longTermEnabled(config: Pick<RuntimeConfig, 'longterm'>): boolean {
  return config.longterm.enabled ?? config.longterm.uri !== undefined;
}
