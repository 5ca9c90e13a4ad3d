/**
 * `npm start`: runs the whole cluster locally with the example agents. Uses the NATS server at
 * $NATS_URL (default nats://127.0.0.1:4222) when one answers with JetStream, otherwise starts a
 * private nats-server with JetStream in .data/nats. Then starts ingress, activator, effector and
 * memory-store as child processes (ops listeners on 9464..9467, or from $AGENTS_OPS_PORT upwards),
 * and the operations console on http://127.0.0.1:8090 (ops on 9468) with a fresh operator API key
 * printed once (its digest goes into .data/console.yaml, never the key), and stops everything on
 * Ctrl-C.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { hashApiKey } from '#auth';
import { SERVICE_NODE_FLAGS } from '#config';
import { tryCommands } from './start-banner.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const children: { name: string; process: ChildProcess }[] = [];
let ownServer: ChildProcess | undefined;

async function natsAnswers(url: string): Promise<'jetstream' | 'no-jetstream' | 'down'> {
  try {
    const nc = await connect({ servers: url, timeout: 1_500, maxReconnectAttempts: 0, reconnect: false });
    try {
      await (await jetstreamManager(nc)).getAccountInfo();
      return 'jetstream';
    } catch {
      return 'no-jetstream';
    } finally {
      await nc.close();
    }
  } catch {
    return 'down';
  }
}

function natsServerBinary(): string {
  for (const candidate of ['nats-server', '/usr/sbin/nats-server', '/usr/local/bin/nats-server']) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  throw new Error('no NATS server answers at ' + natsUrl + ' and no nats-server binary was found (apt install nats-server)');
}

async function startOwnServer(): Promise<void> {
  const url = new URL(natsUrl.split(',')[0] ?? natsUrl);
  const dataDir = join(root, '.data', 'nats');
  mkdirSync(join(dataDir, 'store'), { recursive: true });
  const config = readFileSync(join(root, 'deploy', 'nats-server.conf.template'), 'utf8')
    .replace('{{HOST}}', url.hostname || '127.0.0.1')
    .replace('{{PORT}}', url.port || '4222')
    .replace('{{STORE_DIR}}', join(dataDir, 'store'));
  const configFile = join(dataDir, 'nats-server.conf');
  writeFileSync(configFile, config);
  const binary = natsServerBinary();
  console.log(`[cluster] starting ${binary} on ${url.hostname}:${url.port || '4222'} (data in ${dataDir})`);
  ownServer = spawn(binary, ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  ownServer.stderr?.on('data', (chunk: Buffer) => process.stderr.write(prefixLines('nats', chunk.toString())));
  for (let i = 0; i < 50; i += 1) {
    if ((await natsAnswers(natsUrl)) === 'jetstream') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the local nats-server did not come up; see its log above');
}

function prefixLines(name: string, text: string): string {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => `[${name}] ${line}\n`)
    .join('');
}

/**
 * The local API key for ingress's HTTP API (every route needs a credential): generated once into
 * `.data/dev-api-key` (mode 0600) and configured by its digest in `.data/dev-api-keys.json` with
 * every scope. `$AGENTS_API_KEYS_FILE` set by the caller wins (then the caller holds the keys).
 */
function devApiKey(): { readonly key: string | undefined; readonly keysFile: string } {
  if (process.env.AGENTS_API_KEYS_FILE !== undefined && process.env.AGENTS_API_KEYS_FILE !== '') {
    return { key: undefined, keysFile: process.env.AGENTS_API_KEYS_FILE };
  }
  const dataDir = join(root, '.data');
  mkdirSync(dataDir, { recursive: true });
  const keyFile = join(dataDir, 'dev-api-key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('base64url'), { mode: 0o600 });
  const key = readFileSync(keyFile, 'utf8').trim();
  const keysFile = join(dataDir, 'dev-api-keys.json');
  writeFileSync(keysFile, JSON.stringify([{ id: 'dev', hash: hashApiKey(key), scopes: ['*'] }], null, 2) + '\n');
  return { key, keysFile };
}

/**
 * The local cluster keyring (docs/decisions/0058): one HMAC key `dev`, generated once into
 * `.data/dev-keyring` (mode 0600) and named by `signing.keyringFile` in deploy/local.yaml, so
 * intents are signed and verified and results, approvals and timers sealed and verified from the
 * first start. `$AGENTS_KEYRING_FILE` set by the caller wins (then set `$AGENTS_SIGNING_KEY_ID` too).
 */
function devKeyring(): void {
  if (process.env.AGENTS_KEYRING_FILE !== undefined && process.env.AGENTS_KEYRING_FILE !== '') return;
  const dataDir = join(root, '.data');
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'dev-keyring');
  if (!existsSync(file)) writeFileSync(file, `# generated by npm start; delete it to rotate\ndev=${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
}

/** Each service's ops listener (/metrics, /healthz, /readyz): distinct ports, since all four share this machine. */
const OPS_BASE_PORT = Number(process.env.AGENTS_OPS_PORT ?? 9464);
const SERVICES = ['activator', 'ingress', 'effector', 'memory-store', 'console'] as const;
/** 0 keeps 0 for every service (each picks a free port: see its log), never 1, 2, 3. */
const opsPort = (name: (typeof SERVICES)[number]): number => (OPS_BASE_PORT === 0 ? 0 : OPS_BASE_PORT + SERVICES.indexOf(name));

function startService(name: string, env: NodeJS.ProcessEnv): Promise<void> {
  const main = join(root, 'dist', 'apps', name, 'src', 'main.js');
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, main], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push({ name, process: child });
  return new Promise((resolveReady, reject) => {
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString();
      process.stdout.write(prefixLines(name, text));
      if (/owns [1-9]\d* partitions|ingress consuming|effector (connected|consuming)|memory-store (connected|serving)/.test(text)) resolveReady();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${String(code)} during start-up`)));
  });
}

