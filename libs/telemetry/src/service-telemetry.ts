import type { Logger } from 'pino';
import { serviceLogger } from './logging/service-logger.js';
import { OpsServer } from './ops/ops-server.js';
import { startTracing, type Tracing } from './tracing/start-tracing.js';

/** A service's telemetry as its `main` starts it, before the Nest application exists. */
export interface ServiceTelemetry {
  /** The process's pino logger (also the Nest logger, through `TelemetryModule`). */
  readonly logger: Logger;
  readonly tracing: Tracing;
  /** The ops listener: add the service's registry and readiness checks once the application is built. */
  readonly ops: OpsServer;
}

/**
 * Starts, in this order, a service's logger, its tracer provider (from `OTEL_*`; the start line
 * says where spans go) and its ops listener (`/healthz` answers at once, `/readyz` is 503 until the
 * service sets its checks, `/metrics` serves the span-export counters until the service adds its
 * own registry). Call first thing in `main`, before the Nest application is created, so
 * provisioning is traced and probed like everything after it.
 */
export async function startServiceTelemetry(service: string, env: Readonly<Record<string, string | undefined>>, ops: { readonly host: string; readonly port: number }): Promise<ServiceTelemetry> {
  const logger = serviceLogger(service, env);
  const tracing = startTracing({ serviceName: service, env });
  logger.info({ context: 'Telemetry' }, tracing.description);
  const server = await OpsServer.start({
    ...ops,
    logger: { info: (message) => logger.info({ context: 'Ops' }, message), error: (message) => logger.error({ context: 'Ops' }, message) },
  });
  server.addRegistry(tracing.metrics.registry);
  return { logger, tracing, ops: server };
}
