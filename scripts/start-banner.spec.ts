// npm start's banner must not suggest the hello example when AGENTS_MODULES replaced the examples.
import { describe, expect, it } from 'vitest';
import { tryCommands } from './start-banner.js';

describe('tryCommands', () => {
  it('suggests the hello example when the configured examples are loaded', () => {
    expect(tryCommands(undefined).join('\n')).toContain(`publish-event -- hello user-1`);
    expect(tryCommands('  ').join('\n')).toContain('/v1/agents/hello/events/user-1');
  });

  it('names the replacing modules and suggests no hello command when AGENTS_MODULES is set', () => {
    const lines = tryCommands('dist/mine/a.agent.js,b.agent.mjs').join('\n');
    expect(lines).not.toContain('hello');
    expect(lines).toContain('AGENTS_MODULES replaced the examples: dist/mine/a.agent.js,b.agent.mjs');
    expect(lines).toContain('publish-event -- <agent> <key>');
  });
});
