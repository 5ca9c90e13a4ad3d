// Layer 1: the effector loads exactly the tools the operator wrote, or refuses to start.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadToolModules, ToolModuleError } from './tool-modules.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tool-modules-'));
  const files: Record<string, string> = {
    'default.mjs': "export default { name: 'charge', sideEffect: true, handler: () => 'ok' };",
    'named.mjs':
      "export const refund = { name: 'refund', sideEffect: true, handler: () => 'ok' };\n" +
      "export const lookup = { name: 'lookup', sideEffect: false, handler: () => 'ok' };\n" +
      'export const notATool = 42;\n' +
      'export default refund;',
    'clash.mjs': "export default { name: 'charge', sideEffect: true, handler: () => 'other' };",
    'bad-name.mjs': "export default { name: 'Charge!', sideEffect: true, handler: () => 'ok' };",
    'empty.mjs': 'export const nothing = {};',
    'broken.mjs': 'export default {',
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadToolModules', () => {
  it('collects default and named tool exports once each, read-only ones included, resolving relative paths', async () => {
    const tools = await loadToolModules(['default.mjs', join(dir, 'named.mjs')], dir);
    expect([...tools.keys()].sort()).toEqual(['charge', 'lookup', 'refund']);
    expect(tools.get('lookup')?.sideEffect).toBe(false);
  });

  it('loads nothing from no paths', async () => {
    expect((await loadToolModules([], dir)).size).toBe(0);
  });

  it.each([
    ['two tools with one name', ['default.mjs', 'clash.mjs'], /two tools are named 'charge'/],
    ['an invalid name', ['bad-name.mjs'], /invalid name/],
    ['a module without tools', ['empty.mjs'], /exports no tool/],
    ['a module that does not import', ['broken.mjs'], /cannot import tool module/],
    ['a missing module', ['missing.mjs'], /cannot import tool module/],
  ])('refuses %s', async (_what, paths, message) => {
    await expect(loadToolModules(paths, dir)).rejects.toThrow(ToolModuleError);
    await expect(loadToolModules(paths, dir)).rejects.toThrow(message);
  });
});
