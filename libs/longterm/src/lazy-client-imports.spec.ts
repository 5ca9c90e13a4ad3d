// Layer 1: URIs are validated without loading database clients; this guards the lib against a static import of one creeping in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLIENTS = ['better-sqlite3', 'ioredis', 'pg', 'kysely', '@google-cloud/bigtable', '@google-cloud/firestore'];
const root = fileURLToPath(new URL('.', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('libs/longterm imports', () => {
  it('import database clients only as types or through import()', () => {
    const offenders = sources(root).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /^\s*import\s+(?!type\b)/.test(line) && CLIENTS.some((client) => line.includes(`from '${client}'`)))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