/**
 * The console's config: the cluster's file plus one operator API key (its digest only) for this
 * run, written to .data/console.yaml; the key itself is printed once and stored nowhere.
 */
function consoleConfig(configFile: string, key: string): string {
  const base = (parseYaml(readFileSync(configFile, 'utf8')) ?? {}) as { auth?: { apiKeys?: unknown[] } };
  const apiKeys = [...(base.auth?.apiKeys ?? []), { id: 'local-operator', hash: hashApiKey(key), roles: ['operator'] }];
  const file = join(root, '.data', 'console.yaml');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, stringifyYaml({ ...base, auth: { ...base.auth, apiKeys } }), { mode: 0o600 });
  return file;
}

async function shutdown(signal: NodeJS.Signals, exitCode = 0): Promise<void> {
  console.log(`\n[cluster] ${signal}: stopping services`);
  await Promise.all(
    children.map(
      ({ process: child }) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
    ),
  );
  if (ownServer !== undefined && ownServer.exitCode === null) {
    await new Promise<void>((done) => {
      ownServer?.once('exit', () => done());
      ownServer?.kill('SIGTERM');
    });
  }
  process.exit(exitCode);
}

async function main(): Promise<void> {
  const state = await natsAnswers(natsUrl);
  if (state === 'no-jetstream') throw new Error(`the NATS server at ${natsUrl} has JetStream disabled; start it with -js`);
  if (state === 'down') await startOwnServer();
  else console.log(`[cluster] using the NATS server at ${natsUrl}`);

  const configFile = process.env.AGENTS_CONFIG ?? join(root, 'deploy', 'local.yaml');
  if (!existsSync(configFile)) throw new Error(`config file ${configFile} does not exist`);
  const dev = devApiKey();
  devKeyring();
  const env = { ...process.env, NATS_URL: natsUrl, AGENTS_CONFIG: configFile, AGENTS_API_KEYS_FILE: dev.keysFile };
  process.once('SIGINT', (s) => void shutdown(s));
  process.once('SIGTERM', (s) => void shutdown(s));
  const runtime = SERVICES.filter((name) => name !== 'console');
  await Promise.all(runtime.map((name) => startService(name, { ...env, AGENTS_OPS_PORT: String(opsPort(name)) })));
  const consoleKey = randomBytes(24).toString('base64url');
  await startService('console', {
    ...env,
    AGENTS_CONFIG: consoleConfig(configFile, consoleKey),
    AGENTS_OPS_PORT: String(opsPort('console')),
    AGENTS_CONSOLE_METRICS: runtime.filter((name) => opsPort(name) !== 0).map((name) => `http://127.0.0.1:${opsPort(name)}/metrics`).join(','),
  });
  console.log(
    [
      '',
      `[cluster] ready on NATS_URL=${natsUrl}${ownServer !== undefined ? ' (a server this script started)' : ''}. In another terminal:`,
      ...tryCommands(process.env.AGENTS_MODULES),
      dev.key === undefined
        ? `[cluster] the HTTP API accepts the keys in ${dev.keysFile}.`
        : `[cluster] the HTTP API's local key (every scope) is in .data/dev-api-key: ${dev.key}`,
      `[cluster] console: http://127.0.0.1:${process.env.AGENTS_CONSOLE_PORT ?? '8090'}/  sign in with the operator API key ${consoleKey} (valid until Ctrl-C)`,
      '[cluster] ops listeners (/metrics /healthz /readyz):',
      ...SERVICES.map((name) => `  ${name.padEnd(12)} ${opsPort(name) === 0 ? '(a free port: see its "ops listening on" line)' : `http://127.0.0.1:${opsPort(name)}/metrics`}`),
      '[cluster] traces go to $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318; a local Jaeger all-in-one listens there).',
      '[cluster] Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch(async (error: unknown) => {
  console.error(`[cluster] ${(error as Error).message}`);
  await shutdown('SIGTERM', 1);
});
