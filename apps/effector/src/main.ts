import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { applyServiceV8Flags, loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import type { Topology } from '#routing';
import { ConsumerLagSampler, startServiceTelemetry, type EffectorMetrics } from '#telemetry';
import { NatsService, TOPOLOGY } from '#transport';
import { EFFECTOR_METRICS } from './effector.tokens.js';
import { EffectorModule } from './effector.module.js';
import { EffectorService } from './effector.service.js';
import { EFFECTOR_CONSUMER } from './intent-consumer.js';

/**
 * Starts the effector: telemetry first (logs, traces, the ops listener), then the application.
 * Ready (`/readyz`) while it pulls intents. SIGTERM stops pulling, releases unstarted claims and
 * drains running tools before exit.
 */
async function main(): Promise<void> {
  applyServiceV8Flags();
  const telemetry = await startServiceTelemetry('effector', process.env, loadConfig({ env: process.env }).ops);
  const app = await NestFactory.createApplicationContext(EffectorModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  const config = app.get<RuntimeConfig>(RUNTIME_CONFIG);
  const metrics = app.get<EffectorMetrics>(EFFECTOR_METRICS);
  const nats = app.get(NatsService);
  const effector = app.get(EffectorService);
  const stream = app.get<Topology>(TOPOLOGY).streams.intents.name;
  telemetry.ops.addRegistry(metrics.registry);
  telemetry.ops.setReadiness({ provisioned: () => true, nats: () => !nats.nc.isClosed(), consumer: () => effector.isReady });
  const lag = new ConsumerLagSampler(
    metrics.consumerLag,
    async () => {
      const info = await nats.jsm.consumers.info(stream, EFFECTOR_CONSUMER);
      return [{ stream, consumer: EFFECTOR_CONSUMER, pending: info.num_pending, ackPending: info.num_ack_pending }];
    },
    config.ops.lagSampleMs,
    (error) => telemetry.logger.debug({ context: 'Ops' }, `sampling consumer lag failed: ${error.message}`),
  );
  lag.start();
}

main().catch((error: unknown) => {
  // eslint-disable-next-line no-console -- last-resort report of a failed start: the Nest logger may be what failed, and the full inspected error (stack, cause) must reach stderr before exit
  console.error(error);
  process.exit(1);
});
