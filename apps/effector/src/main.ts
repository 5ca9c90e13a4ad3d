import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { EffectorModule } from './effector.module.js';

/** Starts the effector; SIGTERM stops pulling, releases unstarted claims and drains running tools before exit. */
async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(EffectorModule, { bufferLogs: false });
  app.enableShutdownHooks();
}

main().catch((error: unknown) => {
  // eslint-disable-next-line no-console -- last-resort report of a failed start: the Nest logger may be what failed, and the full inspected error (stack, cause) must reach stderr before exit
  console.error(error);
  process.exit(1);
});
