import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from './service-node-flags.js';

describe('the services’ node flags', () => {
  it('are the NODE_OPTIONS of the image, so the chart’s pods run with the same flags as npm start', () => {
    const dockerfile = readFileSync(join(import.meta.dirname, '..', '..', '..', 'Dockerfile'), 'utf8');
    const set = /^ENV NODE_OPTIONS="([^"]*)"$/m.exec(dockerfile);
    expect(set?.[1]?.split(' ')).toEqual([...SERVICE_NODE_FLAGS]);
  });

  it('are flags Node accepts in NODE_OPTIONS', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, ['-e', 'process.exit(0)'], { env: { ...process.env, NODE_OPTIONS: SERVICE_NODE_FLAGS.join(' ') } });
    expect(run.stderr.toString()).toBe('');
    expect(run.status).toBe(0);
  });
});
