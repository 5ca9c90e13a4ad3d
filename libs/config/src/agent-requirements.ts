import type { AgentDefinition } from '#core';
import { AgentModuleError } from './agent-modules.js';
import { longTermEnabled } from './long-term-enabled.js';
import type { RuntimeConfig } from './runtime-config.js';

/**
 * Refuses an agent set the configuration cannot serve, before any key runs: today an agent whose
 * `memory.onExpire` demotes working memory to a long-term tier the deployment does not have. Such
 * an agent would otherwise start, then fail every idle expiry closed at run time. Throws
 * {@link AgentModuleError} naming every offending agent; the activator exits on it, so a restart
 * with the same configuration is refused the same way (nothing is consumed meanwhile).
 */
export function assertAgentsFitConfig(agents: ReadonlyMap<string, AgentDefinition>, config: Pick<RuntimeConfig, 'longterm'>): void {
  if (longTermEnabled(config)) return;
  const needTier = [...agents.values()].filter((a) => a.memory?.onExpire !== undefined).map((a) => a.name);
  if (needTier.length === 0) return;
  throw new AgentModuleError(
    `agent${needTier.length > 1 ? 's' : ''} ${needTier.map((n) => `'${n}'`).join(', ')} set memory.onExpire, which needs the long-term tier; ` +
      'configure longterm.uri (AGENTS_LONGTERM_URI) or remove onExpire',
  );
}
