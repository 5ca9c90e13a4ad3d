import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_V8_FLAGS } from './service-v8-flags.js';

describe('the services’ V8 flags', () => {
  it('name flags this Node’s V8 knows, so a typo or a V8 that dropped one fails here instead of being ignored', () => {
    // setFlagsFromString ignores an unknown flag silently; `--v8-options` lists every known one.
    const known = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    for (const flag of SERVICE_V8_FLAGS) {
      const name = flag.replace(/^--(no-)?/, '');
      expect(known).toContain(`--${name} `);
    }
  });

  it('are refused in NODE_OPTIONS, which is why the services set them from code', () => {
    const run = spawnSync(process.execPath, ['-e', 'process.exit(0)'], { env: { ...process.env, NODE_OPTIONS: SERVICE_V8_FLAGS.join(' ') } });
    expect(run.stderr.toString()).toContain('is not allowed in NODE_OPTIONS');
    expect(run.status).not.toBe(0);
  });

  it('are set by every service’s main before it does any work', () => {
    for (const app of ['activator', 'ingress', 'effector', 'memory-store', 'console']) {
      const main = readFileSync(join(import.meta.dirname, '..', '..', '..', 'apps', app, 'src', 'main.ts'), 'utf8');
      expect(main, app).toMatch(/async function main\(\): Promise<void> \{\n {2}applyServiceV8Flags\(\);\n/);
    }
  });
});
