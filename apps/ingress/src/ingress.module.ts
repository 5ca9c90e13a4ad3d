import { Module } from '@nestjs/common';
import { AGENT_CATALOG, loadAgentModules, loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { createTopology } from '#routing';
import { IngressMetrics, TelemetryModule } from '#telemetry';
import { NATS_CLIENT_NAME, natsServiceProvider, provisioningProvider, TOPOLOGY } from '#transport';
import { EventsController } from './events.controller.js';
import { IngressService } from './ingress.service.js';
import { INGRESS_METRICS } from './ingress.tokens.js';

/** Ingress composition root: config, agent catalog (names and validators), NATS, consumer, HTTP. */
@Module({
  imports: [TelemetryModule.forService('ingress')],
  controllers: [EventsController],
  providers: [
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'ingress' },
    {
      provide: AGENT_CATALOG,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => loadAgentModules(config.agentModules, process.cwd()),
    },
    {
      provide: TOPOLOGY,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => createTopology({ prefix: config.prefix, partitions: config.partitions }),
    },
    natsServiceProvider,
    provisioningProvider,
    { provide: INGRESS_METRICS, useFactory: () => new IngressMetrics() },
    IngressService,
  ],
})
export class IngressModule {}
