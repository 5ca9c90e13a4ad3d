import { Module } from '@nestjs/common';
import { loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { NATS_CLIENT_NAME, natsServiceProvider } from '#transport';
import { EffectorService } from './effector.service.js';

/** The effector's composition root. */
@Module({
  providers: [
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'effector' },
    natsServiceProvider,
    EffectorService,
  ],
})
export class EffectorModule {}
