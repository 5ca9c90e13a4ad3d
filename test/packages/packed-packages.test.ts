/**
 * The published packages as users get them, built once for the whole file (the builds write
 * packages/<name>/dist, so they are not split across files that could run in parallel):
 *
 * - each package's public API — its exported names and its bundled declarations — is pinned by a
 *   file snapshot (test/packages/api/<name>.api.md): a change to it is a deliberate diff;
 * - importing @nats-agents/sdk loads no module but its own bundle: no protobuf codec, no Nest, no
 *   NATS client;
 * - `npm pack` the SDK and the test kit, install the tarballs offline into a project outside the
 *   repository (a copy of examples/standalone), type-check it with `tsc --noEmit --strict`, run
 *   its spec with the kit, compile it, and run the compiled agent and tool on a real cluster from
 *   that path, importing their own copy of the SDK.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord, ErrorReason } from '#core';
import { collect } from '../harness/collect.js';
import { startCluster } from '../harness/cluster.js';
import { localTarball, offlineLockfile, type ProjectManifest } from '../harness/offline-lockfile.js';
import { REPO_ROOT } from '../harness/service-process.js';

const run = promisify(execFile);
const text = new TextDecoder();
const utf8 = new TextEncoder();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** This process's environment without what vitest set for its own workers (a nested vitest must not see it). */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_OPTIONS'));

/** Runs a command in `cwd`, failing with its output (npm and tsc report on stdout). */
async function sh(cwd: string, command: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, [...args], { cwd, env: { ...cleanEnv, ...env }, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${failed.stdout ?? ''}${failed.stderr ?? ''}\n${failed.message}`);
  }
}

/** The workspace packages: folder name and package name, found by walking packages/*. */
async function workspacePackages(): Promise<{ folder: string; name: string }[]> {
  const folders = (await readdir(join(REPO_ROOT, 'packages'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  return Promise.all(folders.map(async (folder) => ({ folder, name: (JSON.parse(await readFile(join(REPO_ROOT, 'packages', folder, 'package.json'), 'utf8')) as { name: string }).name })));
}

const packages = await workspacePackages();

/**
 * The typed surface of a bundled declaration file: its TSDoc and line comments left out (a doc
 * edit is not an API change), and its leading imports sorted (the bundler orders them by module
 * graph, not by meaning).
 */
function surfaceOf(declarations: string): string {
  const lines = declarations
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !/^\s*\/\//.test(line))
    .map((line) => line.trimEnd());
  const imports = lines.filter((line) => line.startsWith('import ')).sort();
  const body = lines.filter((line) => !line.startsWith('import ')).filter((line, i, all) => line !== '' || (i > 0 && all[i - 1] !== ''));
  return [...imports, '', ...body].join('\n').trim();
}

beforeAll(async () => {
  await sh(REPO_ROOT, process.execPath, [join(REPO_ROOT, 'scripts', 'build-packages.mjs')]);
}, 600_000);

describe('the public API of each package', () => {
  it.each(packages)('$name exports what its snapshot lists', async ({ folder }) => {
    const dist = join(REPO_ROOT, 'packages', folder, 'dist');
    const module = (await import(pathToFileURL(join(dist, 'index.js')).href)) as Record<string, unknown>;
    const names = Object.keys(module).sort().map((name) => `- \`${name}\` (${typeof module[name]})`);
    const declarations = surfaceOf(await readFile(join(dist, 'index.d.ts'), 'utf8'));
    const surface = [`# ${folder}: public API`, '', '## Run-time exports', '', ...names, '', '## Declarations (dist/index.d.ts, comments left out)', '', '```ts', declarations, '```', ''].join('\n');
    await expect(surface).toMatchFileSnapshot(join('api', `${folder}.api.md`));
  });
});

