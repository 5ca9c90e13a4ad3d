// Layer 3: a bad agent module stops a real service's start-up with one line naming the file and
// what was expected — before Nest or NATS are touched, so no framework stack trace and no
// half-started service. Runs the built activator and ingress as an operator would.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/index.js';

/** Runs a service to its exit with `modules` as AGENTS_MODULES; resolves with its exit code and output. */
async function startWith(service: 'activator' | 'ingress', modules: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'apps', service, 'src', 'main.js')], {
    cwd: REPO_ROOT,
    // No server listens on port 1: a service that got past the module check would fail differently.
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', OTEL_SDK_DISABLED: 'true', NATS_URL: 'nats://127.0.0.1:1', AGENTS_MODULES: modules, AGENTS_HTTP_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

describe('a bad agent module at start-up', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nats-agents-bad-modules-'));
    await writeFile(join(dir, 'no-agent.mjs'), 'export const answer = 42;\nexport default { name: "not-an-agent" };\n');
    await writeFile(join(dir, 'missing-import.mjs'), "import 'nats-agents-no-such-package';\nexport default { name: 'x', handler() {} };\n");
    await writeFile(join(dir, 'syntax-error.mjs'), 'export default {\n');
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['activator', 'no-agent.mjs', /exports no agent \(it exports 'answer', 'default'\): expected a default export of an agent or an array of agents/],
    ['ingress', 'no-agent.mjs', /exports no agent \(it exports 'answer', 'default'\): expected a default export of an agent or an array of agents/],
    ['activator', 'missing-import.mjs', /failed to load: Cannot find package 'nats-agents-no-such-package'/],
    // A syntax error names its line too (`syntax-error.mjs:2 failed to load: …`).
    ['ingress', 'syntax-error.mjs', /syntax-error\.mjs:2 failed to load: .*(Unexpected end of input|SyntaxError)/],
  ] as const)('%s with %s exits 1 with one line naming the file', async (service, file, expected) => {
    const path = join(dir, file);
    const { code, stdout, stderr } = await startWith(service, path);
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${service}: agent module ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(:\\d+)? `));
    expect(lines[0]).toMatch(expected);
    // No framework output and no stack trace anywhere.
    expect(stdout + stderr).not.toMatch(/\n\s+at |\[Nest\]|NestFactory/);
  }, 60_000);
});
