import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { applyServiceV8Flags, agentModulesProblem, loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { TOPOLOGY, NatsService } from '#transport';
import type { Topology } from '#routing';
import { ConsumerLagSampler, startServiceTelemetry, type RuntimeMetrics } from '#telemetry';
import { ActivatorModule } from './activator.module.js';
import { ActivatorService } from './activator.service.js';
import { RUNTIME_METRICS } from './activator.tokens.js';
import { samplePartitionLag } from './telemetry/partition-lag.js';

/**
 * Starts the activator: telemetry first (logs, traces, the ops listener answering probes during
 * provisioning), then the application. Ready (`/readyz`) once it has joined the cluster and while
 * its leases are healthy. SIGTERM drains in-flight activations before exit.
 */
async function main(): Promise<void> {
  applyServiceV8Flags();
  // A bad agent module stops the start with one line naming the file and what was expected.
  const problem = await agentModulesProblem(loadConfig({ env: process.env }).agentModules, process.cwd());
  if (problem !== undefined) {
    process.stderr.write(`activator: ${problem}\n`);
    process.exit(1);
  }
  const telemetry = await startServiceTelemetry('activator', process.env, loadConfig({ env: process.env }).ops);
  const app = await NestFactory.createApplicationContext(ActivatorModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  const config = app.get<RuntimeConfig>(RUNTIME_CONFIG);
  const metrics = app.get<RuntimeMetrics>(RUNTIME_METRICS);
  const nats = app.get(NatsService);
  const activator = app.get(ActivatorService);
  const topology = app.get<Topology>(TOPOLOGY);
  telemetry.ops.addRegistry(metrics.registry);
  telemetry.ops.setReadiness({
    provisioned: () => true,
    nats: () => !nats.nc.isClosed(),
    membership: () => activator.isReady,
    leases: () => activator.leasesHealthy,
  });
  const lag = new ConsumerLagSampler(metrics.consumerLag, () => samplePartitionLag(nats.jsm, topology, activator.ownedPartitions), config.ops.lagSampleMs, (error) =>
    telemetry.logger.debug({ context: 'Ops' }, `sampling consumer lag failed: ${error.message}`),
  );
  lag.start();
}

main().catch((error: unknown) => {
  // eslint-disable-next-line no-console -- last-resort report of a failed start: the Nest logger may be what failed, and the full inspected error (stack, cause) must reach stderr before exit
  console.error(error);
  process.exit(1);
});
