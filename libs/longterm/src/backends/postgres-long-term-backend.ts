/**
 * `postgresql://…`: one table (see `postgres-schema.ts`) through kysely and a pg pool. The seq
 * guard is `INSERT … ON CONFLICT (entity_key, agent, key) DO UPDATE … WHERE excluded.seq >=
 * nats_agents_longterm.seq`, atomic per row in PostgreSQL; a batch runs in one transaction, so
 * it lands whole or not at all. Idle-connection errors are absorbed by the pool listener; every
 * failed call surfaces as `LongTermUnavailable`.
 */
import type { Kysely, RawBuilder, Sql } from 'kysely';
import type { Pool } from 'pg';
import { decodeLongTermRecord, isExpired, type LongTermRecord, type LongTermScope, type SearchOptions } from '#core';
import { prefixUpperBound } from '../key-order.js';
import { MAX_HISTORY_LENGTH, type LongTermBackend } from '../long-term-backend.js';
import { LongTermBackendKind } from '../long-term-backend-kind.js';
import { rowFromRecord, type LongTermRow } from '../long-term-row.js';
import type { LongTermUri } from '../long-term-uri.js';
import { assertEntityKey, assertEpochMs, assertKeyLookup, assertLimit, assertPrefixSearch, assertRow } from '../long-term-validation.js';
import { walkSupersedeChain } from '../lifecycle/supersede-chain.js';
import { UpsertVerdict } from '../upsert-verdict.js';
import { asUnavailable, guarded } from './backend-failure.js';
import { LONG_TERM_MIGRATION_LOCK_TABLE, LONG_TERM_MIGRATION_TABLE, longTermMigrations } from './postgres-schema.js';
import { LONG_TERM_TABLE } from './sqlite-long-term-backend.js';

type PostgresUri = Extract<LongTermUri, { kind: 'postgresql' }>;

/** The table as kysely sees it (BIGINT columns are read back as strings by pg). */
interface LongTermTable {
  entity_key: Buffer;
  agent: string;
  key: string;
  seq: number | string;
  expires_at_ms: number | string;
  superseded_by: string;
  rec: Buffer;
}
interface LongTermDatabase {
  nats_agents_longterm: LongTermTable;
}

/** Options of {@link PostgresLongTermBackend.open}. */
export interface PostgresOpenOptions {
  /** Run the migrations on open (default true; idempotent, lock-protected across replicas). */
  readonly migrate?: boolean;
  /** Pool size (default 10). */
  readonly maxConnections?: number;
}

const CONNECT_TIMEOUT_MS = 2_000;
const QUERY_TIMEOUT_MS = 5_000;

const buf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The PostgreSQL backend. Build it with {@link PostgresLongTermBackend.open} (imports kysely and pg lazily). */
export class PostgresLongTermBackend implements LongTermBackend {
  readonly kind = LongTermBackendKind.Postgresql;
  readonly target: string;
  private closed = false;

  private constructor(
    private readonly db: Kysely<LongTermDatabase>,
    private readonly sql: Sql,
    private readonly uri: PostgresUri,
    private readonly rawUri: string,
  ) {
    this.target = uri.redacted;
  }

  /**
   * Connects a pool to `uri` and (unless `migrate: false`) migrates the schema to the latest
   * version.
   *
   * @throws {LongTermUnavailable} when PostgreSQL cannot be reached or a migration fails.
   */
  static async open(uri: PostgresUri, rawUri: string, options: PostgresOpenOptions = {}): Promise<PostgresLongTermBackend> {
    const [{ Kysely, Migrator, PostgresDialect, sql }, { default: pg }] = await Promise.all([import('kysely'), import('pg')]);
    const pool: Pool = new pg.Pool({
      connectionString: uri.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
    });
    // An idle client's error (server restart) must not crash the process; the next query reports it.
    pool.on('error', () => undefined);
    const db = new Kysely<LongTermDatabase>({ dialect: new PostgresDialect({ pool }) });
    try {
      if (options.migrate ?? true) {
        const migrator = new Migrator({
          db,
          provider: longTermMigrations(uri.schema, (statement) => sql.raw(statement)),
          migrationTableSchema: uri.schema,
          migrationTableName: LONG_TERM_MIGRATION_TABLE,
          migrationLockTableName: LONG_TERM_MIGRATION_LOCK_TABLE,
        });
        const { error } = await migrator.migrateToLatest();
        if (error !== undefined) throw error;
      } else {
        await sql`select 1`.execute(db);
      }
    } catch (error) {
      await db.destroy().catch(() => undefined);
      throw asUnavailable(uri.redacted, rawUri, 'open', error);
    }
    return new PostgresLongTermBackend(db, sql, uri, rawUri);
  }

