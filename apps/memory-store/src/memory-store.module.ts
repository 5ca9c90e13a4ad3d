import { Module } from '@nestjs/common';
import { loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { NATS_CLIENT_NAME, natsServiceProvider } from '#transport';
import { MemoryStoreService } from './memory-store.service.js';

/** The memory-store's composition root. */
@Module({
  providers: [
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'memory-store' },
    natsServiceProvider,
    MemoryStoreService,
  ],
})
export class MemoryStoreModule {}
