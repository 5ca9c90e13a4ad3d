#!/usr/bin/env node
// The nats-agents command line. Runs the compiled CLI; `npm run build` produces it.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'apps', 'cli', 'src', 'main.js');
if (!existsSync(entry)) {
  console.error('nats-agents is not built yet: run `npm run build` first.');
  process.exit(1);
}
await import(entry);
