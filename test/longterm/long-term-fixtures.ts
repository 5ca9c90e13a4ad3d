/**
 * Shared fixtures of the long-term suites: records, unique entity keys, and the four backends
 * opened on isolated namespaces (a temp SQLite file, a Redis key prefix, a PostgreSQL schema)
 * with a cleanup that removes everything they wrote from the shared servers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { LongTermRecord } from '#core';
import { openLongTermBackend, type LongTermBackend } from '#longterm';

/** The shared servers of the machine (started by .ci/run when down). */
export const REDIS_URL = 'redis://127.0.0.1:6379/0';
export const POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432/test';

/** A fixed event time: records are deterministic. */
export const T0 = 1_700_000_000_000;

const utf8 = new TextEncoder();

/** A fresh entity key nobody else uses. */
export function newEntity(): Uint8Array {
  return new Uint8Array(randomBytes(12));
}

/** A valid record of agent `support` (override anything). */
export function record(entityKey: Uint8Array, key: string, overrides: Partial<LongTermRecord> = {}): LongTermRecord {
  return {
    entityKey,
    agent: 'support',
    key,
    value: utf8.encode(`value of ${key}`),
    seq: 1,
    updatedAtMs: T0,
    type: 'fact',
    expiresAtMs: 0,
    supersededBy: '',
    supersededAtMs: 0,
    confidence: 0.5,
    ...overrides,
  };
}

/** A backend under test, its URI and how to remove what it wrote. */
export interface OpenedBackend {
  readonly name: string;
  readonly uri: string;
  readonly backend: LongTermBackend;
  /** Opens another connection to the same store (or the same instance for memory://). */
  reopen(): Promise<LongTermBackend>;
  /** Closes the backend and deletes everything it wrote. */
  cleanup(): Promise<void>;
}

/** The four backends, by name. */
export const BACKENDS = ['memory', 'sqlite', 'redis', 'postgresql'] as const;
export type BackendName = (typeof BACKENDS)[number];

/**
 * Opens `uri` as backend `name`; `reopen` opens more handles on the same store (all closed by
 * `cleanup`, which then runs `dispose` to drop the store's namespace).
 */
export async function openReopenable(name: string, uri: string, dispose: () => Promise<void> = () => Promise.resolve()): Promise<OpenedBackend> {
  const backend = await openLongTermBackend(uri);
  const others: LongTermBackend[] = [];
  return {
    name,
    uri,
    backend,
    reopen: async () => {
      const other = await openLongTermBackend(uri);
      others.push(other);
      return other;
    },
    cleanup: async () => {
      for (const b of [backend, ...others]) await b.close();
      await dispose();
    },
  };
}

/** Opens `name` on a namespace of its own. */
export async function openIsolated(name: BackendName): Promise<OpenedBackend> {
  const id = randomUUID().replaceAll('-', '').slice(0, 16);
  switch (name) {
    case 'memory': {
      const backend = await openLongTermBackend('memory://');
      return { name, uri: 'memory://', backend, reopen: async () => backend, cleanup: () => backend.close() };
    }
    case 'sqlite': {
      const dir = await mkdtemp(join(tmpdir(), 'ltm-sqlite-'));
      const uri = `sqlite://${join(dir, 'longterm.db')}`;
      return openReopenable(name, uri, () => rm(dir, { recursive: true, force: true }));
    }
    case 'redis': {
      const namespace = `test-ltm-${id}`;
      const uri = `${REDIS_URL}?prefix=${namespace}`;
      return openReopenable(name, uri, () => deleteRedisNamespace(namespace));
    }
    case 'postgresql': {
      const schema = `ltm_test_${id}`;
      const uri = `${POSTGRES_URL}?schema=${schema}`;
      return openReopenable(name, uri, () => dropPostgresSchema(schema));
    }
  }
}

/** Deletes every Redis key under `namespace`. */
export async function deleteRedisNamespace(namespace: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Drops a PostgreSQL schema and everything in it. */
export async function dropPostgresSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Every exported row of `entityKey`, as sorted `key → bytes` hex pairs (for byte comparisons). */
export async function exportedRowsOf(backend: LongTermBackend, entityKey: Uint8Array): Promise<[string, string][]> {
  const hex = Buffer.from(entityKey).toString('hex');
  const out: [string, string][] = [];
  for await (const batch of backend.exportRows(7)) {
    for (const row of batch) {
      if (Buffer.from(row.entityKey).toString('hex') === hex) out.push([`${row.agent}/${row.key}`, Buffer.from(row.bytes).toString('hex')]);
    }
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
