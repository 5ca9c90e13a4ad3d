// Budgets set in configuration override the agent definition's, field by field.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '#core';
import { withConfiguredBudgets } from './agent-budgets.js';
import { loadConfig } from './load-config.js';

const handler: AgentDefinition['handler'] = () => ({ kind: 'complete' });

describe('withConfiguredBudgets', () => {
  it('lays the configured budget over the definition and leaves other agents as they are', () => {
    const agents = new Map<string, AgentDefinition>([
      ['triage', { name: 'triage', handler, budget: { tokensPerActivation: 50_000 } }],
      ['other', { name: 'other', handler }],
    ]);
    const config = loadConfig({ env: {}, overrides: { budgets: { triage: { tokensPerActivation: 2_000 } } } });
    const out = withConfiguredBudgets(agents, config);
    expect(out.get('triage')?.budget).toEqual({ tokensPerActivation: 2_000 });
    expect(out.get('other')).toBe(agents.get('other'));
  });
});