  async load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    assertKeyLookup(scope, key, nowMs);
    return this.run('load', () => this.loadLive(scope, key, nowMs));
  }

  async search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    assertPrefixSearch(scope, prefix, nowMs, options.limit);
    const upper = prefix === '' ? undefined : prefixUpperBound(prefix);
    let query = this.table()
      .selectFrom(LONG_TERM_TABLE)
      .select('rec')
      .where('entity_key', '=', buf(scope.entityKey))
      .where('agent', '=', scope.agent)
      .where('key', '>=', prefix)
      .where((eb) => eb.or([eb('expires_at_ms', '=', 0), eb('expires_at_ms', '>', nowMs)]));
    if (upper !== undefined) query = query.where('key', '<', upper);
    if (options.includeSuperseded !== true) query = query.where('superseded_by', '=', '');
    const rows = await this.run('search', () => query.orderBy('key').limit(options.limit).execute());
    return rows.map((row) => decodeLongTermRecord(new Uint8Array(row.rec)));
  }

  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    await this.applyRows(records.map(rowFromRecord));
  }

  async applyRows(rows: readonly LongTermRow[]): Promise<UpsertVerdict[]> {
    rows.forEach(assertRow);
    if (rows.length === 0) return [];
    const guard = this.sql<boolean>`excluded.seq >= ${this.sql.ref(`${LONG_TERM_TABLE}.seq`)}`;
    return this.run('upsert', () =>
      this.db.transaction().execute(async (trx) => {
        const verdicts: UpsertVerdict[] = [];
        for (const row of rows) {
          const result = await trx
            .withSchema(this.uri.schema)
            .insertInto(LONG_TERM_TABLE)
            .values({
              entity_key: buf(row.entityKey),
              agent: row.agent,
              key: row.key,
              seq: row.seq,
              expires_at_ms: row.expiresAtMs,
              superseded_by: row.supersededBy,
              rec: buf(row.bytes),
            })
            .onConflict((oc) =>
              oc
                .columns(['entity_key', 'agent', 'key'])
                .doUpdateSet((eb) => ({
                  seq: eb.ref('excluded.seq'),
                  expires_at_ms: eb.ref('excluded.expires_at_ms'),
                  superseded_by: eb.ref('excluded.superseded_by'),
                  rec: eb.ref('excluded.rec'),
                }))
                .where(guard),
            )
            .executeTakeFirst();
          verdicts.push((result.numInsertedOrUpdatedRows ?? 0n) > 0n ? UpsertVerdict.Applied : UpsertVerdict.Stale);
        }
        return verdicts;
      }),
    );
  }

  async history(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord[]> {
    assertKeyLookup(scope, key, nowMs);
    return this.run('history', () =>
      walkSupersedeChain(
        key,
        {
          load: (k) => this.loadLive(scope, k, nowMs),
          predecessors: async (k) => {
            const rows = await this.table()
              .selectFrom(LONG_TERM_TABLE)
              .select('rec')
              .where('entity_key', '=', buf(scope.entityKey))
              .where('agent', '=', scope.agent)
              .where('superseded_by', '=', k)
              .where((eb) => eb.or([eb('expires_at_ms', '=', 0), eb('expires_at_ms', '>', nowMs)]))
              .execute();
            return rows.map((row) => decodeLongTermRecord(new Uint8Array(row.rec)));
          },
        },
        MAX_HISTORY_LENGTH,
      ),
    );
  }

  async eraseEntity(entityKey: Uint8Array): Promise<number> {
    assertEntityKey(entityKey);
    const result = await this.run('erase', () => this.table().deleteFrom(LONG_TERM_TABLE).where('entity_key', '=', buf(entityKey)).executeTakeFirst());
    return Number(result.numDeletedRows);
  }

  async sweepExpired(nowMs: number, limit: number): Promise<number> {
    assertEpochMs(nowMs, 'nowMs');
    assertLimit(limit);
    const table = this.sql.table(`${this.uri.schema}.${LONG_TERM_TABLE}`);
    const statement: RawBuilder<unknown> = this.sql`DELETE FROM ${table} WHERE (entity_key, agent, key) IN (
      SELECT entity_key, agent, key FROM ${table} WHERE expires_at_ms > 0 AND expires_at_ms <= ${nowMs} LIMIT ${limit})`;
    const result = await this.run('sweep', () => statement.execute(this.db));
    return Number(result.numAffectedRows ?? 0n);
  }

  async *exportRows(batchSize = 500): AsyncIterable<readonly LongTermRow[]> {
    assertLimit(batchSize);
    let last: Pick<LongTermTable, 'entity_key' | 'agent' | 'key'> | undefined;
    for (;;) {
      const after = last;
      let query = this.table().selectFrom(LONG_TERM_TABLE).selectAll();
      if (after !== undefined) {
        query = query.where(this.sql<boolean>`(entity_key, agent, key) > (${after.entity_key}, ${after.agent}, ${after.key})`);
      }
      const page = await this.run('export', () => query.orderBy('entity_key').orderBy('agent').orderBy('key').limit(batchSize).execute());
      if (page.length === 0) return;
      yield page.map((row) => ({
        entityKey: new Uint8Array(row.entity_key),
        agent: row.agent,
        key: row.key,
        seq: Number(row.seq),
        expiresAtMs: Number(row.expires_at_ms),
        supersededBy: row.superseded_by,
        bytes: new Uint8Array(row.rec),
      }));
      if (page.length < batchSize) return;
      last = page[page.length - 1];
    }
  }

  async importRows(rows: readonly LongTermRow[]): Promise<number> {
    return (await this.applyRows(rows)).filter((verdict) => verdict === UpsertVerdict.Applied).length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.destroy();
  }

  private async loadLive(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    const row = await this.table()
      .selectFrom(LONG_TERM_TABLE)
      .select('rec')
      .where('entity_key', '=', buf(scope.entityKey))
      .where('agent', '=', scope.agent)
      .where('key', '=', key)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const record = decodeLongTermRecord(new Uint8Array(row.rec));
    return isExpired(record, nowMs) ? undefined : record;
  }

  private table(): Kysely<LongTermDatabase> {
    return this.db.withSchema(this.uri.schema);
  }

  private run<T>(operation: string, work: () => Promise<T>): Promise<T> {
    return guarded(this.target, this.rawUri, operation, () => {
      if (this.closed) throw new Error('the PostgreSQL long-term backend is closed');
      return work();
    });
  }
}
