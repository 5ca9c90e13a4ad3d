import { Module } from '@nestjs/common';
import { loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { openLongTermBackend, type LongTermBackend } from '#longterm';
import { createTopology } from '#routing';
import { NATS_CLIENT_NAME, natsServiceProvider, TOPOLOGY } from '#transport';
import { MemoryRequestHandler } from './memory-request-handler.js';
import { LONG_TERM_BACKEND, MEMORY_REQUEST_HANDLER } from './memory-store.tokens.js';
import { MemoryStoreService } from './memory-store.service.js';

/**
 * The memory-store's composition root. The backend is opened (and PostgreSQL migrated) while the
 * module is built, so an invalid URI or an unreachable store fails the start with a redacted
 * message instead of the first request. `longterm.uri` unset: no backend, the service serves
 * nothing.
 */
@Module({
  providers: [
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'memory-store' },
    {
      provide: TOPOLOGY,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => createTopology({ prefix: config.prefix, partitions: config.partitions }),
    },
    natsServiceProvider,
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
    MemoryStoreService,
  ],
})
export class MemoryStoreModule {}
