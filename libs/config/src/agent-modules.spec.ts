// Layer 1: a service loads exactly the agents the operator wrote; a sharding setting that ingress could not apply stops the start, not the first event.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentModuleError, loadAgentModules } from './agent-modules.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-modules-'));
  const files: Record<string, string> = {
    'sharded.mjs': "export default { name: 'hot', shards: 4, handler: () => ({ kind: 'complete' }) };",
    'zero-shards.mjs': "export default { name: 'cold', shards: 0, handler: () => ({ kind: 'complete' }) };",
    'fraction-shards.mjs': "export default { name: 'warm', shards: 1.5, handler: () => ({ kind: 'complete' }) };",
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
});
