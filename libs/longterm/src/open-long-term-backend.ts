/**
 * Builds the backend a long-term URI names. The URI is validated first (no import, no I/O); only
 * then is the one client library that backend needs imported (`import()`), so a deployment on
 * SQLite never loads ioredis, pg or a Google client, and a typo fails before anything connects.
 */
import { BigtableLongTermBackend } from './backends/bigtable-long-term-backend.js';
import { FirestoreLongTermBackend } from './backends/firestore-long-term-backend.js';
import { MemoryLongTermBackend } from './backends/memory-long-term-backend.js';
import { PostgresLongTermBackend } from './backends/postgres-long-term-backend.js';
import { RedisLongTermBackend } from './backends/redis-long-term-backend.js';
import { SqliteLongTermBackend } from './backends/sqlite-long-term-backend.js';
import type { LongTermBackend } from './long-term-backend.js';
import { LongTermBackendKind } from './long-term-backend-kind.js';
import { parseLongTermUri } from './long-term-uri.js';

/** Options of {@link openLongTermBackend}. */
export interface OpenLongTermBackendOptions {
  /**
   * PostgreSQL: run the shipped migrations on open; Bigtable: create the table and its column
   * family when missing (default true; idempotent, so every replica may do it). SQLite always
   * creates its table; memory, Redis and Firestore need nothing.
   */
  readonly migrate?: boolean;
}

/**
 * Opens the backend `uri` names, connected and ready.
 *
 * @throws {LongTermUriError} for an invalid URI (before any import or I/O).
 * @throws {LongTermUnavailable} when the store cannot be reached or prepared; retry later.
 * @example
 * ```ts
 * const backend = await openLongTermBackend('sqlite://.data/longterm.db');
 * try {
 *   await backend.upsert([record]);
 * } finally {
 *   await backend.close();
 * }
 * ```
 */
export async function openLongTermBackend(uri: string, options: OpenLongTermBackendOptions = {}): Promise<LongTermBackend> {
  const parsed = parseLongTermUri(uri);
  switch (parsed.kind) {
    case LongTermBackendKind.Memory:
      return new MemoryLongTermBackend();
    case LongTermBackendKind.Sqlite:
      return SqliteLongTermBackend.open(parsed, uri);
    case LongTermBackendKind.Redis:
      return RedisLongTermBackend.open(parsed, uri);
    case LongTermBackendKind.Postgresql:
      return PostgresLongTermBackend.open(parsed, uri, { ...(options.migrate === undefined ? {} : { migrate: options.migrate }) });
    case LongTermBackendKind.Bigtable:
      return BigtableLongTermBackend.open(parsed, uri, { ...(options.migrate === undefined ? {} : { createTable: options.migrate }) });
    case LongTermBackendKind.Firestore:
      return FirestoreLongTermBackend.open(parsed, uri);
  }
}
