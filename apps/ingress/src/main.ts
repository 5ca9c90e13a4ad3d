import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { applyServiceV8Flags, agentModulesProblem, loadConfig, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import type { Topology } from '#routing';
import { ConsumerLagSampler, startServiceTelemetry, type IngressMetrics } from '#telemetry';
import { NatsService, TOPOLOGY } from '#transport';
import { IngressModule } from './ingress.module.js';
import { IngressService } from './ingress.service.js';
import { INGRESS_METRICS } from './ingress.tokens.js';

/**
 * Starts an ingress replica: telemetry first (logs, traces, the ops listener), then the HTTP edge
 * always, the ingest consumer while it holds the ingest lease (one replica at a time). Ready
 * (`/readyz`) once it is either consuming or standing by. SIGTERM drains in-flight forwards, then
 * hands the lease back.
 */
async function main(): Promise<void> {
  applyServiceV8Flags();
  // A bad agent module stops the start with one line naming the file and what was expected.
  const problem = await agentModulesProblem(loadConfig({ env: process.env }).agentModules, process.cwd());
  if (problem !== undefined) {
    process.stderr.write(`ingress: ${problem}\n`);
    process.exit(1);
  }
  const telemetry = await startServiceTelemetry('ingress', process.env, loadConfig({ env: process.env }).ops);
  const app = await NestFactory.create<NestExpressApplication>(IngressModule, { bodyParser: false, bufferLogs: true });
  app.useLogger(app.get(Logger));
  const config = app.get<RuntimeConfig>(RUNTIME_CONFIG);
  // No body parser: the HTTP edge reads a body only after the caller's credential passed (http/request-body.ts).
  app.enableShutdownHooks();
  await app.listen(config.ingress.httpPort, config.ingress.httpHost);
  const address = app.getHttpServer().address() as { address: string; port: number } | null;
  // The URL is followed by a space: scripts and the test harness read it with /HTTP listening on (\S+)/.
  if (address !== null) telemetry.logger.info({ context: 'Ingress' }, `HTTP listening on http://${address.address}:${address.port} (POST /v1/agents/:agent/{events,results,approvals}/:key)`);

  const metrics = app.get<IngressMetrics>(INGRESS_METRICS);
  const nats = app.get(NatsService);
  const ingress = app.get(IngressService);
  const stream = app.get<Topology>(TOPOLOGY).streams.ingest.name;
  telemetry.ops.addRegistry(metrics.registry);
  telemetry.ops.setReadiness({ provisioned: () => true, nats: () => !nats.nc.isClosed(), http: () => address !== null, consumer: () => ingress.isReady });
  const lag = new ConsumerLagSampler(
    metrics.consumerLag,
    async () => {
      const consumer = ingress.ingestConsumer;
      if (consumer === undefined) return [];
      const info = await nats.jsm.consumers.info(stream, consumer);
      return [{ stream, consumer, pending: info.num_pending, ackPending: info.num_ack_pending }];
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
