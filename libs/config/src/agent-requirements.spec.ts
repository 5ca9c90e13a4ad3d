// Start-up refusal of agents the configuration cannot serve (issue 12, defect 5).
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '#core';
import { assertAgentsFitConfig } from './agent-requirements.js';
import { AgentModuleError } from './agent-modules.js';
import { loadConfig } from './load-config.js';

const handler: AgentDefinition['handler'] = () => ({ kind: 'complete' });
const catalog = (...agents: AgentDefinition[]): Map<string, AgentDefinition> => new Map(agents.map((a) => [a.name, a]));
const archivist: AgentDefinition = { name: 'archivist', memory: { idleTtlMs: 60_000, onExpire: 'flush-to-longterm' }, handler };
const plain: AgentDefinition = { name: 'plain', memory: { idleTtlMs: 60_000 }, handler };

describe('assertAgentsFitConfig', () => {
  it('refuses an agent with onExpire when no long-term tier is configured, naming it', () => {
    const config = loadConfig({ env: {} });
    expect(() => assertAgentsFitConfig(catalog(plain, archivist), config)).toThrow(AgentModuleError);
    expect(() => assertAgentsFitConfig(catalog(plain, archivist), config)).toThrow(/'archivist' set memory\.onExpire/);
  });

  it('accepts the same agent once the tier is configured, and agents without onExpire either way', () => {
    expect(() => assertAgentsFitConfig(catalog(archivist), loadConfig({ env: { AGENTS_LONGTERM_URI: 'memory://' } }))).not.toThrow();
    expect(() => assertAgentsFitConfig(catalog(plain), loadConfig({ env: {} }))).not.toThrow();
  });
});