describe('@nats-agents/sdk at run time', () => {
  it('loads nothing but its own bundle: no protobuf codec, no Nest, no NATS client', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nats-agents-sdk-load-'));
    try {
      const log = join(dir, 'resolved.txt');
      // A resolve hook (in Node's hooks thread) writes down every module the import resolves.
      const hook = `import { appendFileSync } from 'node:fs'; export async function resolve(specifier, context, next) { const r = await next(specifier, context); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }`;
      const sdk = pathToFileURL(join(REPO_ROOT, 'packages', 'sdk', 'dist', 'index.js')).href;
      const script = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)}); const sdk = await import(${JSON.stringify(sdk)}); if (typeof sdk.defineAgent !== 'function') process.exit(3);`;
      await sh(dir, process.execPath, ['--input-type=module', '-e', script]);
      const resolved = (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '');
      expect(resolved).toContain(sdk);
      expect(resolved.filter((url) => url !== sdk && !url.startsWith('node:'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('an agent project outside the repository, on the packed packages', () => {
  let project: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'nats-agents-user-project-'));
    const example = join(REPO_ROOT, 'examples', 'standalone');
    for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src']) await cp(join(example, entry), join(project, entry), { recursive: true });
    // The packages were built above (what prepack would do): pack them where package.json expects the tarballs.
    await mkdir(join(project, 'vendor'));
    await sh(REPO_ROOT, npm, ['pack', '-w', '@nats-agents/sdk', '-w', '@nats-agents/testing', '--pack-destination', join(project, 'vendor'), '--ignore-scripts', '--silent']);
    // Offline: npm's cache holds the tarballs of everything the repository installed, but not the
    // registry metadata that resolving version ranges takes, so the project gets a lockfile cut
    // from the repository's (same versions) and `npm ci --offline` installs it from the cache alone.
    const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as ProjectManifest;
    const tarballs = [localTarball(REPO_ROOT, 'sdk', project, 'vendor/nats-agents-sdk-0.1.0.tgz'), localTarball(REPO_ROOT, 'testing', project, 'vendor/nats-agents-testing-0.1.0.tgz')];
    await writeFile(join(project, 'package-lock.json'), offlineLockfile(join(REPO_ROOT, 'package-lock.json'), manifest, tarballs));
    await sh(project, npm, ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { npm_config_update_notifier: 'false' });
  }, 600_000);

  afterAll(async () => {
    if (project !== undefined) await rm(project, { recursive: true, force: true });
  });

  it('installs the tarballs, not links into the repository', async () => {
    expect((await readdir(join(project, 'vendor'))).sort()).toEqual(['nats-agents-sdk-0.1.0.tgz', 'nats-agents-testing-0.1.0.tgz']);
    for (const name of ['sdk', 'testing']) {
      expect(await realpath(join(project, 'node_modules', '@nats-agents', name))).toBe(join(await realpath(project), 'node_modules', '@nats-agents', name));
    }
  });

  it('type-checks strictly and passes its spec with the test kit', async () => {
    await sh(project, process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--noEmit', '--strict']);
    const output = await sh(project, process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', project], { NO_COLOR: '1' });
    expect(output).toMatch(/Tests\s+3 passed \(3\)/);
  }, 300_000);

  it('compiles, and the runtime runs the agent and its tool from outside the repository', async () => {
    await sh(project, process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);
    await using cluster = await startCluster({
      agentModules: [join(project, 'dist', 'orders.agent.js')],
      services: ['activator', 'ingress', 'effector'],
      env: { AGENTS_TOOL_MODULES: join(project, 'dist', 'reserve-stock.tool.js') },
    });
    const outputs = await collect(cluster.client.nc, 'agents.output.orders.>');
    const errors = await collect(cluster.client.nc, 'agents.errors.orders.>');
    await cluster.client.js.publish('agents.events.orders.o-1', utf8.encode(JSON.stringify({ orderId: 'o-1', sku: 'tea', quantity: 2 })));
    await cluster.client.js.publish('agents.events.orders.o-2', utf8.encode(JSON.stringify({ orderId: 'o-2', sku: '', quantity: 1 })));

    const [output] = await outputs.waitForCount(1, 90_000);
    expect(output!.subject).toBe('agents.output.orders.o-1');
    expect(JSON.parse(text.decode(output!.data))).toEqual({ status: 'confirmed', orderId: 'o-1', reservationId: expect.stringMatching(/^rs-[0-9a-f]{8}$/) });
    // The event schema of the user's copy of the SDK is enforced by the runtime's copy.
    const [error] = await errors.waitForCount(1, 90_000);
    expect(error!.subject).toBe('agents.errors.orders.malformed_input');
    const record = decodeErrorRecord(error!.data);
    expect(record.reason).toBe(ErrorReason.MalformedInput);
    expect(text.decode(record.entityKey)).toBe('o-2');
    expect(record.detail).toMatch(/sku/);
    outputs.close();
    errors.close();
  }, 300_000);
});
