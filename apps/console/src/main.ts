import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { applyServiceV8Flags, loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { startServiceTelemetry } from '#telemetry';
import { NatsService } from '#transport';
import { ConsoleModule } from './console.module.js';
import type { ConsoleMetrics } from './console-metrics.js';
import type { ConsoleNats } from './console-nats.js';
import { CONSOLE_METRICS, CONSOLE_NATS, LIVE_UPDATES, METRICS_READINGS } from './console.tokens.js';
import type { LiveUpdates } from './live-updates.js';
import type { MetricsReadings } from './metrics-readings.js';

/** `dist/console-web` of this installation (main.js is dist/apps/console/src/main.js). */
const BUILT_WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'console-web');

/**
 * Starts the console: telemetry and the ops listener, then the HTTP listener serving the built
 * front end at `/` and the API at `/api` (deny by default), the metrics readings for the agents
 * view and the live updates from NATS. SIGTERM closes the listener and drains NATS.
 */
async function main(): Promise<void> {
  applyServiceV8Flags();
  const telemetry = await startServiceTelemetry('console', process.env, loadConfig({ env: process.env }).ops);
  const app = await NestFactory.create<NestExpressApplication>(ConsoleModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  const config = app.get<RuntimeConfig>(RUNTIME_CONFIG);
  const web = config.console.staticDir === '' ? BUILT_WEB : resolve(config.console.staticDir);
  if (!existsSync(join(web, 'index.html'))) telemetry.logger.warn({ context: 'Console' }, `no built front end in ${web} (npm run build builds it); only the API is served`);
  app.useStaticAssets(web, { index: 'index.html', maxAge: 0 });
  app.use((_request: unknown, response: { setHeader(name: string, value: string): void }, next: () => void) => {
    response.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'");
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  app.enableShutdownHooks();

  const nats = app.get<ConsoleNats>(CONSOLE_NATS);
  const live = app.get<LiveUpdates>(LIVE_UPDATES);
  await live.start(app.get(NatsService).nc, nats.topology, [nats.leases, nats.members]);
  const readings = app.get<MetricsReadings>(METRICS_READINGS);
  readings.start();
  telemetry.ops.addRegistry(app.get<ConsoleMetrics>(CONSOLE_METRICS).registry);

  await app.listen(config.console.httpPort, config.console.httpHost);
  const address = app.getHttpServer().address() as { address: string; port: number } | null;
  telemetry.ops.setReadiness({ nats: () => !app.get(NatsService).nc.isClosed(), http: () => address !== null });
  // The URL is followed by a space: scripts and the test harness read it with /console listening on (\S+)/.
  if (address !== null) telemetry.logger.info({ context: 'Console' }, `console listening on http://${address.address}:${address.port} (sign-in: ${config.auth.apiKeys.length} API keys${config.auth.jwt ? ', JWT' : ''})`);
  process.once('SIGTERM', () => {
    readings.stop();
    live.stop();
  });
}

main().catch((error: unknown) => {
  // eslint-disable-next-line no-console -- last-resort report of a failed start: the Nest logger may be what failed
  console.error(error);
  process.exit(1);
});
