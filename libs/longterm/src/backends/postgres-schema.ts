/**
 * The PostgreSQL DDL and its migrations (kysely `Migrator`, bookkeeping tables in the same
 * schema). Keys and agents are `COLLATE "C"`, so ordering and prefix ranges compare UTF-8 bytes
 * exactly like every other backend. Operators who manage DDL themselves run
 * {@link postgresLongTermDdl} and open the backend with `migrate: false`.
 */
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { LONG_TERM_TABLE } from './sqlite-long-term-backend.js';

/** The migration bookkeeping table (in the tier's schema). */
export const LONG_TERM_MIGRATION_TABLE = `${LONG_TERM_TABLE}_migration`;
/** The migration lock table (in the tier's schema): concurrent starts migrate once. */
export const LONG_TERM_MIGRATION_LOCK_TABLE = `${LONG_TERM_TABLE}_migration_lock`;

/** The DDL of the tier in `schema`, one statement per element, each idempotent. */
export function postgresLongTermDdl(schema: string): string[] {
  const table = `"${schema}".${LONG_TERM_TABLE}`;
  return [
    `CREATE SCHEMA IF NOT EXISTS "${schema}"`,
    `CREATE TABLE IF NOT EXISTS ${table} (
      entity_key    BYTEA  NOT NULL,
      agent         TEXT   COLLATE "C" NOT NULL,
      key           TEXT   COLLATE "C" NOT NULL,
      seq           BIGINT NOT NULL CHECK (seq >= 0),
      expires_at_ms BIGINT NOT NULL DEFAULT 0,
      superseded_by TEXT   COLLATE "C" NOT NULL DEFAULT '',
      rec           BYTEA  NOT NULL,
      PRIMARY KEY (entity_key, agent, key)
    )`,
    `CREATE INDEX IF NOT EXISTS ${LONG_TERM_TABLE}_expiry ON ${table} (expires_at_ms) WHERE expires_at_ms > 0`,
    `CREATE INDEX IF NOT EXISTS ${LONG_TERM_TABLE}_superseded ON ${table} (entity_key, agent, superseded_by) WHERE superseded_by <> ''`,
  ];
}

/**
 * The tier's migrations, in order. NEVER edit a shipped migration: add the next one. `sql` is
 * kysely's tag, passed in so this module imports no runtime code of kysely.
 */
export function longTermMigrations(schema: string, raw: (statement: string) => { execute(db: Kysely<unknown>): Promise<unknown> }): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '0001_longterm_rows': {
      up: async (db) => {
        for (const statement of postgresLongTermDdl(schema)) await raw(statement).execute(db);
      },
      down: async (db) => {
        await raw(`DROP TABLE IF EXISTS "${schema}".${LONG_TERM_TABLE}`).execute(db);
      },
    },
  };
  return { getMigrations: async () => migrations };
}
