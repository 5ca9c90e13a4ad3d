import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ActivatorModule } from './activator.module.js';

/** Starts the activator; SIGTERM drains in-flight activations before exit. */
async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ActivatorModule, { bufferLogs: false });
  app.enableShutdownHooks();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
