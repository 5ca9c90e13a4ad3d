import { readFileSync } from 'node:fs';
import { Module } from '@nestjs/common';
import { createAuthenticator, type Authenticator } from '#auth';
import { AgentsClient } from '#client';
import { loadClusterKeys, loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { createTopology, type Topology } from '#routing';
import { TelemetryModule } from '#telemetry';
import { NATS_CLIENT_NAME, natsServiceProvider, NatsService, TOPOLOGY } from '#transport';
import { ConsoleAuthGuard } from './console-auth.guard.js';
import { ConsoleController } from './console.controller.js';
import { ConsoleMetrics } from './console-metrics.js';
import type { ConsoleNats } from './console-nats.js';
import { AUTHENTICATOR, CONSOLE_METRICS, CONSOLE_NATS, ERASURE_DESK, LIVE_UPDATES, METRICS_READINGS } from './console.tokens.js';
import { ErasureDesk } from './erasure-desk.js';
import { LiveUpdates } from './live-updates.js';
import { MetricsReadings } from './metrics-readings.js';

/**
 * The console's composition root: config, the authenticator (`auth`, deny by default), its one
 * NATS connection under its own user (connected here; it never provisions), the views' sources
 * and the API controller.
 */
@Module({
  imports: [TelemetryModule.forService('console')],
  controllers: [ConsoleController],
  providers: [
    { provide: RUNTIME_CONFIG, useFactory: (): RuntimeConfig => loadConfig({ env: process.env }) },
    { provide: NATS_CLIENT_NAME, useValue: 'console' },
    {
      provide: TOPOLOGY,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) => createTopology({ prefix: config.prefix, partitions: config.partitions }),
    },
    {
      provide: AUTHENTICATOR,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig): Promise<Authenticator> => createAuthenticator(config.auth, { clock: { nowMs: () => Date.now(), monotonicMs: () => performance.now() } }),
    },
    natsServiceProvider,
    {
      provide: CONSOLE_NATS,
      inject: [NatsService, TOPOLOGY, RUNTIME_CONFIG],
      useFactory: async (nats: NatsService, topology: Topology, config: RuntimeConfig): Promise<ConsoleNats> => {
        const nc = await nats.connect();
        return {
          topology,
          js: nats.js,
          jsm: nats.jsm,
          // Approvals decided here are sealed with the active cluster key (docs/decisions/0058).
          client: AgentsClient.fromConnection(nc, {
            prefix: config.prefix,
            partitions: config.partitions,
            clusterKeys: loadClusterKeys(config.signing, { env: process.env, readFile: (path) => readFileSync(path, 'utf8') }),
          }),
          state: await nats.bucket(topology.buckets.state),
          leases: await nats.bucket(topology.buckets.leases),
          members: await nats.bucket(topology.buckets.members),
          maxMessages: config.console.maxMessagesPerView,
        };
      },
    },
    {
      provide: METRICS_READINGS,
      inject: [RUNTIME_CONFIG],
      useFactory: (config: RuntimeConfig) =>
        new MetricsReadings({
          targets: config.console.metricsTargets,
          everyMs: config.console.scrapeEveryMs,
          nowMs: () => Date.now(),
          fetchText: async (url) => {
            const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
            if (!response.ok) throw new Error(`HTTP ${response.status}`);
            return response.text();
          },
        }),
    },
    { provide: LIVE_UPDATES, useFactory: () => new LiveUpdates() },
    { provide: ERASURE_DESK, inject: [CONSOLE_NATS], useFactory: (nats: ConsoleNats) => new ErasureDesk(nats) },
    { provide: CONSOLE_METRICS, useFactory: () => new ConsoleMetrics() },
    ConsoleAuthGuard,
  ],
})
export class ConsoleModule {}
