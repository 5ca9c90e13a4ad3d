// Where a handler runs is the definition's choice unless the configuration names the agent.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '#core';
import { withConfiguredIsolation } from './agent-isolation.js';
import { loadConfig } from './load-config.js';

const handler: AgentDefinition['handler'] = () => ({ kind: 'complete' });

describe('withConfiguredIsolation', () => {
  it('lays the configured isolation over the definition, both ways, and leaves other agents as they are', () => {
    const agents = new Map<string, AgentDefinition>([
      ['scorer', { name: 'scorer', handler }],
      ['parser', { name: 'parser', handler, isolation: 'worker' }],
      ['other', { name: 'other', handler, isolation: 'worker' }],
    ]);
    const config = loadConfig({ env: {}, overrides: { isolation: { scorer: 'worker', parser: 'event-loop' } } });
    const out = withConfiguredIsolation(agents, config);
    expect(out.get('scorer')?.isolation).toBe('worker');
    expect(out.get('scorer')?.handler).toBe(handler);
    expect(out.get('parser')?.isolation).toBe('event-loop');
    expect(out.get('other')).toBe(agents.get('other'));
  });

  it('refuses an isolation the runtime does not know', () => {
    expect(() => loadConfig({ env: {}, overrides: { isolation: { scorer: 'thread' } } })).toThrow(/isolation/);
  });
});
