import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { MemoryStoreModule } from './memory-store.module.js';

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(MemoryStoreModule);
  app.enableShutdownHooks();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
