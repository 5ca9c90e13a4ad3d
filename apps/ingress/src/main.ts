import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { IngressModule } from './ingress.module.js';

/**
 * Starts an ingress replica: the HTTP edge always, the ingest consumer while it holds the ingest
 * lease (one replica at a time). SIGTERM drains in-flight forwards, then hands the lease back.
 */
async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(IngressModule, { bodyParser: false });
  const config = app.get<RuntimeConfig>(RUNTIME_CONFIG);
  // Bodies are opaque bytes; one byte over the limit lets the size check name the reason.
  app.useBodyParser('raw', { type: () => true, limit: config.ingress.maxEventBytes + 1 });
  app.enableShutdownHooks();
  await app.listen(config.ingress.httpPort, config.ingress.httpHost);
  const address = app.getHttpServer().address() as { address: string; port: number } | null;
  if (address !== null) Logger.log(`HTTP listening on http://${address.address}:${address.port}`, 'Ingress');
}

main().catch((error: unknown) => {
  // eslint-disable-next-line no-console -- last-resort report of a failed start: the Nest logger may be what failed, and the full inspected error (stack, cause) must reach stderr before exit
  console.error(error);
  process.exit(1);
});
