import { Logger, Module } from '@nestjs/common';
import { loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { openLongTermBackend, type LongTermBackend } from '#longterm';
import { createTopology, type Topology } from '#routing';
import { MemoryStoreMetrics, TelemetryModule } from '#telemetry';
import { NATS_CLIENT_NAME, NatsService, natsServiceProvider, PROVISIONING, provisioningProvider, TOPOLOGY } from '#transport';
import { EntityEraser } from './erasure/entity-eraser.js';
import { MemoryRequestHandler } from './memory-request-handler.js';
import { ENTITY_ERASER, LONG_TERM_BACKEND, MEMORY_REQUEST_HANDLER, MEMORY_STORE_METRICS } from './memory-store.tokens.js';
import { MemoryStoreService } from './memory-store.service.js';

/**
 * The memory-store's composition root. The backend is opened (and PostgreSQL migrated) while the
 * module is built, so an invalid URI or an unreachable store fails the start with a redacted
 * message instead of the first request. `longterm.uri` unset: no backend, the service serves
 * erasure only. Provisioning runs first, so the erasure bucket and the audit stream exist.
 */
@Module({
  imports: [TelemetryModule.forService('memory-store')],
  providers: [
    { provide: MEMORY_STORE_METRICS, useFactory: () => new MemoryStoreMetrics() },
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'memory-store' },
    {
      provide: TOPOLOGY,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => createTopology({ prefix: config.prefix, partitions: config.partitions }),
    },
    natsServiceProvider,
    provisioningProvider,
    {
      provide: LONG_TERM_BACKEND,
      inject: [RUNTIME_CONFIG],
      useFactory: async (config: RuntimeConfig): Promise<LongTermBackend | null> => (config.longterm.uri === undefined ? null : openLongTermBackend(config.longterm.uri)),
    },
    {
      provide: MEMORY_REQUEST_HANDLER,
      inject: [LONG_TERM_BACKEND, RUNTIME_CONFIG],
      useFactory: (backend: LongTermBackend | null, config: RuntimeConfig): MemoryRequestHandler | null =>
        backend === null ? null : new MemoryRequestHandler(backend, config.longterm.deadlineMs),
    },
    {
      provide: ENTITY_ERASER,
      inject: [NatsService, TOPOLOGY, RUNTIME_CONFIG, LONG_TERM_BACKEND, PROVISIONING],
      useFactory: async (nats: NatsService, topology: Topology, config: RuntimeConfig, backend: LongTermBackend | null): Promise<EntityEraser> =>
        new EntityEraser({
          js: nats.js,
          jsm: nats.jsm,
          topology,
          erasures: await nats.bucket(topology.buckets.erasures),
          members: await nats.bucket(topology.buckets.members),
          effects: await nats.bucket(topology.buckets.effects),
          backend,
          nowMs: () => Date.now(),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
          // Long enough for the longest activation to finish and for a dead activator to leave the membership.
          pauseTimeoutMs: config.activator.activationTimeoutMs + 2 * config.activator.leaseTtlMs,
          log: (message) => new Logger('Erasure').log(message),
        }),
    },
    MemoryStoreService,
  ],
})
export class MemoryStoreModule {}
