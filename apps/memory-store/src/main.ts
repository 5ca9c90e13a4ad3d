import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { applyServiceV8Flags, loadConfig } from '#config';
import { startServiceTelemetry, type MemoryStoreMetrics } from '#telemetry';
import { NatsService } from '#transport';
import { MemoryStoreModule } from './memory-store.module.js';
import { MemoryStoreService } from './memory-store.service.js';
import { MEMORY_STORE_METRICS } from './memory-store.tokens.js';

/**
 * Starts the memory-store: telemetry first (logs, traces, the ops listener), then the application
 * (the backend opens while the module is built). Ready (`/readyz`) once the backend is open and its
 * subscriptions serve. SIGTERM answers in-flight requests, then closes the backend.
 */
async function main(): Promise<void> {
  applyServiceV8Flags();
  const telemetry = await startServiceTelemetry('memory-store', process.env, loadConfig({ env: process.env }).ops);
  const app = await NestFactory.createApplicationContext(MemoryStoreModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  const nats = app.get(NatsService);
  const service = app.get(MemoryStoreService);
  telemetry.ops.addRegistry(app.get<MemoryStoreMetrics>(MEMORY_STORE_METRICS).registry);
  telemetry.ops.setReadiness({ provisioned: () => true, nats: () => !nats.nc.isClosed(), backend: () => service.isReady });
}

main().catch((error: unknown) => {
  // eslint-disable-next-line no-console -- last-resort report of a failed start: the Nest logger may be what failed, and the full inspected error (stack, cause) must reach stderr before exit
  console.error(error);
  process.exit(1);
});
