/**
 * A real, private nats-server for one integration suite: free loopback ports, a fresh temporary
 * directory holding the config, the JetStream store and the server log, readiness checked through
 * the monitoring port, and a handle that stops, crashes and restarts the server on the same port
 * and store. Every integration suite under test/ starts its broker through this file.
 *
 * Test-only code: it reads the wall clock and spawns processes. Importing it registers one
 * process `exit` hook that SIGKILLs any server still running, so an aborted run leaves no orphans.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The nats-server binary every suite runs: Debian's 2.9.10 (ARCHITECTURE.md §3). */
export const NATS_SERVER_BINARY = '/usr/sbin/nats-server';

/** Default `max_payload`: 8 MiB, above the runtime's largest message (a 1 MiB state document plus headroom). */
export const DEFAULT_MAX_PAYLOAD = 8 * 1024 * 1024;

/** Default bound on how long a start or restart may take before it fails with the log path. */
export const DEFAULT_START_TIMEOUT_MS = 15_000;

const STOP_TIMEOUT_MS = 10_000;
const POLL_INTERVAL_MS = 25;
const LOG_TAIL_BYTES = 4_096;
const PORT_ATTEMPTS = 3;

/** How to configure the private server. Every field is optional. */
export interface NatsServerOptions {
  /** Enable JetStream (file store in the temp dir, 256 MB memory / 4 GB file limits). Default `true`. */
  readonly jetstream?: boolean;
  /** `max_payload` in bytes. Default {@link DEFAULT_MAX_PAYLOAD}. */
  readonly maxPayload?: number;
  /** Server-level subject mappings, source → destination, e.g. `{ 'a.*': 'b.{{partition(16,1)}}.{{wildcard(1)}}' }`. */
  readonly mappings?: Readonly<Record<string, string>>;
  /** `server_name`. Default `test-<client port>`, unique per running server. */
  readonly serverName?: string;
  /**
   * For clustered suites: when set, the server also gets a `cluster` block with this name, its own
   * route port ({@link NatsServerHandle.routeUrl}) and {@link NatsServerOptions.routes}. With
   * JetStream, give every node a distinct `serverName` (the default is) and start the nodes
   * together: a clustered JetStream server is healthy only once a quorum of its peers is up.
   */
  readonly clusterName?: string;
  /** Seam for clustered suites: peers' route URLs (`nats-route://127.0.0.1:<port>`); needs `clusterName`. */
  readonly routes?: readonly string[];
  /**
   * The route port (needs `clusterName`); default a free one. Reserve the ports of every node
   * with {@link freeLoopbackPorts} first, so each node can be given all routes before any starts.
   */
  readonly routePort?: number;
  /** Bound on start-up (and each restart) in ms. Default {@link DEFAULT_START_TIMEOUT_MS}. */
  readonly startTimeoutMs?: number;
  /**
   * Config text appended verbatim after the generated config, e.g. an `authorization { … }` block.
   * The monitoring port stays open, so readiness is still checked without credentials.
   */
  readonly extraConfig?: string;
}

/**
 * A running private nats-server. `await using server = await startNatsServer()` stops it and
 * deletes its directory at scope exit; otherwise call {@link NatsServerHandle.stop} in `afterAll`.
 */
export interface NatsServerHandle extends AsyncDisposable {
  /** Client URL, `nats://127.0.0.1:<port>`. */
  readonly url: string;
  /** Client port on 127.0.0.1; the same across restarts. */
  readonly port: number;
  /** Monitoring base URL, `http://127.0.0.1:<port>` (`/varz`, `/jsz`, `/healthz`, …). */
  readonly monitorUrl: string;
  /** Route URL when `clusterName` was given, else `undefined`. */
  readonly routeUrl: string | undefined;
  /** JetStream store directory; survives `kill()` and `restart()`. */
  readonly storeDir: string;
  /** The private temp directory holding config, store and log; removed by `stop()`. */
  readonly dir: string;
  /** The server log (stdout and stderr of every run, appended). */
  readonly logFile: string;
  /** The generated config file. */
  readonly configFile: string;
  /** True while a server process is running. */
  readonly running: boolean;
  /**
   * Graceful, final shutdown: SIGTERM, wait for exit (SIGKILL after 10 s), then delete the temp
   * dir. Idempotent; after it, `restart()` throws.
   */
  stop(): Promise<void>;
  /** Crash: SIGKILL and wait for exit. The store and port are kept, so `restart()` recovers. */
  kill(): Promise<void>;
  /** Stops the server if running (SIGTERM), then starts it again on the same port and store, and waits until it is healthy. */
  restart(): Promise<void>;
}

