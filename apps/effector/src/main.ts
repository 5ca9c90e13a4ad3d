import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { EffectorModule } from './effector.module.js';

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(EffectorModule);
  app.enableShutdownHooks();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
