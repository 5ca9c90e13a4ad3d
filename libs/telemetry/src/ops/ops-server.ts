import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';

/** Named readiness checks: each answers true when its part of the service is in a good state. */
export type ReadinessChecks = Readonly<Record<string, () => boolean>>;

/** What the ops listener logs through (the service's pino logger fits). */
export interface OpsLogger {
  info(message: string): void;
  error(message: string): void;
}

/** Where and what the ops listener serves. */
export interface OpsServerOptions {
  /** `ops.host` (`AGENTS_OPS_HOST`): 127.0.0.1 by default; 0.0.0.0 in a pod. */
  readonly host: string;
  /** `ops.port` (`AGENTS_OPS_PORT`): 9464 by default; 0 picks a free port. */
  readonly port: number;
  readonly logger: OpsLogger;
}

/** The JSON body of `/readyz`. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, boolean>>;
}

/**
 * A service's operations listener, separate from any API it serves (ingress keeps its own HTTP
 * port): `GET /metrics` (Prometheus text of every registry added), `GET /healthz` (200 while the
 * process can answer at all) and `GET /readyz` (200 when every readiness check passes, 503
 * otherwise; the body names each check). It starts before the service's own start-up so probes
 * get answers during provisioning — not ready until the service sets its checks.
 *
 * If the configured port is taken (several services on one machine without distinct
 * `AGENTS_OPS_PORT`s), it logs an error and listens on a free port instead rather than failing
 * the service; the line `ops listening on <url>` always names the port in use.
 */
export class OpsServer {
  private readonly registries: Registry[] = [];
  private checks: ReadinessChecks = { started: () => false };

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Binds the listener and logs `ops listening on <url> (...)`. */
  static async start(options: OpsServerOptions): Promise<OpsServer> {
    const started: { ops?: OpsServer } = {};
    const server = createServer((request, response) => {
      if (started.ops === undefined) response.writeHead(503).end();
      else void started.ops.handle(request, response);
    });
    server.keepAliveTimeout = 5_000;
    try {
      await listen(server, options.host, options.port);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || options.port === 0) throw error;
      options.logger.error(`ops port ${options.host}:${options.port} is in use (set AGENTS_OPS_PORT per service); listening on a free port instead`);
      await listen(server, options.host, 0);
    }
    server.unref();
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const ops = new OpsServer(server, `http://${host}:${address.port}`);
    started.ops = ops;
    options.logger.info(`ops listening on ${ops.url} (/metrics /healthz /readyz)`);
    return ops;
  }

  /** Adds a registry to `/metrics` (metric names must not repeat across registries). */
  addRegistry(registry: Registry): void {
    if (!this.registries.includes(registry)) this.registries.push(registry);
  }

  /** Replaces the readiness checks (before it is called, `/readyz` answers not ready). */
  setReadiness(checks: ReadinessChecks): void {
    this.checks = checks;
  }

  /** The current readiness (what `/readyz` answers). A check that throws counts as failed. */
  readiness(): ReadinessReport {
    const checks: Record<string, boolean> = {};
    for (const [name, check] of Object.entries(this.checks)) {
      try {
        checks[name] = check();
      } catch {
        checks[name] = false;
      }
    }
    return { ready: Object.values(checks).every(Boolean), checks };
  }

  /** Stops listening (open keep-alive connections are closed). */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    try {
      switch (path) {
        case '/metrics': {
          const merged = Registry.merge(this.registries);
          const body = await merged.metrics();
          response.writeHead(200, { 'Content-Type': merged.contentType }).end(body);
          return;
        }
        case '/healthz':
          response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
          return;
        case '/readyz': {
          const report = this.readiness();
          response.writeHead(report.ready ? 200 : 503, { 'Content-Type': 'application/json' }).end(`${JSON.stringify(report)}\n`);
          return;
        }
        default:
          response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: try /metrics, /healthz or /readyz\n');
      }
    } catch (error) {
      response.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${(error as Error).message}\n`);
    }
  }
}

async function listen(server: Server, host: string, port: number): Promise<void> {
  const failed = once(server, 'error');
  const listening = once(server, 'listening');
  server.listen(port, host);
  await Promise.race([listening, failed.then(([error]) => Promise.reject(error as Error))]);
}