/**
 * Starts a private nats-server and resolves once its monitoring `/healthz` answers OK (JetStream
 * included when enabled).
 *
 * @throws {Error} when the server exits early or is not healthy within `startTimeoutMs`; the
 * message names the log file (kept, with its temp dir, for inspection) and quotes its tail.
 * @example
 * ```ts
 * await using server = await startNatsServer({ mappings: { 'x.*': 'y.{{partition(4,1)}}.{{wildcard(1)}}' } });
 * const nc = await connect({ servers: server.url });
 * ```
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  if ((options.routes !== undefined || options.routePort !== undefined) && options.clusterName === undefined) {
    throw new Error('startNatsServer: `routes` and `routePort` need `clusterName`');
  }
  const maxPayload = options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
  if (!Number.isSafeInteger(maxPayload) || maxPayload < 1) {
    throw new Error(`startNatsServer: maxPayload must be a positive integer, got ${maxPayload}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'nats-agents-server-'));
  let lastError: unknown;
  for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
    const ports = await freeLoopbackPorts(options.clusterName === undefined || options.routePort !== undefined ? 2 : 3);
    if (options.routePort !== undefined) ports.push(options.routePort);
    const server = new PrivateNatsServer(dir, options, ports);
    try {
      await server.writeConfig();
      await server.launch();
      return server;
    } catch (error) {
      lastError = error;
      // Another process can take a probed port before the server binds it; only that is retried.
      if (!(await server.logMentions('address already in use'))) throw error;
    }
  }
  throw lastError;
}

const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

class PrivateNatsServer implements NatsServerHandle {
  readonly url: string;
  readonly port: number;
  readonly monitorUrl: string;
  readonly routeUrl: string | undefined;
  readonly storeDir: string;
  readonly logFile: string;
  readonly configFile: string;
  private readonly monitorPort: number;
  private readonly routePort: number | undefined;
  private child: ChildProcess | undefined;
  private stopped = false;

  constructor(
    readonly dir: string,
    private readonly options: NatsServerOptions,
    ports: readonly number[],
  ) {
    const [port, monitorPort, routePort] = ports;
    if (port === undefined || monitorPort === undefined) throw new Error('startNatsServer: no free ports');
    this.port = port;
    this.monitorPort = monitorPort;
    this.routePort = routePort;
    this.url = `nats://127.0.0.1:${port}`;
    this.monitorUrl = `http://127.0.0.1:${monitorPort}`;
    this.routeUrl = routePort === undefined ? undefined : `nats-route://127.0.0.1:${routePort}`;
    this.storeDir = join(dir, 'jetstream');
    this.logFile = join(dir, 'nats-server.log');
    this.configFile = join(dir, 'nats-server.conf');
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  async writeConfig(): Promise<void> {
    await writeFile(this.configFile, this.renderConfig(), 'utf8');
  }

  async launch(): Promise<void> {
    const logFd = openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(NATS_SERVER_BINARY, ['-c', this.configFile], { stdio: ['ignore', logFd, logFd] });
    } finally {
      closeSync(logFd);
    }
    this.child = child;
    liveChildren.add(child);
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = error;
    });
    child.once('exit', () => {
      liveChildren.delete(child);
      if (this.child === child) this.child = undefined;
    });
    try {
      await this.waitHealthy(child, () => spawnError);
    } catch (error) {
      await this.terminate('SIGKILL');
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${await this.describeLog()}`, { cause: error });
    }
  }

  async logMentions(text: string): Promise<boolean> {
    return (await this.readLogTail()).includes(text);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.terminate('SIGTERM');
    await rm(this.dir, { recursive: true, force: true });
  }

  async kill(): Promise<void> {
    await this.terminate('SIGKILL');
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new Error(`nats-server on port ${this.port} was stopped for good; start a new one`);
    await this.terminate('SIGTERM');
    await this.launch();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private renderConfig(): string {
    const maxPayload = this.options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
    const lines = [
      `listen: 127.0.0.1:${this.port}`,
      `http: 127.0.0.1:${this.monitorPort}`,
      `server_name: ${quote(this.options.serverName ?? `test-${this.port}`)}`,
      `max_payload: ${maxPayload}`,
    ];
    if (this.options.jetstream ?? true) {
      lines.push(`jetstream { store_dir: ${quote(this.storeDir)}, max_memory_store: 256MB, max_file_store: 4GB }`);
    }
    const mappings = Object.entries(this.options.mappings ?? {});
    if (mappings.length > 0) {
      lines.push('mappings = {', ...mappings.map(([from, to]) => `  ${quote(from)}: ${quote(to)}`), '}');
    }
    if (this.options.clusterName !== undefined) {
      const routes = (this.options.routes ?? []).map(quote).join(', ');
      lines.push(
        'cluster {',
        `  name: ${quote(this.options.clusterName)}`,
        `  listen: 127.0.0.1:${this.routePort}`,
        `  routes = [${routes}]`,
        '}',
      );
    }
    if (this.options.extraConfig !== undefined) lines.push(this.options.extraConfig);
    return `${lines.join('\n')}\n`;
  }

  private async waitHealthy(child: ChildProcess, spawnError: () => Error | undefined): Promise<void> {
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const failed = spawnError();
      if (failed) throw new Error(`nats-server could not be spawned: ${failed.message}`, { cause: failed });
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`nats-server exited during start-up (code ${child.exitCode}, signal ${child.signalCode})`);
      }
      if (await this.healthy()) return;
      if (Date.now() >= deadline) throw new Error(`nats-server was not healthy within ${timeoutMs} ms at ${this.monitorUrl}/healthz`);
      await sleep(POLL_INTERVAL_MS);
    }
  }

  private async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`${this.monitorUrl}/healthz`, { signal: AbortSignal.timeout(1_000) });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false; // not listening yet
    }
  }

  /** Signals the running process (if any) and waits for it to exit; SIGKILL if SIGTERM is ignored. */
  private async terminate(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    child.kill(signal);
    const inTime = await Promise.race([exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
    if (!inTime) {
      child.kill('SIGKILL');
      await exited;
    }
    liveChildren.delete(child);
    if (this.child === child) this.child = undefined;
  }

  private async readLogTail(): Promise<string> {
    try {
      const file = await open(this.logFile, 'r');
      try {
        const { size } = await file.stat();
        const length = Math.min(size, LOG_TAIL_BYTES);
        const buffer = Buffer.alloc(length);
        await file.read(buffer, 0, length, size - length);
        return buffer.toString('utf8');
      } finally {
        await file.close();
      }
    } catch {
      return '';
    }
  }

  private async describeLog(): Promise<string> {
    const tail = (await this.readLogTail()).trimEnd();
    return `server log (kept): ${this.logFile}\nconfig: ${this.configFile}\n--- log tail ---\n${tail || '(empty)'}`;
  }
}

/** Double-quoted string for the nats-server config format. */
function quote(value: string): string {
  return JSON.stringify(value);
}

/**
 * Ports are handed out below the kernel's ephemeral range (32768–60999 on Linux), from which
 * outgoing connections take their local ports. A port from that range can be taken by any client
 * socket while a killed server is down, and its `restart()` on the same port then fails with
 * "address already in use" (seen in the cluster chaos suite, with a dozen processes connecting).
 */
const PORT_RANGE = { from: 20_000, to: 32_000 } as const;
const PORT_PROBES = 500;

/**
 * `count` distinct free loopback ports below the ephemeral range, each found by binding it. All
 * are held open together so they differ; they are free again (and could in principle be taken by
 * another listener) once this returns.
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const held: ReturnType<typeof createServer>[] = [];
  const ports: number[] = [];
  try {
    for (let probe = 0; ports.length < count; probe += 1) {
      if (probe >= PORT_PROBES) throw new Error(`no ${count} free loopback ports in ${PORT_RANGE.from}-${PORT_RANGE.to}`);
      const candidate = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
      if (ports.includes(candidate)) continue;
      const server = createServer();
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(candidate, '127.0.0.1', () => resolve(true));
      });
      if (!bound) continue;
      held.push(server);
      ports.push(candidate);
    }
    return ports;
  } finally {
    await Promise.all(held.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
