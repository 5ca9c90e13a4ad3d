// Layer 1: a service loads exactly the agents the operator wrote; a sharding setting that ingress could not apply stops the start, not the first event.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentModuleError, agentModulesProblem, loadAgentModules } from './agent-modules.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-modules-'));
  const files: Record<string, string> = {
    'sharded.mjs': "export default { name: 'hot', shards: 4, handler: () => ({ kind: 'complete' }) };",
    'threaded.mjs': "export default { name: 'heavy', isolation: 'thread', handler: () => ({ kind: 'complete' }) };",
    'zero-shards.mjs': "export default { name: 'cold', shards: 0, handler: () => ({ kind: 'complete' }) };",
    'fraction-shards.mjs': "export default { name: 'warm', shards: 1.5, handler: () => ({ kind: 'complete' }) };",
    'pair.mjs': "const a = { name: 'a', handler: () => ({ kind: 'complete' }) };\nexport const named = a;\nexport default [a, { name: 'b', handler: () => ({ kind: 'complete' }) }];",
    'nothing.mjs': "export const helper = 1;\nexport default { name: 'no-handler' };",
    'broken.mjs': "export default {\n  name: 'x',,\n};",
    'missing-import.mjs': "import { defineAgent } from '@nats-agents/no-such-package';\nexport default defineAgent({ name: 'x', handler: () => ({ kind: 'complete' }) });",
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadAgentModules', () => {
  it('loads an agent with a positive shard count', async () => {
    const agents = await loadAgentModules(['sharded.mjs'], dir);
    expect(agents.get('hot')?.shards).toBe(4);
  });

  it.each(['zero-shards.mjs', 'fraction-shards.mjs'])('refuses to start with %s: shards must be a positive integer', async (file) => {
    await expect(loadAgentModules([file], dir)).rejects.toThrow(AgentModuleError);
    await expect(loadAgentModules([file], dir)).rejects.toThrow(/must be a positive integer/);
  });

  it('refuses to start with an isolation that is neither event-loop nor worker', async () => {
    await expect(loadAgentModules(['threaded.mjs'], dir)).rejects.toThrow(/agent 'heavy' .* has isolation = thread; it must be 'event-loop' or 'worker'/);
  });

  it('loads a default export of an array of agents, counting an agent exported twice once', async () => {
    const agents = await loadAgentModules(['pair.mjs'], dir);
    expect([...agents.keys()]).toEqual(['a', 'b']);
  });

  it('refuses a module without agents in one line naming the file, its exports and what was expected', async () => {
    const problem = await agentModulesProblem(['nothing.mjs'], dir);
    expect(problem).toBe(`agent module ${join(dir, 'nothing.mjs')} exports no agent (it exports 'default', 'helper'): expected a default export of an agent or an array of agents, or named agent exports (objects with a name and a handler function, as defineAgent returns)`);
  });

  it.each([
    ['broken.mjs', /failed to load: (Unexpected token|Parse fail)/], // Node's message, or Vite's under vitest
    ['missing-import.mjs', /failed to load: Cannot find package '@nats-agents\/no-such-package'/],
    ['absent.mjs', /failed to load: Cannot find module/],
  ])('reports %s failing to load in one line naming the file', async (file, reason) => {
    const problem = await agentModulesProblem([file], dir);
    expect(problem).toContain(join(dir, file));
    expect(problem).toMatch(reason);
    expect(problem).not.toContain('\n');
  });

  it('names the line of a syntax error in the module', async () => {
    const problem = await agentModulesProblem(['broken.mjs'], dir);
    expect(problem).toContain(`agent module ${join(dir, 'broken.mjs')}:2 failed to load`);
  });

  it('finds no problem when every module loads', async () => {
    expect(await agentModulesProblem(['sharded.mjs', 'pair.mjs'], dir)).toBeUndefined();
  });
});
