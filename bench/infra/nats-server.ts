/**
 * The benchmark's private nats-server: free loopback ports (never 4222), a fresh temporary
 * directory for config, JetStream store and log, `max_payload` 8 MiB like the project's own
 * server config, readiness checked through the monitoring port's `/healthz`. Bench-only: it
 * spawns a process and reads the wall clock.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The nats-server binary the runtime targets: Debian's 2.9.10 (ARCHITECTURE.md §3). */
export const NATS_SERVER_BINARY = '/usr/sbin/nats-server';

const MAX_PAYLOAD = 8 * 1024 * 1024;
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;
const PORT_ATTEMPTS = 3;

/** A running private nats-server. */
export interface BenchNatsServer {
  /** `nats://127.0.0.1:<port>`. */
  readonly url: string;
  /** The server process id (for CPU accounting). */
  readonly pid: number;
  /** The temporary directory (config, store, log); removed by {@link BenchNatsServer.stop}. */
  readonly dir: string;
  /** The server's log file in {@link dir} (with `trace`, every protocol message, stamped to the microsecond). */
  readonly logFile: string;
  /** SIGTERM, wait (SIGKILL after 10 s), delete the directory. Idempotent. */
  stop(): Promise<void>;
}

/** The version string `nats-server --version` prints, e.g. `v2.9.10`. */
export function natsServerVersion(): string {
  const probe = spawnSync(NATS_SERVER_BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`${NATS_SERVER_BINARY} --version failed: ${probe.stderr || probe.error?.message || 'unknown error'}`);
  return /v\d+\.\d+\.\d+\S*/.exec(probe.stdout)?.[0] ?? probe.stdout.trim();
}

/** How to start the private server. */
export interface BenchNatsServerOptions {
  /**
   * Log every protocol message with a microsecond timestamp (`trace`, `logtime`): what the hops
   * dimension reads. It slows the server; never on for the measured phases.
   */
  readonly trace?: boolean;
}

/**
 * Starts a private nats-server with JetStream and resolves once it is healthy.
 *
 * @throws {Error} when it exits early or is not healthy in time; the message quotes its log.
 */
export async function startNatsServer(options: BenchNatsServerOptions = {}): Promise<BenchNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'nats-agents-bench-'));
  let lastError: unknown;
  for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt += 1) {
    const [port, monitorPort] = await freePorts(2);
    if (port === undefined || monitorPort === undefined) throw new Error('no free loopback ports');
    // 4222 belongs to whatever NATS the developer runs; an ephemeral port never is, but be sure.
    if (port === 4222 || monitorPort === 4222) continue;
    const configFile = join(dir, 'nats-server.conf');
    const logFile = join(dir, 'nats-server.log');
    await writeFile(
      configFile,
      [
        `listen: 127.0.0.1:${port}`,
        `http: 127.0.0.1:${monitorPort}`,
        `server_name: ${JSON.stringify(`bench-${port}`)}`,
        `max_payload: ${MAX_PAYLOAD}`,
        ...(options.trace === true ? ['trace: true', 'logtime: true'] : []),
        `jetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))}, max_memory_store: 256MB, max_file_store: 8GB }`,
        '',
      ].join('\n'),
      'utf8',
    );
    const logFd = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(NATS_SERVER_BINARY, ['-c', configFile], { stdio: ['ignore', logFd, logFd] });
    } finally {
      closeSync(logFd);
    }
    const killOnExit = (): void => void child.kill('SIGKILL');
    process.once('exit', killOnExit);
    try {
      await waitHealthy(child, `http://127.0.0.1:${monitorPort}/healthz`);
    } catch (error) {
      child.kill('SIGKILL');
      process.removeListener('exit', killOnExit);
      const log = await readFile(logFile, 'utf8').catch(() => '');
      lastError = new Error(`${(error as Error).message}\n--- nats-server log ---\n${log.slice(-4_000)}`, { cause: error });
      if (log.includes('address already in use')) continue;
      throw lastError;
    }
    const pid = child.pid;
    if (pid === undefined) throw new Error('nats-server has no pid');
    let stopped = false;
    return {
      url: `nats://127.0.0.1:${port}`,
      pid,
      dir,
      logFile,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await terminate(child);
        process.removeListener('exit', killOnExit);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  throw lastError;
}

async function waitHealthy(child: ChildProcess, healthz: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nats-server exited during start-up (${child.exitCode ?? child.signalCode})`);
    try {
      const response = await fetch(healthz, { signal: AbortSignal.timeout(1_000) });
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`nats-server was not healthy within ${START_TIMEOUT_MS} ms (${healthz})`);
    await sleep(25);
  }
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const inTime = await Promise.race([exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
  if (!inTime) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** `count` distinct free loopback ports, found by binding port 0 (held together so they differ). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}
